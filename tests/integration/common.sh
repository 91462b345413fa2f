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
