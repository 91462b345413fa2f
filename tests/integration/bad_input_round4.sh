# Reliability, fourth round (docs/reliability.md, "Fourth round"): nothing a
# repository or a build folder holds makes opkit write outside the project,
# keep a secret, or call a stale library up to date; hostile build
# descriptions and control files are one line, exit 2, at once.
source "$(dirname "$0")/common.sh"
command -v git >/dev/null || fail "git is missing: scripts/setup.sh installs it"

# peak <max-MB> <max-seconds> <expected-exit> <command...>: runs it with stdout
# in $work/out and stderr in $work/err, and fails unless it exits as expected
# within the time (the child's CPU time, user and system: what the command
# costs, whatever else the machine runs) and the peak memory (its maximum
# resident set) given.
peak() {
  OUT="$work/out" ERR="$work/err" python3 - "$@" <<'PY' || fail "opkit ${*:4}: see above"
import os, resource, subprocess, sys, time
max_mb, max_s, rc = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
start = time.monotonic()
with open(os.environ["OUT"], "wb") as out, open(os.environ["ERR"], "wb") as err:
    got = subprocess.run(sys.argv[4:], stdout=out, stderr=err).returncode
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
seconds, mb = usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
print(f"{' '.join(sys.argv[4:])[:200]}: exit {got}, {seconds:.2f} s CPU ({wall:.2f} s wall), {mb:.0f} MB",
      file=sys.stderr)
if got != rc or seconds > max_s or mb > max_mb:
    sys.stderr.write(open(os.environ["ERR"], errors="replace").read()[:4000])
    sys.exit(f"expected exit {rc} within {max_s} s and {max_mb} MB")
PY
}

outside="$work/outside"
mkdir -p "$outside/records"
printf 'keep me\n' >"$outside/target"
for i in $(seq 1 30); do printf '{"n": %d}\n' "$i" >"$outside/records/r$i.json"; done
snapshot() { (cd "$outside" && find . -type f -exec sha256sum {} + | sort && find . | sort); }
snapshot >"$work/outside.before"
outside_unchanged() {
  snapshot | cmp -s - "$work/outside.before" || { diff <(snapshot) "$work/outside.before" >&2; fail "$1: a file outside the project changed"; }
  [ ! -e "$outside/nothere" ] || fail "$1: a dangling link's target was made outside the project"
}

# --- a fresh clone of a repository that commits build/.opkit-build.lock as a link
run_opkit 0 new round4 --tf 1.12
(
  cd round4 && git init -q && mkdir -p build && ln -s "$outside/target" build/.opkit-build.lock &&
    git add -A && git add -f build/.opkit-build.lock && git -c user.name=t -c user.email=t@example.com commit -qm planted
) || fail "could not make the hostile repository"
git clone -q round4 clone || fail "git clone failed"
[ -L clone/build/.opkit-build.lock ] || fail "git did not keep the committed link"
cd clone
for args in "build --tf 1.12" "-q test --tf 1.12" "-q package wheel"; do
  # shellcheck disable=SC2086
  run_opkit 2 $args
  expect_one_error_line
  expect_contains "$work/err" "build/\.opkit-build\.lock: a symbolic link \(to $outside/target\) where opkit keeps its build folder's lock: opkit does not follow it"
  outside_unchanged "opkit $args"
done
# clean removes the link as a link, and nothing it leads to
run_opkit 0 clean
[ ! -e build ] && [ ! -L build/.opkit-build.lock ] || fail "clean left the planted link"
outside_unchanged "opkit clean"

# --- a dangling link: the outside file is never made
mkdir -p build && ln -s "$outside/nothere" build/.opkit-build.lock
run_opkit 2 build --tf 1.12
expect_one_error_line
outside_unchanged "a dangling lock link"
rm build/.opkit-build.lock

