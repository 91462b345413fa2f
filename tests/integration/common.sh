# Sourced by every integration test. Gives each test a fresh work folder
# (kept after a failure, for evidence) and small assertion helpers.
set -euo pipefail

: "${OPKIT:?run through ctest, which sets OPKIT}"
test_name=$(basename "$0" .sh)
work="$OPKIT_TEST_WORK/$test_name"
rm -rf "$work"
mkdir -p "$work" "$OPKIT_TEST_HOME"
cd "$work"
export OPKIT_HOME="$OPKIT_TEST_HOME"
# The venvs with each TF version (`opkit test --python`) are made once per machine, in the shared cache.
export OPKIT_VENVS="${OPKIT_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venvs}"
# So are the CUDA toolchains opkit fetches for CUDA SDKs (configs/cuda/toolchains.yaml).
export OPKIT_CUDA_TOOLCHAINS="${OPKIT_CUDA_TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/toolchains}"
# No user config file: the tests set what they need in the environment.
export OPKIT_CONFIG="$work/no-user-config.yaml"
# Not a GitHub workflow, even when the suite runs in one: errors stay one line (ci_junit tests the annotations).
unset GITHUB_ACTIONS GITHUB_WORKSPACE

fail() {
  echo "FAIL: $test_name: $*" >&2
  exit 1
}

# run_opkit <expected-exit-code> <args...>: runs opkit with stdout in $work/out
# and stderr in $work/err, and fails the test on any other exit code.
run_opkit() {
  local expected=$1
  shift
  local rc=0
  "$OPKIT" "$@" >"$work/out" 2>"$work/err" || rc=$?
  if [ "$rc" -ne "$expected" ]; then
    echo "--- stdout" >&2; cat "$work/out" >&2
    echo "--- stderr" >&2; cat "$work/err" >&2
    fail "opkit $* exited $rc, expected $expected"
  fi
}

# fail_run <stdout-file> <stderr-file> <message>: a script's run failed: its last lines, then fail.
fail_run() {
  echo "--- stdout" >&2; tail -n 40 "$1" >&2
  echo "--- stderr (the last command is the one that failed)" >&2; tail -n 40 "$2" >&2
  fail "$3"
}

# expect_contains <file> <extended regex>
expect_contains() {
  grep -Eq -- "$2" "$1" || { echo "--- $1" >&2; cat "$1" >&2; fail "$1 does not match /$2/"; }
}

# expect_one_error_line: stderr holds exactly one line, an opkit error.
expect_one_error_line() {
  local lines
  lines=$(grep -c . "$work/err" || true)
  [ "$lines" -eq 1 ] || { cat "$work/err" >&2; fail "expected one error line on stderr, got $lines"; }
  expect_contains "$work/err" '^opkit: error: '
}

# expect_junit_xsd <file>...: each file is a JUnit XML report valid against the
# Jenkins xUnit plugin's junit-10.xsd (the schema GitLab, Jenkins and GitHub's
# test-report actions read), checked by xmllint (Debian's libxml2-utils). The
# XSD comes from PyPI, as pytest publishes it in its sdist
# (testing/example_scripts/junit-10.xsd of pytest 7.4.4, sha256-pinned), kept
# in the shared cache once (lock, then the pinned hash).
expect_junit_xsd() {
  command -v xmllint >/dev/null || fail "no xmllint: install Debian's libxml2-utils (scripts/setup.sh)"
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/junit-xsd"
  local xsd="$dir/junit-10.xsd" pinned=a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6
  mkdir -p "$dir"
  (
    flock 9
    if ! echo "$pinned  $xsd" | sha256sum -c --status 2>/dev/null; then
      rm -rf "$dir/download"
      python3 -m pip download --quiet --no-deps --no-binary :all: -d "$dir/download" 'pytest==7.4.4' ||
        fail "step junit-xsd: pip download pytest==7.4.4 (its sdist, from PyPI) into $dir failed"
      tar -xzf "$dir/download/pytest-7.4.4.tar.gz" -O pytest-7.4.4/testing/example_scripts/junit-10.xsd >"$xsd.tmp" ||
        fail "step junit-xsd: no testing/example_scripts/junit-10.xsd in pytest-7.4.4.tar.gz"
      echo "$pinned  $xsd.tmp" | sha256sum -c --status || fail "step junit-xsd: junit-10.xsd is not the pinned one"
      mv "$xsd.tmp" "$xsd"
      rm -rf "$dir/download"
    fi
  ) 9>"$dir.lock"
  local file
  for file in "$@"; do
    xmllint --noout --schema "$xsd" "$file" 2>"$work/xmllint.err" ||
      { cat "$work/xmllint.err" >&2; fail "$file is not valid against the JUnit XSD (junit-10.xsd)"; }
  done
}

