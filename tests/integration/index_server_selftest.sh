# index_server.py, the test package index, does what the download tests rely
# on: PEP 503 HTML and PEP 691 JSON listings with true hashes, Range requests,
# the bytes sent logged per request, and its fault modes (cut-once, corrupt,
# json-only, html-only, redirect, ignore-ranges, unknown-size, single-quote,
# scheme-relative).
# Checked with Debian's curl, so a failure here is the server's, not opkit's.
source "$(dirname "$0")/common.sh"

unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
server_py="$OPKIT_SOURCE_DIR/tests/integration/index_server.py"
root="$work/root"
mkdir -p "$root"

# Two wheels: a dummy (random bytes, only a name) and a real little zip with METADATA.
big=tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
small=tensorflow-1.12.0-cp36-cp36m-manylinux1_x86_64.whl
head -c 1000000 /dev/urandom >"$root/$big"
python3 - "$root/$small" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("tensorflow-1.12.0.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: tensorflow\nVersion: 1.12.0\nRequires-Python: >=3.6, <3.7\n")
    z.writestr("tensorflow/__init__.py", "x = 1\n" * 1000)
EOF
big_sha=$(sha256sum "$root/$big" | cut -d' ' -f1)
small_sha=$(sha256sum "$root/$small" | cut -d' ' -f1)

server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT

# start_server [mode [args]]: sets $base; the request log goes to $work/log-<mode>.
start_server() {
  local mode=${1:-normal}
  stop_server
  rm -f "$work/port"
  log="$work/log-$mode"
  python3 "$server_py" --root "$root" --port-file "$work/port" --mode "$mode" --log "$log" "${@:2}" \
    2>"$work/server-$mode.err" &
  server_pid=$!
  for _ in $(seq 100); do
    [ -s "$work/port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server-$mode.err" >&2; fail "the server ($mode) died"; }
    sleep 0.1
  done
  [ -s "$work/port" ] || fail "the server ($mode) wrote no port"
  base="http://127.0.0.1:$(cat "$work/port")"
}

# get <out> <curl args...>: stores the body in <out>, the headers in <out>.h, prints the status.
get() {
  local out=$1
  shift
  curl -sS -o "$out" -D "$out.h" -w '%{http_code}' "$@"
}

# bytes_of <file> <offset> <count>: a slice of a file (no pipes that SIGPIPE under pipefail).
bytes_of() {
  dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none
}

json_check() { # json_check <file> <python expression over d, true when right>
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" ||
    { cat "$1" >&2; fail "$1: not ($2)"; }
}

accept_json='Accept: application/vnd.pypi.simple.v1+json'

# --- normal: both listings, true hashes, redirects to normalized names, ranges
start_server
[ "$(get list.html "$base/simple/")" = 200 ] || fail "/simple/ did not answer 200"
expect_contains list.html '<a href="tensorflow/">tensorflow</a>'
expect_contains list.html '<a href="tensorflow-cpu/">tensorflow-cpu</a>'
[ "$(get list.json -H "$accept_json" "$base/simple/")" = 200 ] || fail "/simple/ as JSON did not answer 200"
json_check list.json 'd["meta"]["api-version"] == "1.0" and [p["name"] for p in d["projects"]] == ["tensorflow", "tensorflow-cpu"]'

[ "$(get cpu.html "$base/simple/tensorflow-cpu/")" = 200 ] || fail "project page did not answer 200"
expect_contains cpu.html.h '^Content-Type: text/html'
expect_contains cpu.html "<a href=\"\.\./\.\./files/$big#sha256=$big_sha\">$big</a>"
[ "$(get tf.html "$base/simple/tensorflow/")" = 200 ] || fail "project page did not answer 200"
expect_contains tf.html "<a href=\"\.\./\.\./files/$small#sha256=$small_sha\" data-requires-python=\"&gt;=3\.6, &lt;3\.7\">$small</a>"

[ "$(get cpu.json -H "$accept_json" "$base/simple/tensorflow-cpu/")" = 200 ] || fail "JSON page did not answer 200"
expect_contains cpu.json.h '^Content-Type: application/vnd\.pypi\.simple\.v1\+json'
json_check cpu.json "d['meta']['api-version'] == '1.0' and d['name'] == 'tensorflow-cpu' and d['files'] == [{'filename': '$big', 'url': '../../files/$big', 'hashes': {'sha256': '$big_sha'}, 'requires-python': None, 'yanked': False}]"
[ "$(get tf.json -H "$accept_json" "$base/simple/tensorflow/")" = 200 ] || fail "JSON page did not answer 200"
json_check tf.json "d['files'][0]['requires-python'] == '>=3.6, <3.7' and d['files'][0]['hashes']['sha256'] == '$small_sha'"
# HTML is preferred when the client says so with q-values
get q.html -H 'Accept: application/vnd.pypi.simple.v1+json;q=0.2, text/html' "$base/simple/tensorflow/" >/dev/null
expect_contains q.html.h '^Content-Type: text/html'