# --- links anywhere else in build/: the kept no-ops, a library, ninja's log, the test vectors
run_opkit 0 build --tf 1.12
[ -f build/tf-1.12.0/libround4.so ] || fail "no library built"
for planted in build/.opkit-noop:"$outside/records" build/tf-1.12.0/opkit-vectors:"$outside/records" \
  build/.ninja_log:"$outside/nothere" build/tf-1.12.0/build.log:"$outside/target"; do
  link=${planted%%:*} to=${planted#*:}
  rm -rf "$link"
  ln -s "$to" "$link"
  for args in "build --tf 1.12" "-q test --tf 1.12" "-q test --python --tf 1.12"; do
    # shellcheck disable=SC2086
    run_opkit 2 $args
    expect_one_error_line
    expect_contains "$work/err" "${link//./\\.}: a symbolic link \(to ${to//./\\.}\) where opkit keeps its"
    outside_unchanged "opkit $args with $link planted"
  done
  rm "$link"
done
[ "$(find "$outside/records" -name '*.json' | wc -l)" -eq 30 ] || fail "records outside the project were pruned"

# --- the kept no-ops: only opkit's own records are pruned, never another *.json
run_opkit 0 build --tf 1.12 # ninja's log was a link: this build relinks
mkdir -p build/.opkit-noop
for i in $(seq 1 20); do printf '{}\n' >"build/.opkit-noop/user-file-$i.json"; done
sleep 1.1 # past the racily-clean second: each no-op below is kept
for i in $(seq 1 20); do
  OPKIT_ROUND4_CALL=$i run_opkit 0 build --tf 1.12 # another environment: another record each
done
[ "$(find build/.opkit-noop -name 'user-file-*.json' | wc -l)" -eq 20 ] || fail "a file opkit did not make was pruned"
records=$(find build/.opkit-noop -regextype posix-extended -regex '.*/[0-9a-f]{16}\.json' | wc -l)
[ "$records" -eq 16 ] || fail "the build folder keeps $records records of 20 calls, not its 16 newest"

# --- no secret is stored: a build (and its kept no-op) with secrets in the environment.
# A ninja that counts its calls comes first on PATH: a replayed no-op runs none.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "$*" >>"%s/ninja-calls"\nexec /usr/bin/ninja "$@"\n' "$work" >"$work/bin/ninja"
chmod +x "$work/bin/ninja"
export PATH="$work/bin:$PATH"
: >"$work/ninja-calls"
ninja_calls() { wc -l <"$work/ninja-calls"; }
cd "$work"
run_opkit 0 new secrets --tf 1.12
cd secrets
secret_env=(env AWS_SECRET_ACCESS_KEY=awsR4secretKEY GITHUB_TOKEN=ghpR4secretTOKEN
  OPKIT_INDEX_URL='https://me:idxR4secretPASS@127.0.0.1:9/simple?token=idxR4secretQUERY'
  OPKIT_CACHE_REMOTE='redis://:redisR4secretPASS@127.0.0.1:9')
"${secret_env[@]}" "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; fail "the build with secrets failed"; }
sleep 1.1 # past the racily-clean second: the next no-op is kept
for _ in 1 2; do "${secret_env[@]}" "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" || fail "the no-op with secrets failed"; done
ls build/.opkit-noop/*.json >/dev/null 2>&1 || fail "no no-op was kept (the search below would prove nothing)"
if grep -rlE 'R4secret' . "$work/out" "$work/err"; then fail "a secret was stored in the project (files above)"; fi

# --- a kept record is checked: damaged, emptied, oversized or escaping text is never replayed as is
record=$(ls build/.opkit-noop/*.json | head -n 1)
python3 - "$record" <<'PY' || fail "could not rewrite the record"
import hashlib, json, sys
path = sys.argv[1]
head, body = open(path, "rb").read().split(b"\n", 1)
record = json.loads(body)
record["printed"] = "tf-1.12.0 \x1b]0;owned\x07 up to date\n"
body = (json.dumps(record, indent=1) + "\n").encode()
open(path, "wb").write(b"opkit.noop/2 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
PY
calls=$(ninja_calls)
"${secret_env[@]}" "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" || fail "the replayed no-op failed"
[ "$(ninja_calls)" -eq "$calls" ] || fail "the rewritten record (checksum made anew) was not replayed"
if LC_ALL=C grep -q $'\x1b' "$work/out"; then fail "a record's escape sequence reached the terminal raw"; fi
expect_contains "$work/out" 'tf-1\.12\.0 \\x1b\]0;owned\\x07 up to date'
# emptied stamps, with the checksum left as it was: refused (a full build says "up to date" from ninja)
python3 - "$record" <<'PY'
import json, sys
path = sys.argv[1]
head, body = open(path, "rb").read().split(b"\n", 1)
record = json.loads(body)
record["stamps"] = []
open(path, "wb").write(head + b"\n" + (json.dumps(record, indent=1) + "\n").encode())
PY
calls=$(ninja_calls)
"${secret_env[@]}" "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err" || fail "the build after a damaged record failed"
[ "$(ninja_calls)" -gt "$calls" ] || fail "a record whose checksum does not hold was replayed"
expect_contains "$work/out" '^tf-1\.12\.0 +up to date'
# a 300 MB record is refused unread
sleep 1.1
"${secret_env[@]}" "$OPKIT" build --tf 1.12 >/dev/null 2>&1 # kept again
truncate -s 300M "$record"
calls=$(ninja_calls)
peak 200 60 0 "${secret_env[@]}" "$OPKIT" build --tf 1.12
[ "$(ninja_calls)" -gt "$calls" ] || fail "a 300 MB record was replayed"
expect_contains "$work/out" '^tf-1\.12\.0 +up to date'
export PATH="${PATH#"$work/bin:"}"

# --- hostile build descriptions: a list doubled 200 times (BUILD, setup.py), a glob of 100 000 files
python3 - "$work/trees" <<'PY'
import os, sys
root = sys.argv[1]
op = '#include "tensorflow/core/framework/op.h"\nREGISTER_OP("ZeroOut").Input("x: int32").Output("y: int32");\n'
for tree in ("bazel", "setup", "glob"):
    os.makedirs(os.path.join(root, tree, "ops"))
    open(os.path.join(root, tree, "ops", "zero_op.cc"), "w").write(op)
doubled = "".join("A = A + A\n" for _ in range(200))
open(os.path.join(root, "bazel", "ops", "BUILD"), "w").write(
    'A = ["zero_op.cc"]\n' + doubled + 'cc_binary(name = "zero_op.so", srcs = A, linkshared = 1)\n')
open(os.path.join(root, "setup", "setup.py"), "w").write(
    "from setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension\nA = ['ops/zero_op.cc']\n"
    + doubled + "setup(name='x', ext_modules=[CppExtension('x', A)])\n")
many = os.path.join(root, "glob", "ops", "many")
os.makedirs(many)
for i in range(100000):
    open(os.path.join(many, f"f{i}.cc"), "w").write(f"int f{i}() {{ return {i}; }}\n")
open(os.path.join(root, "glob", "ops", "BUILD"), "w").write(
    'cc_binary(\n    name = "zero_op.so",\n    srcs = ["zero_op.cc"] + glob(["**/*.cc"]),\n    linkshared = 1,\n)\n')
PY
peak 200 5 2 "$OPKIT" init "$work/trees/bazel"
expect_one_error_line
expect_contains "$work/err" "ops/BUILD:[0-9]+: the lists here expand to more than 200000 values"
peak 200 5 2 "$OPKIT" init "$work/trees/setup"
expect_one_error_line
expect_contains "$work/err" "setup\.py:[0-9]+: the lists here expand to more than 200000 values"
peak 200 5 2 "$OPKIT" init "$work/trees/glob"
expect_one_error_line
expect_contains "$work/err" "ops/BUILD:3: a library of more than 10000 sources"
for tree in bazel setup glob; do
  [ ! -e "$work/trees/$tree/opkit.yaml" ] || fail "init wrote opkit.yaml for the refused $tree tree"
done
rm -rf "$work/trees"

# --- opkit.lock as a FIFO, as a folder: one line, exit 2, at once
cd "$work/secrets"
mkfifo opkit.lock
peak 200 10 2 "$OPKIT" test --tf 1.12
expect_one_error_line
expect_contains "$work/err" "opkit\.lock: not a regular file \(a FIFO, socket or device\)"
rm opkit.lock && mkdir opkit.lock
peak 200 10 2 "$OPKIT" test --tf 1.12
expect_one_error_line
expect_contains "$work/err" "opkit\.lock: a folder, not a file"
rmdir opkit.lock

# --- pip.conf: 100 000 keys read at once; a 5 MB index-url with a NUL: one clipped, escaped line with its cause
mkdir -p "$work/pip"
python3 -c "
print('[global]')
for i in range(100000): print(f'key{i} = value{i}')
print('index-url = http://127.0.0.1:9/simple/')" >"$work/pip/big.conf"
PIP_CONFIG_FILE="$work/pip/big.conf" peak 200 1 0 "$OPKIT" config get index_url
expect_contains "$work/out" '^http://127\.0\.0\.1:9/simple/$'
python3 -c "
import sys
sys.stdout.buffer.write(b'[global]\nindex-url = ftp://me:pw@host/' + b'a' * 5000000 + b'\x00b\n')" >"$work/pip/huge.conf"
PIP_CONFIG_FILE="$work/pip/huge.conf" peak 200 10 2 "$OPKIT" sdk fetch tensorflow==1.12.3
expect_one_error_line
[ "$(wc -c <"$work/err")" -lt 4200 ] || fail "the error line is $(wc -c <"$work/err") bytes"
expect_contains "$work/err" "unsupported URL scheme 'ftp'"
[ "$(tr -dc '\000' <"$work/err" | wc -c)" -eq 0 ] || fail "a NUL reached the terminal"
python3 -c "
import sys
sys.stdout.buffer.write(b'[global]\\nindex-url = ftp://host/a\\x00b\\n')" >"$work/pip/nul.conf"
PIP_CONFIG_FILE="$work/pip/nul.conf" run_opkit 2 sdk fetch tensorflow==1.12.3
expect_one_error_line
expect_contains "$work/err" "ftp://host/a\\\\x00b/tensorflow/: unsupported URL scheme 'ftp'"

# --- what opkit passes through (pip's own lines) and what a server echoes are masked
cat >"$work/echo_server.py" <<'PY'
import http.server, sys
class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("<html>no such page: " + self.path + "</html>").encode()
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Echo)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/echo_server.py" >"$work/echo.port" &
echo_pid=$!
trap 'kill $echo_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$work/echo.port" ] && break; sleep 0.1; done
port=$(cat "$work/echo.port")
run_opkit 1 -v sdk fetch tensorflow==1.12.3 --index-url "http://127.0.0.1:$port/simple?token=echoR4secretTOKEN"
if grep -q 'echoR4secretTOKEN' "$work/err" "$work/out"; then cat "$work/err" >&2; fail "a server's echo of the token was shown"; fi
expect_contains "$work/err" 'token=\*\*\*\*'
# pip's "Looking in indexes: …?token=…" line, passed through while a venv is made
OPKIT_VENVS="$work/venvs" PIP_INDEX_URL="http://127.0.0.1:$port/simple?token=pipR4secretTOKEN" PIP_RETRIES=0 \
  PIP_TIMEOUT=2 run_opkit 3 test --python --tf 1.12
