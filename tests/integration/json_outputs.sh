# Every command that reports prints, with --json, one JSON value on stdout
# valid against its schema in schemas/ (on success, and on failure where the
# command has a failure report); progress goes to stderr. Also: `opkit test
# --python --json` keeps pip's lines off stdout on a terminal, and `sdk add`
# reports the import's progress unless -q.
source "$(dirname "$0")/common.sh"
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY OPKIT_INDEX_URL PIP_INDEX_URL

# json <rc> <schema> <args...>: runs opkit and validates its stdout (which must hold only JSON).
json() {
  local rc=$1 schema=$2
  shift 2
  run_opkit "$rc" "$@"
  expect_json_schema "$schema" "$work/out"
}
field() { python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if not isinstance(v, str) else v)' "$work/out" "$1"; }

# --- the shared store: list, info
json 0 opkit.sdk-list-1 sdk list --json
json 0 opkit.sdk-1 sdk info 1.12 --json
[ "$(field size_bytes)" -gt 0 ] || fail "sdk info --json without size_bytes"

# --- a store of its own: fetch (from a local index), add, remove, gc
shared_home=$OPKIT_HOME
export OPKIT_HOME="$work/home"
mkdir -p "$work/index"
ln -s "$(wheel_for 1.12.0)" "$work/index/"
python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$work/index" --port-file "$work/port" \
  --log "$work/index.log" 2>"$work/index.err" &
server=$!
trap 'kill $server ${put_server:-} 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || fail "index server did not start: $(cat "$work/index.err")"
json 0 opkit.sdk-fetch-1 sdk fetch tensorflow==1.12.0 --index-url "http://127.0.0.1:$(cat "$work/port")/simple/" --json
[ "$(field already_present)" = false ] && [ "$(field sdk.id)" = tensorflow-1.12.0 ] || fail "fetch --json: $(cat "$work/out")"
json 0 opkit.sdk-fetch-1 sdk fetch tensorflow==1.12.0 --index-url "http://127.0.0.1:$(cat "$work/port")/simple/" --json
[ "$(field already_present)" = true ] || fail "a second fetch did not find the SDK present"
# sdk add: progress on stderr (a line at each quarter when stderr is not a terminal), JSON on stdout.
json 0 opkit.sdk-1 sdk add "$(wheel_for 1.12.0)" --json
expect_contains "$work/err" '^importing: [0-9]+% \([0-9]+ of [0-9]+ entries, [0-9.]+ of [0-9.]+ MB\), kept [0-9.]+ MB$'
# -q: nothing on stderr at all.
json 0 opkit.sdk-1 -q sdk add "$(wheel_for 1.12.0)" --json
[ ! -s "$work/err" ] || fail "opkit -q sdk add wrote to stderr: $(cat "$work/err")"
json 0 opkit.sdk-remove-1 sdk remove 1.12 --json
[ "$(field removed)" = tensorflow-1.12.0 ] || fail "sdk remove --json: $(cat "$work/out")"
run_opkit 3 sdk remove 1.12 --json
expect_one_error_line
expect_json_failure opkit.sdk-remove-1 3
# A version the index does not have: the failure document, exit 2.
run_opkit 2 sdk fetch tensorflow==1.13.1 --index-url "http://127.0.0.1:$(cat "$work/port")/simple/" --json
expect_json_failure opkit.sdk-fetch-1 2
json 0 opkit.sdk-gc-1 sdk gc --json
export OPKIT_HOME=$shared_home

# --- a project: test (building first, its output on stderr), check, test --python
run_opkit 0 new json_op --tf 1.12
cd json_op
json 0 opkit.test-1 test --json
expect_contains "$work/err" 'building tensorflow-1\.12\.0 first'
[ "$(field ok)" = true ] || fail "test --json not ok"
lib=build/tf-1.12.0/libjson_op.so
json 0 opkit.check-1 check "$lib" --tf 1.12 --json
json 1 opkit.check-1 check "$lib" --tf 2.10.1 --json
[ "$(field verdict)" = fails ] || fail "check against 2.10.1 did not fail"
json 1 opkit.check-1 check "$lib" "$lib" --tf 2.10.1 --json
json 0 opkit.test-python-1 test --python --json
[ "$(field ok)" = true ] || fail "test --python --json not ok"
cp opkit.yaml "$work/opkit.yaml.bak"
sed -i 's/outputs: {zeroed: \[1.5, 0.0, 0.0\]}/outputs: {zeroed: [1.5, 9.0, 0.0]}/' opkit.yaml
json 1 opkit.test-python-1 test --python --json
[ "$(field ok)" = false ] || fail "a wrong vector passed"
sed -i 's/      constraints: {T: \[int32, float\]}/      constraints: {T: [int32, float, double]}/' opkit.yaml
json 1 opkit.test-1 test --json
[ "$(field ok)" = false ] || fail "a mismatch passed"
cp "$work/opkit.yaml.bak" opkit.yaml
# Failures before any report: stdout still ends with the command's failure document.
run_opkit 3 build --tf 9.9 --json
expect_json_failure opkit.build-1 3
cp src/json_op_kernels.cc "$work/kernels.bak"
echo 'this is not C++' >>src/json_op_kernels.cc
run_opkit 1 test --json
expect_json_failure opkit.test-1 1
run_opkit 1 test --python --json
expect_json_failure opkit.test-python-1 1
cp "$work/kernels.bak" src/json_op_kernels.cc