[ "$(get redirect.html "$base/simple/TensorFlow_CPU/")" = 301 ] || fail "a non-normalized name was not redirected"
expect_contains redirect.html.h '^Location: /simple/tensorflow-cpu/'
[ "$(get redirect.html "$base/simple/tensorflow-cpu")" = 301 ] || fail "a name without its slash was not redirected"
[ "$(get none.html "$base/simple/no-such/")" = 404 ] || fail "an unknown project did not answer 404"
[ "$(get none.whl "$base/files/no-such.whl")" = 404 ] || fail "an unknown file did not answer 404"
[ "$(get none.whl "$base/files/..%2F$small")" = 404 ] || fail "a path with .. did not answer 404"

[ "$(get full.whl "$base/files/$big")" = 200 ] || fail "the file did not answer 200"
cmp -s full.whl "$root/$big" || fail "the file's bytes differ"
expect_contains full.whl.h '^Accept-Ranges: bytes'
[ "$(get part.bin -r 1000-1999 "$base/files/$big")" = 206 ] || fail "a range did not answer 206"
expect_contains part.bin.h '^Content-Range: bytes 1000-1999/1000000'
bytes_of "$root/$big" 1000 1000 | cmp -s - part.bin || fail "the range's bytes are wrong"
[ "$(get tail.bin -H 'Range: bytes=999000-' "$base/files/$big")" = 206 ] || fail "an open range did not answer 206"
bytes_of "$root/$big" 999000 1000 | cmp -s - tail.bin || fail "the open range's bytes are wrong"
[ "$(get suffix.bin -H 'Range: bytes=-10' "$base/files/$big")" = 206 ] || fail "a suffix range did not answer 206"
bytes_of "$root/$big" 999990 10 | cmp -s - suffix.bin || fail "the suffix range's bytes are wrong"
[ "$(get past.bin -H 'Range: bytes=1000000-' "$base/files/$big")" = 416 ] || fail "a range past the end did not answer 416"
expect_contains past.bin.h '^Content-Range: bytes \*/1000000'
[ "$(curl -sS -o /dev/null -w '%{http_code}' -I "$base/files/$big")" = 200 ] || fail "HEAD did not answer 200"

# Hashes are cached next to the wheels and reused.
[ "$(cut -d' ' -f1 "$root/.sha256-$big")" = "$big_sha" ] || fail "no sha256 cache for $big"
# The log has one line per request, with the range and the bytes sent.
expect_contains "$log" "^GET /files/$big range=bytes=1000-1999 status=206 sent=1000\$"
expect_contains "$log" "^GET /files/$big range=- status=200 sent=1000000\$"
expect_contains "$log" '^GET /simple/tensorflow-cpu/ range=- status=200 sent=[0-9]+ format=json$'

# --- cut-once: the first GET stops halfway (curl: 18, partial file), the next is whole
start_server cut-once
rc=0
get cut.whl "$base/files/$big" >/dev/null 2>cut.err || rc=$?
[ "$rc" -eq 18 ] || { cat cut.err >&2; fail "the first GET in cut-once mode did not end as a partial transfer (curl exit $rc)"; }
[ "$(stat -c %s cut.whl)" -eq 500000 ] || fail "cut-once sent $(stat -c %s cut.whl) bytes, expected half (500000)"
bytes_of "$root/$big" 0 500000 | cmp -s - cut.whl || fail "the bytes before the cut are wrong"
# curl's own resume: asks for the rest and appends it
[ "$(curl -sS -C - -o cut.whl -w '%{http_code}' "$base/files/$big")" = 206 ] || fail "resuming after the cut did not answer 206"
cmp -s cut.whl "$root/$big" || fail "the resumed file differs"
[ "$(get again.whl "$base/files/$big")" = 200 ] || fail "a later GET in cut-once mode did not answer 200"
cmp -s again.whl "$root/$big" || fail "a later GET in cut-once mode is not whole"
# each file is cut once: the other one's first GET too
rc=0
get cut2.whl "$base/files/$small" >/dev/null 2>/dev/null || rc=$?
[ "$rc" -eq 18 ] || fail "the first GET of the second file was not cut (curl exit $rc)"
expect_contains "$log" "^GET /files/$big range=- status=200 sent=500000 cut\$"
expect_contains "$log" "^GET /files/$big range=bytes=500000- status=206 sent=500000\$"
[ "$(grep -c "^GET /files/$big " "$log")" -eq 3 ] || fail "expected 3 GETs of $big in the log"

# --- corrupt: other bytes, same size, the index still advertises the true hash
start_server corrupt
[ "$(get bad.whl "$base/files/$big")" = 200 ] || fail "corrupt mode did not answer 200"
[ "$(stat -c %s bad.whl)" -eq 1000000 ] || fail "corrupt mode changed the size"
! cmp -s bad.whl "$root/$big" || fail "corrupt mode served the true bytes"
[ "$(cmp -l bad.whl "$root/$big" | wc -l)" -eq 3 ] || fail "corrupt mode should flip 3 bytes"
get bad.html "$base/simple/tensorflow-cpu/" >/dev/null
expect_contains bad.html "#sha256=$big_sha\""
get badpart.bin -r 499990-500009 "$base/files/$big" >/dev/null
bytes_of bad.whl 499990 20 | cmp -s - badpart.bin || fail "corrupt ranges are not consistent with the corrupt file"