if grep -q 'pipR4secretTOKEN' "$work/err" "$work/out"; then cat "$work/err" >&2; fail "pip's line with the token was shown"; fi
expect_contains "$work/err" 'token=\*\*\*\*'

# --- opkit clean looping while opkit test runs: the test passes or waits, never a load failure it caused
cd "$work/round4"
rm -rf build
run_opkit 0 build --tf 1.12
( while :; do "$OPKIT" clean >/dev/null 2>&1; sleep 0.05; done ) &
cleaner=$!
for round in 1 2 3; do
  rc=0
  "$OPKIT" test --tf 1.12 >"$work/out" 2>"$work/err" || rc=$?
  if [ "$rc" -ne 0 ] || grep -q 'LOAD FAILED' "$work/out" "$work/err"; then
    kill "$cleaner"
    cat "$work/out" "$work/err" >&2
    fail "round $round: opkit test failed (exit $rc) while opkit clean looped"
  fi
done
kill "$cleaner"
wait "$cleaner" 2>/dev/null || true

# --- dist/ committed as a link: packages are never written through it
cd "$work/round4"
ln -s "$outside/records" dist
for args in "package wheel" "package tf-serving" "package easyrec --version 0.7.1"; do
  # shellcheck disable=SC2086
  run_opkit 2 -q $args
  expect_one_error_line
  expect_contains "$work/err" "round4/dist: a symbolic link \(to ${outside//./\\.}/records\) where opkit keeps its packages"
  outside_unchanged "opkit $args with dist/ a link"