# serve_index <folder>: a PEP 503 index of the folder's wheels (index_server.py)
# in the background, its pid in $index_server and its URL in $index_url; the
# caller's EXIT trap kills it.
serve_index() {
  python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$1" --port-file "$work/port" \
    --log "$work/index.log" 2>"$work/index.err" &
  index_server=$!
  for _ in $(seq 300); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { cat "$work/index.err" >&2; fail "the index server did not start"; }
  index_url="http://127.0.0.1:$(cat "$work/port")/simple/"
}

wheel_cache() {
  echo "${OPKIT_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/wheels}"
}

# The wheel for a version, fetched by the fetch_wheels fixture.
wheel_for() {
  local found
  found=$(ls "$(wheel_cache)/tf-$1"/*.whl 2>/dev/null | head -n 1)
  [ -n "$found" ] || fail "no wheel for TF $1 in $(wheel_cache); run scripts/fetch-wheels.sh"
  echo "$found"
}

# expect_json_failure <schema-name> <exit-code>: after a failed run_opkit ... --json,
# stdout holds one failure document of that schema (schemas/README.md): the
# schema id, that exit code and its name, the message stderr's error line starts with.
expect_json_failure() {
  expect_json_schema "$1" "$work/out"
  python3 - "$work/out" "$1" "$2" "$work/err" <<'PY' || fail "stdout is not $1's failure document with exit $2: $(cat "$work/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
report, major = sys.argv[2].rsplit("-", 1)
assert doc["schema"] == report + "/" + major, doc
assert doc["exit_code"] == int(sys.argv[3]), doc
assert doc["error"]["kind"] == {1: "failed", 2: "usage", 3: "missing", 4: "system"}[doc["exit_code"]], doc
line = open(sys.argv[4], errors="replace").read().splitlines()[-1]
assert line.startswith("opkit: error: " + doc["error"]["message"][:40]), (line, doc)
PY
}

# expect_json_schema <schema-name> <file>: the file holds one JSON value (or, with
# --lines, one per line) valid against schemas/<schema-name>.schema.json (e.g.
# opkit.build-1), checked by the jsonschema package from PyPI, in a venv of the
# shared cache made once (lock, then the completion stamp).
expect_json_schema() {
  local lines=0
  if [ "$1" = --lines ]; then lines=1; shift; fi
  local schema="$OPKIT_SOURCE_DIR/schemas/$1.schema.json" file=$2
  [ -f "$schema" ] || fail "no schema $schema"
  local venv="${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venv-jsonschema"
  (
    flock 9
    if [ ! -f "$venv/.opkit-complete" ]; then
      rm -rf "$venv"
      python3 -m venv "$venv" || fail "step jsonschema: python3 -m venv $venv failed"
      "$venv/bin/pip" install --quiet 'jsonschema==4.17.3' ||
        fail "step jsonschema: pip install jsonschema==4.17.3 (from PyPI) into $venv failed"
      touch "$venv/.opkit-complete"
    fi
  ) 9>"$venv.lock"
  "$venv/bin/python" - "$schema" "$file" "$lines" <<'PY' || fail "$file does not match schema $1"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
text = open(sys.argv[2]).read()
values = [json.loads(l) for l in text.splitlines() if l.strip()] if sys.argv[3] == "1" else [json.loads(text)]
if not values:
    sys.exit("no JSON in " + sys.argv[2])
for value in values:
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(value), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s at /%s" % (sys.argv[2], e.message, "/".join(map(str, e.path))), file=sys.stderr)
    if errors:
        sys.exit(1)
PY
}

# start_index_server <root> [mode]: serves <root> as a package index on loopback
# (tests/integration/index_server.py, its requests logged to $work/index.log),
# sets $index_url to its simple/ URL, and stops it when the test exits.
start_index_server() {
  rm -f "$work/index.port"
  python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$1" --port-file "$work/index.port" \
    --mode "${2:-normal}" --log "$work/index.log" 2>"$work/index.err" &
  index_server=$!
  trap 'kill $index_server 2>/dev/null || true' EXIT
  for _ in $(seq 300); do [ -s "$work/index.port" ] && break; sleep 0.1; done # it hashes the wheels first
  [ -s "$work/index.port" ] || fail "index server did not start: $(cat "$work/index.err")"
  index_url="http://127.0.0.1:$(cat "$work/index.port")/simple/"
}