# --- json-only and html-only
start_server json-only
[ "$(get j.html "$base/simple/tensorflow/")" = 406 ] || fail "json-only served a client that does not accept JSON"
[ "$(get j.json -H "$accept_json" "$base/simple/tensorflow/")" = 200 ] || fail "json-only did not serve JSON"
json_check j.json "d['name'] == 'tensorflow'"
start_server html-only
[ "$(get h.json -H "$accept_json" "$base/simple/tensorflow/")" = 200 ] || fail "html-only did not answer"
expect_contains h.json.h '^Content-Type: text/html'
expect_contains h.json "#sha256=$small_sha"

# --- redirect: links go through a 302 to the file
start_server redirect
get r.html "$base/simple/tensorflow-cpu/" >/dev/null
expect_contains r.html "href=\"\.\./\.\./redirect/$big#sha256=$big_sha\""
[ "$(get r.whl "$base/redirect/$big")" = 302 ] || fail "redirect mode did not answer 302"
expect_contains r.whl.h "^Location: /files/$big"
[ "$(get r.whl -L "$base/simple/tensorflow-cpu/../../redirect/$big")" = 200 ] || fail "following the redirect failed"
cmp -s r.whl "$root/$big" || fail "the redirected download differs"

# --- ignore-ranges: the whole file, whatever Range asks, and no Accept-Ranges
start_server ignore-ranges
[ "$(get ir.whl -r 1000-1999 "$base/files/$big")" = 200 ] || fail "ignore-ranges answered a range with other than 200"
cmp -s ir.whl "$root/$big" || fail "ignore-ranges did not send the whole file"
! grep -qi '^Accept-Ranges' ir.whl.h || fail "ignore-ranges advertised Accept-Ranges"
[ "$(get irs.whl -H 'Range: bytes=-10' "$base/files/$big")" = 200 ] || fail "ignore-ranges answered a suffix range"
cmp -s irs.whl "$root/$big" || fail "ignore-ranges did not send the whole file for a suffix range"
expect_contains "$log" "^GET /files/$big range=bytes=1000-1999 status=200 sent=1000000\$"
expect_contains "$log" "^GET /files/$big range=bytes=-10 status=200 sent=1000000\$"

# --- unknown-size: no Content-Length, "bytes a-b/*"; the body ends with the connection
start_server unknown-size
[ "$(get us.bin -r 1000-1999 "$base/files/$big")" = 206 ] || fail "unknown-size did not answer a range with 206"
expect_contains us.bin.h '^Content-Range: bytes 1000-1999/\*'
! grep -qi '^Content-Length' us.bin.h || fail "unknown-size sent a Content-Length"
bytes_of "$root/$big" 1000 1000 | cmp -s - us.bin || fail "unknown-size's range bytes are wrong"
[ "$(get us.whl "$base/files/$big")" = 200 ] || fail "unknown-size did not answer 200"
cmp -s us.whl "$root/$big" || fail "unknown-size's whole file differs"

# --- single-quote: the same links, attributes quoted with '
start_server single-quote
get sq.html "$base/simple/tensorflow/" >/dev/null
expect_contains sq.html "<a href='\.\./\.\./files/$small#sha256=$small_sha' data-requires-python='&gt;=3\.6, &lt;3\.7'>$small</a>"
! grep -q 'href="' sq.html || fail "single-quote mode left a double-quoted href"

# --- scheme-relative: links name the host and port without a scheme, in HTML and JSON;
# a path starting with // (such a link resolved as a path) is not found
start_server scheme-relative
port=$(cat "$work/port")
get sr.html "$base/simple/tensorflow-cpu/" >/dev/null
expect_contains sr.html "<a href=\"//127\.0\.0\.1:$port/files/$big#sha256=$big_sha\">$big</a>"
get sr.json -H "$accept_json" "$base/simple/tensorflow-cpu/" >/dev/null
json_check sr.json "d['files'][0]['url'] == '//127.0.0.1:$port/files/$big'"
[ "$(get sr.whl "http:$(sed -n 's/.*href="\([^#"]*\)#.*/\1/p' sr.html)")" = 200 ] || fail "the scheme-relative link does not lead to the file"
cmp -s sr.whl "$root/$big" || fail "the scheme-relative link's file differs"
[ "$(get bad.whl --path-as-is "$base//127.0.0.1:$port/files/$big")" = 404 ] || fail "a // path was served"

# --- --rate paces file answers (1 MB at 4 MB/s: a quarter of a second at least)
start_server normal --rate 4
seconds=$(curl -sS -o paced.whl -w '%{time_total}' "$base/files/$big")
cmp -s paced.whl "$root/$big" || fail "the paced file's bytes differ"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.24 else 1)" "$seconds" ||
  fail "1 MB at 4 MB/s took $seconds s"

stop_server
echo "index_server_selftest: ok"
