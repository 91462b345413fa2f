# opkit sdk fetch against a real package index on loopback holding the real
# wheels (and decoys): it picks the right file and fetches only the members
# the SDK keeps with range requests (the server's log counts the bytes), into
# an SDK byte-identical to the one the whole download gives; it falls back to
# the whole download when the server ignores ranges or says no sizes; a member
# that differs from the wheel's RECORD is refused; a cut connection is resumed
# (ranges and whole download alike); a corrupted whole download is rejected by
# the index's hash; two concurrent fetches download once. Then the store
# commands: info, remove, gc. A version prefix fetches the newest patch; an
# unknown version lists those there are; index pages with single-quoted hrefs
# and scheme-relative links (//host:port/path) are read as pip reads them; the
# missing-SDK hint is a command that works as given.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"   # a store of its own
unset OPKIT_INDEX_URL PIP_INDEX_URL

root="$work/index"
mkdir -p "$root"
ln -s "$(wheel_for 2.10.1)" "$(wheel_for 1.12.0)" "$root/"
# Decoys the choice must skip: other versions, pythons, platforms, the GPU package.
for f in tensorflow_cpu-2.10.1-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
         tensorflow_cpu-2.10.1-cp310-cp310-win_amd64.whl \
         tensorflow_cpu-2.10.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
         tensorflow_cpu-2.9.0-cp310-cp310-win_amd64.whl \
         tensorflow-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
         tensorflow-1.12.0-cp27-cp27mu-manylinux1_x86_64.whl; do
  echo decoy >"$root/$f"
done

servers=()
trap 'kill "${servers[@]}" 2>/dev/null || true' EXIT
start_index() { # <name> [--mode m]: sets url_<name>, log_<name>
  local name=$1
  shift
  rm -f "$work/port-$name"
  python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$root" --port-file "$work/port-$name" \
    --log "$work/log-$name" "$@" 2>"$work/server-$name.err" &
  servers+=($!)
  for _ in $(seq 100); do [ -s "$work/port-$name" ] && break; sleep 0.1; done
  [ -s "$work/port-$name" ] || { cat "$work/server-$name.err"; fail "index server $name did not start"; }
  eval "url_$name=http://127.0.0.1:$(cat "$work/port-$name")/simple/"
}
file_gets() { grep -c "^GET /files/$2" "$work/log-$1" || true; }
# file_bytes <name>: the body bytes the server sent for files, over all requests in its log
file_bytes() { awk '/^GET \/files\// { for (i = 1; i <= NF; i++) if ($i ~ /^sent=/) n += substr($i, 6) } END { print n + 0 }' "$work/log-$1"; }
wheel210=$(basename "$(wheel_for 2.10.1)")
size210=$(stat -L -c %s "$(wheel_for 2.10.1)")

# --- picks the right file (PEP 691 JSON), fetches only what the SDK keeps, keeps only the SDK subset
start_index plain
run_opkit 0 sdk fetch tensorflow==2.10.1 --index-url "$url_plain"
expect_contains "$work/out" '^tensorflow-2\.10\.1: fetched tensorflow_cpu-2\.10\.1-cp310-cp310-manylinux_2_17_x86_64\.manylinux2014_x86_64\.whl from http://127\.0\.0\.1:[0-9]+/simple/, downloaded [0-9.]+ MB of 214\.5 MB in [0-9]+ requests \(only what the SDK keeps\), kept 150\.6 MB$'
expect_contains "$work/log-plain" 'GET /simple/tensorflow-cpu/ .*format=json'
[ "$(grep '^GET /files/' "$work/log-plain" | grep -vc "^GET /files/$wheel210 range=bytes=[0-9]*-[0-9]* status=206 ")" -eq 0 ] ||
  fail "a request for other than a range of the chosen file"