# --- packages, their manifests, verify
json 0 opkit.package-wheel-1 package wheel --json
wheel=$(field file)
[ -f "$wheel" ] && [ "$(field sha256)" = "$(sha256sum "$wheel" | cut -d' ' -f1)" ] || fail "wheel --json: $(cat "$work/out")"
json 0 opkit.package-wheel-1 package wheel --dry-run -o dry --json
[ "$(field written)" = false ] && [ "$(field sha256)" = null ] && [ ! -e dry ] || fail "--dry-run --json wrote"
json 0 opkit.package-easyrec-1 package easyrec --version j1 --json
tarball=$(field file)
json 0 opkit.package-verify-1 package verify "$wheel" --json
python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
sys.stdout.write(z.read([n for n in z.namelist() if n.endswith("opkit-manifest.json")][0]).decode())' "$wheel" >"$work/manifest.json"
expect_json_schema opkit.manifest-1 "$work/manifest.json"
tar xzf "$tarball" -O opkit-manifest.json >"$work/manifest.json"
expect_json_schema opkit.manifest-1 "$work/manifest.json"
mkdir -p "$work/t" && tar xzf "$tarball" -C "$work/t" && echo tampered >>"$work/t/opkit-manifest.json.extra"
json 1 opkit.package-verify-1 package verify "$work/t" --json
[ "$(field verified)" = false ] || fail "a tampered package verified"
json 0 opkit.package-tf-serving-1 package tf-serving --json
mkdir -p "$work/export"
printf 'saved_model_schema_version: 1\nmeta_graphs {\n}\n' >"$work/export/saved_model.pbtxt"
json 0 opkit.package-saved-model-1 package saved-model "$work/export" --json
expect_json_schema opkit.manifest-1 "$work/export/assets/opkit-manifest.json"

# --- publish, to a local PUT server
cat >"$work/put_server.py" <<'PY'
import http.server, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(403 if self.path.startswith("/forbidden") else 201)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
open(sys.argv[1], "w").write(str(server.server_port))
server.serve_forever()
PY
python3 "$work/put_server.py" "$work/put-port" &
put_server=$!
for _ in $(seq 100); do [ -s "$work/put-port" ] && break; sleep 0.1; done
put="http://127.0.0.1:$(cat "$work/put-port")"
json 0 opkit.publish-1 publish "$wheel" "$put/ok/$(basename "$wheel")" --json
[ "$(field status)" = 201 ] && [ "$(field attempts)" = 1 ] || fail "publish --json: $(cat "$work/out")"
run_opkit 1 publish "$wheel" "$put/forbidden/x.whl" --json
expect_one_error_line
expect_json_failure opkit.publish-1 1

# --- test --python --json on a terminal while the venv is made: pip's lines go to
# stderr, never into stdout's JSON. A stand-in Python 3.6 whose pip says a line and fails.
mkdir -p "$work/fakepy"
cat >"$work/fakepy/python3.6" <<'SH'
#!/bin/sh
if [ "$1" = -c ]; then echo 3.6; exit 0; fi
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin"
  printf '#!/bin/sh\necho "Collecting pip (stand-in pip on stdout)"\necho "no network here" >&2\nexit 1\n' >"$3/bin/pip"
  chmod +x "$3/bin/pip"
  exit 0
fi
exit 2
SH
chmod +x "$work/fakepy/python3.6"
cat >"$work/ptys.py" <<'PY'
# ptys.py OUT ERR cmd...: runs cmd with stdout and stderr on two terminals of their own.
import os, pty, select, subprocess, sys
out_master, out_slave = pty.openpty()
err_master, err_slave = pty.openpty()
child = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=out_slave, stderr=err_slave)
os.close(out_slave)
os.close(err_slave)
got = {out_master: b"", err_master: b""}
open_fds = [out_master, err_master]
while open_fds:
    ready, _, _ = select.select(open_fds, [], [], 120)
    if not ready:
        break
    for fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if data:
            got[fd] += data
        else:
            open_fds.remove(fd)
open(sys.argv[1], "wb").write(got[out_master])
open(sys.argv[2], "wb").write(got[err_master])
sys.exit(child.wait())
PY
rc=0
OPKIT_VENVS="$work/venvs" OPKIT_PYTHON_3_6="$work/fakepy/python3.6" \
  python3 "$work/ptys.py" "$work/tty.out" "$work/tty.err" "$OPKIT" test --python --json --no-build || rc=$?
[ "$rc" -eq 3 ] || { cat "$work/tty.out" "$work/tty.err" >&2; fail "test --python with a failing pip exited $rc, expected 3"; }
if grep -q '^Collecting' "$work/tty.out"; then fail "pip's output went to stdout on a terminal: $(cat "$work/tty.out")"; fi
# (the error line, after the status line's escapes, as the failure document's message)
cp "$work/tty.out" "$work/out" && tr -d '\r' <"$work/tty.err" | sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/.*(opkit: error:)/\1/' >"$work/err"
expect_json_failure opkit.test-python-1 3
# On a terminal pip's lines are the status line's; the error line ends with its last ones.
expect_contains "$work/tty.err" 'opkit: error: pip install pip==21\.3\.1: failed \(exit 1\): .*no network here'
# Not on a terminal, the same lines (pip without --quiet); with -q, only the error line.
OPKIT_VENVS="$work/venvs" OPKIT_PYTHON_3_6="$work/fakepy/python3.6" run_opkit 3 test --python --json --no-build
expect_json_failure opkit.test-python-1 3
expect_contains "$work/err" '^Collecting pip \(stand-in pip on stdout\)$'
OPKIT_VENVS="$work/venvs" OPKIT_PYTHON_3_6="$work/fakepy/python3.6" run_opkit 3 -q test --python --json --no-build
expect_one_error_line
expect_contains "$work/err" 'failed \(exit 1\): .*no network here'