done
rm dist

# --- the smaller items
mkdir -p "$work/pkg" && printf 'library\n' >"$work/lib.so"
ln -s "$work/lib.so" "$work/pkg/libx.so"
sum=$(sha256sum "$work/lib.so" | cut -d' ' -f1)
printf '{"files": [{"path": "libx.so", "size": 8, "sha256": "%s"}]}\n' "$sum" >"$work/pkg/opkit-manifest.json"
run_opkit 2 package verify "$work/pkg"
expect_one_error_line
expect_contains "$work/err" "member 'libx\.so': a link or a device, which no opkit package holds"
OPKIT_NET_DEADLINE=99999999999999999999 run_opkit 2 config get net_deadline
expect_one_error_line
expect_contains "$work/err" "must be at most 604800"
cd "$work"
run_opkit 0 new torchy --template torch-op
cd torchy
run_opkit 2 build --torch '2.5.1,,,'
expect_one_error_line
expect_contains "$work/err" "--torch '2\.5\.1,,,': an empty version"
cd /proc
run_opkit 4 new inproc
expect_one_error_line
if grep -q 'opkit-partial' "$work/err"; then fail "an error named opkit's staging folder: $(cat "$work/err")"; fi
expect_contains "$work/err" '^opkit: error: /proc: cannot create a folder in it'
echo "round 4: every case held"