requests=$(file_gets plain "$wheel210")
expect_contains "$work/out" " in $requests requests "
sent=$(file_bytes plain)
echo "range fetch: the server sent $sent of $size210 bytes in $requests requests"
[ "$((sent * 100))" -le "$((size210 * 25))" ] || fail "the range fetch sent $sent bytes, more than 25% of $size210"
[ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "the download was kept after the import"
cp -a "$OPKIT_HOME/sdks/tensorflow-2.10.1" "$work/sdk-ranges"

# --- a server that sends one byte a second: the deadline ends the fetch (exit 4, one line, the URL and the
# setting named, nothing kept); a transfer slower than net_min_speed is cut, retried, then refused the same way
start_index trickle --mode trickle
nothing_kept() {
  [ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "$1 kept a download: $(ls -A "$OPKIT_HOME/downloads")"
  [ ! -e "$OPKIT_HOME/sdks/tensorflow-1.12.0" ] || fail "$1 made an SDK"
  [ -z "$(find "$OPKIT_HOME" -name '.opkit-partial*')" ] || fail "$1 left staging behind"
}
started=$SECONDS
OPKIT_NET_DEADLINE=3 run_opkit 4 sdk fetch tensorflow==1.12.0 --index-url "$url_trickle"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: http://127\.0\.0\.1:[0-9]+/simple/tensorflow/: download stopped: not done within the setting net_deadline, 3 s$"
[ $((SECONDS - started)) -le 8 ] || fail "a 3 s deadline took $((SECONDS - started)) s"
nothing_kept "the deadline"
OPKIT_NET_MIN_SPEED=100 OPKIT_NET_SPEED_WINDOW=1 run_opkit 4 sdk fetch tensorflow==1.12.0 --index-url "$url_trickle"
expect_one_error_line
expect_contains "$work/err" "simple/tensorflow/: download failed: slower than the setting net_min_speed, 100 bytes/s over 1 s, in 4 attempts$"
nothing_kept "the minimum speed"
# With no index configured pip downloads, under the same deadline (its find-links page trickles too).
started=$SECONDS
PIP_NO_INDEX=1 PIP_FIND_LINKS="${url_trickle}tensorflow/" OPKIT_NET_DEADLINE=4 run_opkit 4 -q sdk fetch tensorflow==1.12.0
expect_one_error_line
expect_contains "$work/err" "^opkit: error: tensorflow==1\.12\.0: pip download stopped: not done within the setting net_deadline, 4 s$"
[ $((SECONDS - started)) -le 10 ] || fail "pip under a 4 s deadline took $((SECONDS - started)) s"
nothing_kept "pip past the deadline"
OPKIT_NET_DEADLINE=soon run_opkit 2 sdk fetch tensorflow==1.12.0 --index-url "$url_trickle"
expect_one_error_line
expect_contains "$work/err" "OPKIT_NET_DEADLINE: must be a positive number, got 'soon'"

# --- TF 1.12's cp36/manylinux1 wheel, from a PEP 503 HTML-only index, found through pip's configuration
start_index html --mode html-only
printf '[global]\nindex-url = %s\n' "$url_html" >"$work/pip.conf"
PIP_CONFIG_FILE="$work/pip.conf" run_opkit 0 sdk fetch tensorflow==1.12.0
expect_contains "$work/out" 'fetched tensorflow-1\.12\.0-cp36-cp36m-manylinux1_x86_64\.whl'
expect_contains "$work/log-html" 'GET /simple/tensorflow/ .*format=html'
run_opkit 0 sdk list --json
python3 -c "import json; s={x['id']: x for x in json.load(open('$work/out'))}; \
assert s['tensorflow-1.12.0']['cxx11_abi']==0 and s['tensorflow-2.10.1']['cxx11_abi']==1, s.keys()"

# --- info, remove, gc
run_opkit 0 sdk info 2.10 --json
python3 -c "import json; i=json.load(open('$work/out')); assert i['id']=='tensorflow-2.10.1' and i['size_bytes']>100e6, i"
run_opkit 0 sdk remove tensorflow-2.10.1
run_opkit 3 sdk info 2.10.1
expect_one_error_line
mkdir -p "$OPKIT_HOME/sdks/.opkit-partial.deadbeef" "$OPKIT_HOME/probes/tensorflow-9.9.9"
echo junk >"$OPKIT_HOME/sdks/.opkit-partial.deadbeef/x"
run_opkit 0 sdk gc
expect_contains "$work/out" 'removed .*/sdks/\.opkit-partial\.deadbeef$'
expect_contains "$work/out" 'removed .*/probes/tensorflow-9\.9\.9$'
[ ! -e "$OPKIT_HOME/sdks/.opkit-partial.deadbeef" ] || fail "gc left the staging folder"
run_opkit 0 sdk list
expect_contains "$work/out" '^tensorflow-1\.12\.0 '

# --- index_url from pip's own configuration, in four shapes: `opkit config get index_url`
# prints the index `sdk fetch` then reads (its -v log and that server's log say so), and pip
# itself, in the same environment, asks the same server. A HOME of the test's own: the
# user's pip configuration is neither read nor written. Where a wrong choice would lead
# stands a dead index (port 9), so a wrong choice fails the fetch.
dead=http://127.0.0.1:9/simple/
pip_home="$work/pip-home"
mkdir -p "$pip_home/.config/pip" "$work/pip-global" "$work/pip-xdg/pip"
pip_env=(-u XDG_CONFIG_HOME -u PIP_CONFIG_FILE -u PIP_NO_INDEX HOME="$pip_home" XDG_CONFIG_DIRS="$work/pip-global")
# pip_shape <n> [NAME=VALUE...]: the three checks, for the index url_shape<n>
pip_shape() {
  local n=$1 url_var=url_shape$1
  shift
  local url=${!url_var}
  env "${pip_env[@]}" "$@" "$OPKIT" config get index_url >"$work/out" 2>"$work/err" \
    || { cat "$work/err"; fail "shape $n: config get index_url failed"; }
  [ "$(cat "$work/out")" = "$url" ] || fail "shape $n: config get index_url printed $(cat "$work/out"), not $url"
  env "${pip_env[@]}" "$@" "$OPKIT" -v sdk fetch tensorflow==1.12 >"$work/out" 2>"$work/err" \
    || { cat "$work/err"; fail "shape $n: sdk fetch failed"; }
  expect_contains "$work/err" "index ${url//./\\.}: pip \("
  expect_contains "$work/out" '^tensorflow-1\.12\.0: already in the store'
  expect_contains "$work/log-shape$n" '^GET /simple/tensorflow/ '
  env "${pip_env[@]}" "$@" python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
    -d "$work/pip-dl" opkit-no-such-project >"$work/pip.out" 2>&1 || true
  expect_contains "$work/log-shape$n" '^GET /simple/opkit-no-such-project/ '
  expect_contains "$work/pip.out" "Looking in indexes: ${url//./\\.}"
}
for n in 1 2 3 4; do start_index "shape$n" --mode html-only; done
# 1: ~/.config/pip/pip.conf, [global] index-url
printf '# mine\n[global]\ntimeout = 60\nindex-url = %s\n' "$url_shape1" >"$pip_home/.config/pip/pip.conf"
pip_shape 1
env "${pip_env[@]}" "$OPKIT" config list >"$work/out"
expect_contains "$work/out" "^index_url +${url_shape1//./\\.} +pip \($pip_home/\.config/pip/pip\.conf:4 \[global\] index-url\)$"
# 2: [download] index_url (pip's spelling with '_') beats [global] in the same file
printf '[global]\nindex-url = %s\n[download]\nindex_url = %s\n' "$dead" "$url_shape2" >"$pip_home/.config/pip/pip.conf"
pip_shape 2
# 3: $XDG_CONFIG_HOME/pip/pip.conf (':' as delimiter) instead of ~/.config's
printf '[download]\nindex-url = %s\n' "$dead" >"$pip_home/.config/pip/pip.conf"
printf '[global]\nindex-url: %s\n' "$url_shape3" >"$work/pip-xdg/pip/pip.conf"
pip_shape 3 XDG_CONFIG_HOME="$work/pip-xdg"
# 4: $PIP_CONFIG_FILE, which stands for the user's files ([download] there is not read)
printf '[global]\nindex-url = %s\n' "$url_shape4" >"$work/pip-env.conf"
pip_shape 4 PIP_CONFIG_FILE="$work/pip-env.conf"
# $PIP_CONFIG_FILE=/dev/null: pip reads no file, nor does opkit: pip's default index, which pip
# itself reads then (its -v log says where it looks)
env "${pip_env[@]}" PIP_CONFIG_FILE=/dev/null "$OPKIT" config list >"$work/out" 2>"$work/err" \
  || fail "PIP_CONFIG_FILE=/dev/null: config list failed"
expect_contains "$work/out" '^index_url +https://pypi\.org/simple/ +pip \(its default index: no index-url in its configuration\)$'
# no-index on (pip reads only its find-links): unset (exit 1), so `sdk fetch` runs pip download
rc=0
env "${pip_env[@]}" PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=yes "$OPKIT" config get index_url >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 1 ] || fail "PIP_NO_INDEX=yes: config get index_url exited $rc, expected 1 (unset)"
expect_contains "$work/err" '^index_url: unset \(pip'"'"'s configuration turns on no-index'
printf '[download]\nno-index = on\n' >"$work/pip-noindex.conf"
rc=0
env "${pip_env[@]}" PIP_CONFIG_FILE="$work/pip-noindex.conf" "$OPKIT" config get index_url >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 1 ] || fail "[download] no-index = on: config get index_url exited $rc, expected 1 (unset)"
# a file pip refuses: one error line naming it
printf 'index-url = %s\n' "$dead" >"$pip_home/.config/pip/pip.conf"
rc=0
env "${pip_env[@]}" "$OPKIT" sdk fetch tensorflow==1.12 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] || fail "a pip.conf pip refuses: exit $rc, expected 2"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $pip_home/\.config/pip/pip\.conf:1: an option before any \[section\]$"

# --- a server that ignores Range (200), or whose answers say no size (no Content-Length, a 206's
# "bytes a-b/*"), gets the whole download, which gives the same SDK, byte for byte (sdk.json too:
# the same store, the same download path)
for mode in ignore-ranges:200 unknown-size:206; do
  name=whole_${mode%:*}
  name=${name//-/_}
  start_index "$name" --mode "${mode%:*}"
  url_of_name=url_$name
  run_opkit 0 sdk fetch tensorflow==2.10.1 --index-url "${!url_of_name}"
  expect_contains "$work/out" ', downloaded 214\.5 MB of 214\.5 MB in 2 requests \(the whole wheel: the server does not serve byte ranges\), kept 150\.6 MB$'
  expect_contains "$work/err" 'the server does not serve byte ranges; downloading the whole wheel'
  expect_contains "$work/log-$name" "^GET /files/$wheel210 range=bytes=-[0-9]+ status=${mode#*:} "
  expect_contains "$work/log-$name" "^GET /files/$wheel210 range=- status=200 sent=$size210\$"
  # Byte-identical but for the symbol index, which is derived from the framework
  # library and stamped with that file's local mtime (when it was written here).
  diff -r -x '*.idx' "$work/sdk-ranges" "$OPKIT_HOME/sdks/tensorflow-2.10.1" || fail "the whole download's SDK differs ($mode)"
  # The whole wheel stays for the release's venv (venv_kept_wheel); gc --downloads removes it.
  [ "$(ls -A "$OPKIT_HOME/downloads")" = "$wheel210" ] || fail "the whole wheel was not kept ($mode): $(ls -A "$OPKIT_HOME/downloads")"
  run_opkit 0 sdk gc --downloads
  expect_contains "$work/out" "^removed $OPKIT_HOME/downloads/$wheel210\$"
  [ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "sdk gc --downloads left $(ls -A "$OPKIT_HOME/downloads") ($mode)"
  run_opkit 0 sdk remove 2.10.1
done

# --- a header changed after the wheel was built (the index's sha256 made to match): RECORD refuses it,
# on the range path and on the whole download alike; nothing is kept
mkdir -p "$work/tampered"
python3 "$OPKIT_SOURCE_DIR/tests/integration/tamper_wheel.py" "$(wheel_for 2.10.1)" "$work/tampered/$wheel210" \
  tensorflow/include/tensorflow/core/framework/op.h
for mode in normal ignore-ranges; do
  name=tampered_${mode//-/_}
  root="$work/tampered" start_index "$name" --mode "$mode"
  url_of_name=url_$name
  run_opkit 1 -q sdk fetch tensorflow==2.10.1 --index-url "${!url_of_name}"
  expect_one_error_line
  expect_contains "$work/err" "$wheel210: tensorflow/include/tensorflow/core/framework/op\.h: sha256 differs from the wheel's RECORD"
  run_opkit 3 sdk info 2.10.1
  [ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "the tampered wheel was kept ($mode)"
  [ -z "$(ls -A "$OPKIT_HOME/sdks" | grep -v '^tensorflow-1')" ] || fail "the store kept something of the tampered wheel ($mode)"
done

# --- a connection cut mid-range is resumed where it stopped
start_index cut --mode cut-once
run_opkit 0 sdk fetch tensorflow==2.10.1 --index-url "$url_cut"
expect_contains "$work/out" 'only what the SDK keeps'
expect_contains "$work/log-cut" "^GET /files/$wheel210 range=bytes=-[0-9]+ status=206 .*cut"
expect_contains "$work/log-cut" "^GET /files/$wheel210 range=bytes=[0-9]+-$((size210 - 1)) status=206 "
diff -r -x '*.idx' "$work/sdk-ranges" "$OPKIT_HOME/sdks/tensorflow-2.10.1" || fail "the SDK differs after a cut"
run_opkit 0 sdk remove 2.10.1
# An interrupted earlier whole download left part of the file: the next fetch continues it,
# whole (here cut once more, and resumed again).
mkdir -p "$OPKIT_HOME/downloads"
head -c 50000000 "$(wheel_for 2.10.1)" >"$OPKIT_HOME/downloads/$wheel210.partial"
start_index cut2 --mode cut-once
run_opkit 0 sdk fetch tensorflow==2.10.1 --index-url "$url_cut2"
expect_contains "$work/out" 'downloaded 164\.5 MB of 214\.5 MB in 2 requests \(the whole wheel, resumed at 50\.0 MB, resumed after a cut\)'
expect_contains "$work/log-cut2" "^GET /files/$wheel210 range=bytes=50000000- status=206 .*cut"
expect_contains "$work/log-cut2" "^GET /files/$wheel210 range=bytes=[0-9]+- status=206 "
run_opkit 0 sdk remove 2.10.1
run_opkit 0 sdk gc --downloads # the whole wheel kept for a venv

# --- a corrupted whole download is rejected by the index's sha256; nothing is imported or kept
start_index corrupt --mode corrupt,ignore-ranges
run_opkit 1 -q sdk fetch tensorflow==2.10.1 --index-url "$url_corrupt"
expect_one_error_line
expect_contains "$work/err" 'sha256 mismatch: the index says [0-9a-f]{64}, the download is [0-9a-f]{64}; removed it'
run_opkit 3 sdk info 2.10.1
[ -z "$(ls -A "$OPKIT_HOME/downloads")" ] || fail "the corrupted download was kept"

# --- two concurrent fetches of the same SDK: both succeed, one download
start_index twice
"$OPKIT" sdk fetch tensorflow==2.10.1 --index-url "$url_twice" >"$work/a.out" 2>"$work/a.err" &
a=$!
"$OPKIT" sdk fetch tensorflow==2.10.1 --index-url "$url_twice" >"$work/b.out" 2>"$work/b.err" &
b=$!
wait $a || { cat "$work/a.err"; fail "first concurrent fetch failed"; }
wait $b || { cat "$work/b.err"; fail "second concurrent fetch failed"; }
cat "$work/a.out" "$work/b.out" >"$work/both"
[ "$(grep -c ': fetched ' "$work/both")" -eq 1 ] || fail "both concurrent fetches downloaded"
expect_contains "$work/both" " in $(file_gets twice tensorflow_cpu) requests "
expect_contains "$work/both" 'tensorflow-2\.10\.1: already in the store'
expect_contains "$work/both" 'tensorflow-2\.10\.1: fetched '

# --- no index configured anywhere: opkit runs pip download with the right tags;
# pip's own configuration (here: find-links to the same folder, no index) decides where.
run_opkit 0 sdk remove 2.10.1
# A prefix goes to pip as ==2.10.*: it takes the newest, 2.10.1 (2.10.0 is a decoy).
PIP_NO_INDEX=1 PIP_FIND_LINKS="$root" run_opkit 0 sdk fetch tensorflow==2.10
expect_contains "$work/out" '^tensorflow-2\.10\.1: fetched tensorflow_cpu-2\.10\.1-cp310-cp310-manylinux_2_17_x86_64\.manylinux2014_x86_64\.whl from pip download'
expect_contains "$work/err" 'pip download tensorflow-cpu==2\.10\.\* for cp310'
# The wheel is kept for the venv (venv_kept_wheel); pip's folder is not left behind, empty or not.
[ "$(ls -A "$OPKIT_HOME/downloads")" = "$wheel210" ] || fail "pip download left $(ls -A "$OPKIT_HOME/downloads")"

# --- --variant gpu looks in the GPU-enabled project (`tensorflow` for 2.10); here that
# file is a decoy, so the import refuses it: proof of which file was chosen.
run_opkit 2 -q sdk fetch tensorflow==2.10.1 --variant gpu --index-url "$url_plain"
expect_one_error_line
expect_contains "$work/err" 'tensorflow-2\.10\.1-cp310-cp310-manylinux_2_17_x86_64\.manylinux2014_x86_64\.whl: (cannot open archive|damaged archive)'
expect_contains "$work/log-plain" 'GET /simple/tensorflow/ '
[ -z "$(ls -A "$OPKIT_HOME/downloads" | grep -vx "$wheel210")" ] || fail "the refused wheel was kept"

# --- bad requests: one line each
run_opkit 2 sdk fetch tensorflow>=2.10 --index-url "$url_plain"
expect_one_error_line
run_opkit 2 sdk fetch numpy==1.0.0 --index-url "$url_plain"
# a version the index does not have: the error lists those it has (exit 2)
for wanted in 2.99 2.10.2; do
  run_opkit 2 sdk fetch "tensorflow==$wanted" --index-url "$url_plain"
  expect_one_error_line
  expect_contains "$work/err" "^opkit: error: tensorflow==${wanted//./\\.}: no such version on http://127\.0\.0\.1:[0-9]+/simple/ \(versions: 2\.9\.0, 2\.10\.0, 2\.10\.1\)\$"
done
# a version the index has, but with no Linux x86-64 CPython wheel (exit 3)
run_opkit 3 sdk fetch tensorflow==2.9 --index-url "$url_plain"
expect_one_error_line
expect_contains "$work/err" 'tensorflow-cpu 2\.9\.0: no Linux x86-64 CPython wheel on http://127\.0\.0\.1:[0-9]+/simple/'

# --- a version prefix, as `build --tf 2.10` takes it: the newest 2.10 patch on the index
# (2.10.1; the 2.10.0 there is a decoy that would not import), here from a PEP 503
# page whose attributes are single-quoted (href='...')
run_opkit 0 sdk remove 2.10.1
# On a terminal (script(1)) the download is on the status line, with its bytes,
# speed and time left in MB; the server is paced (40 MB/s) so that it is drawn at all.
start_index quoted --mode html-only,single-quote --rate 40
script -qec "$(printf '%q ' "$OPKIT" sdk fetch tensorflow==2.10 --index-url "$url_quoted")" /dev/null \
  </dev/null >"$work/tty" 2>&1 || { cat "$work/tty"; fail "sdk fetch tensorflow==2.10 failed"; }
expect_contains "$work/tty" "tensorflow-2\.10\.1: fetched ${wheel210//./\\.} from http://127\.0\.0\.1:[0-9]+/simple/, .*only what the SDK keeps"
expect_contains "$work/tty" 'downloading tensorflow_cpu-2\.10\.1 \([0-9]+:[0-9]{2}\): [0-9]+% of [0-9.]+ MB, [0-9.]+ MB/s'
expect_contains "$work/log-quoted" '^GET /simple/tensorflow-cpu/ .*format=html'
expect_contains "$work/log-quoted" "^GET /files/$wheel210 range=bytes=[0-9-]+ status=206 "
! grep -q 'tensorflow_cpu-2\.10\.0' "$work/log-quoted" || fail "the prefix fetched 2.10.0, not the newest 2.10 patch"
run_opkit 0 sdk fetch tensorflow==2.10 --index-url "$url_quoted"
expect_contains "$work/out" '^tensorflow-2\.10\.1: already in the store'

# --- an SDK the store lacks: build (and check, test) names the exact `opkit sdk fetch`
# command, and no script of opkit's sources; that command, run as given (the index
# from $OPKIT_INDEX_URL), fetches it from a page whose links are scheme-relative
# (//127.0.0.1:<port>/files/...: resolved as a path they would 404)
run_opkit 0 sdk remove 1.12.0
run_opkit 0 new hint_op
(cd hint_op && run_opkit 3 build --tf 1.12)
expect_one_error_line
expect_contains "$work/err" '^opkit: error: tensorflow 1\.12: no SDK imported in .* \(fetch it with `opkit sdk fetch tensorflow==1\.12`'
! grep -q 'fetch-wheels' "$work/err" || fail "the hint names a script shipped only with opkit's sources"
hint=$(grep -o '`opkit sdk fetch [^`]*`' "$work/err" | tr -d '`')
run_opkit 3 sdk info tensorflow-2.10.1-cuda
expect_one_error_line
expect_contains "$work/err" '\(fetch it with `opkit sdk fetch tensorflow==2\.10\.1 --variant gpu`'
start_index schemeless --mode html-only,scheme-relative
read -ra hint_args <<<"${hint#opkit }"
OPKIT_INDEX_URL="$url_schemeless" run_opkit 0 "${hint_args[@]}"
expect_contains "$work/out" '^tensorflow-1\.12\.0: fetched tensorflow-1\.12\.0-cp36-cp36m-manylinux1_x86_64\.whl from '
expect_contains "$work/log-schemeless" '^GET /files/tensorflow-1\.12\.0-cp36-cp36m-manylinux1_x86_64\.whl range=bytes=[0-9-]+ status=206 '
! grep -q ' status=404' "$work/log-schemeless" || fail "a scheme-relative link was resolved as a path"
! grep -q ' left' "$work/err" || fail "a progress line was drawn into a file"
(cd hint_op && run_opkit 0 sdk info 1.12)

# --- no index configured anywhere (pip reads no file): pip's default index, PyPI itself, as pip
# would read it: a version PyPI does not have is exit 2 at once, listing the real ones
started=$SECONDS
PIP_CONFIG_FILE=/dev/null run_opkit 2 sdk fetch tensorflow==2.99.0
expect_one_error_line
expect_contains "$work/err" '^opkit: error: tensorflow==2\.99\.0: no such version on https://pypi\.org/simple/ \(versions: .*2\.21\.0'
[ $((SECONDS - started)) -lt 10 ] || fail "a version PyPI lacks took $((SECONDS - started)) s"

# --- offline (a network namespace of its own: no route, no name resolves): a prefix of which the
# store has a release takes it at once, an exact one the store has never asks, a missing one
# is one line naming the network (exit 4)
offline() { unshare --net env PIP_CONFIG_FILE=/dev/null "$@"; }
offline true || fail "cannot make a network namespace (unshare --net; the tests run as root)"
started=$SECONDS
rc=0
offline "$OPKIT" sdk fetch tensorflow==2.10 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/err"; fail "offline, a prefix of an imported SDK: exit $rc"; }
expect_contains "$work/out" '^tensorflow-2\.10\.1: in the store \([0-9.]+ MB\); the index could not be reached to ask for a newer one$'
expect_contains "$work/err" 'the network does not reach it'
[ $((SECONDS - started)) -lt 5 ] || fail "offline, the imported prefix took $((SECONDS - started)) s"
offline "$OPKIT" sdk fetch tensorflow==2.10 --json >"$work/out" 2>/dev/null || fail "offline --json failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['offline'] and d['sdk']['id']=='tensorflow-2.10.1', d" "$work/out"
offline "$OPKIT" sdk fetch tensorflow==2.10.1 >"$work/out" 2>"$work/err" || fail "offline, an exact imported SDK failed"
expect_contains "$work/out" '^tensorflow-2\.10\.1: already in the store'
rc=0
offline "$OPKIT" sdk fetch tensorflow==2.11 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 4 ] || { cat "$work/err"; fail "offline, a release the store lacks: exit $rc, expected 4"; }
expect_one_error_line
expect_contains "$work/err" '^opkit: error: https://pypi\.org/simple/tensorflow-cpu/: download failed: the network does not reach it: '
