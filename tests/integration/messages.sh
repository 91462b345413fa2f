# Messages where they belong (issue 51): each says what happened and the way
# out, with the exit code docs/commands.md's table gives it. `--tf 1,12` is
# caught as 1.12 typed with a comma; `opkit new` on an existing folder names
# `opkit init` and --output; `package wheel` in an easyrec-layer project says
# the template has no wrapper (before building anything); `package wheel
# --dry-run` with a target never built stops before any note says it builds
# first; a network pip cannot reach is exit 4, for `sdk fetch`'s pip download
# and for a venv's pip install alike.
source "$(dirname "$0")/common.sh"

# --- `--tf 1,12`: a comma for the dot, exit 2 naming 1.12 (not `sdk fetch tensorflow==12`)
run_opkit 0 new comma_op
cd comma_op
run_opkit 2 build --tf 1,12
expect_one_error_line
expect_contains "$work/err" "^opkit: error: --tf '1,12': 12 is no TensorFlow major version; .*\(did you mean --tf 1\.12\?\)$"
if grep -q 'tensorflow==12' "$work/err"; then fail "--tf 1,12 suggested tensorflow==12"; fi
# Two real majors stay two versions (the store's newest of each).
run_opkit 0 build --tf 1,2 --dry-run
expect_contains "$work/out" '^tf-1\.[0-9.]+ +would run '
expect_contains "$work/out" '^tf-2\.[0-9.]+ +would run '
[ ! -e build ] || fail "--dry-run made the build folder"

# --- package wheel --dry-run, nothing built: one line, exit 3, no "builds it first" before it
run_opkit 3 package wheel --dry-run --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "^opkit: error: --dry-run: 2\.10\.1 is not built yet, and a dry run builds nothing: .*\(run .opkit build --tf 2\.10\.1. first"
[ ! -e build ] && [ ! -e dist ] || fail "--dry-run built or wrote something"
cd "$work"

# --- opkit new on an existing folder: the ways out (exit 2)
run_opkit 2 new comma_op
expect_one_error_line
expect_contains "$work/err" "comma_op: already exists and is not an empty folder \(it holds an opkit project: work in it \(opkit -C comma_op build\), or give opkit new another folder with --output DIR\)$"
mkdir sources && echo 'int x;' >sources/a.cc
run_opkit 2 new sources
expect_contains "$work/err" "sources: already exists and is not an empty folder \(to use the sources there: opkit init sources; for a new project elsewhere: --output DIR\)$"

# --- package wheel in an easyrec-layer project: the template writes no wrapper, said before any build
run_opkit 0 new layer_op --template easyrec-layer
cd layer_op
run_opkit 2 package wheel
expect_one_error_line
expect_contains "$work/err" "python/layer_op_ops\.py: the Python wrapper is missing \(the easyrec-layer template writes no Python wrapper: its ops ship with .opkit package easyrec.; for a wheel, write python/layer_op_ops\.py, "
[ ! -e build ] || fail "package wheel built before finding the wrapper missing"
cd "$work"

# --- the network pip cannot reach: exit 4, one line naming the network (pip's
# retry warning gives the cause; one retry keeps it quick).
closed=http://127.0.0.1:1/
(
  unset PIP_FIND_LINKS PIP_INDEX_URL OPKIT_INDEX_URL
  export PIP_CONFIG_FILE=/dev/null PIP_RETRIES=1 OPKIT_HOME="$work/home"
  # sdk fetch's pip download (pip's configuration turns on no-index: its find-links only)
  PIP_NO_INDEX=1 PIP_FIND_LINKS="$closed" run_opkit 4 -q sdk fetch tensorflow==2.10.1
  expect_one_error_line
  expect_contains "$work/err" "^opkit: error: tensorflow-cpu==2\.10\.1: pip download failed: the network does not reach it: \[Errno 111\] Connection refused \(check the network"
  # a venv's pip install (the oneflow template's test needs numpy)
  "$OPKIT" new flow_op --template oneflow-py-op >/dev/null
  cd flow_op
  PIP_INDEX_URL="${closed}simple/" run_opkit 4 -q test
  expect_one_error_line
  expect_contains "$work/err" "^opkit: error: pip install numpy: failed: the network does not reach it: \[Errno 111\] Connection refused"
)
echo "messages: ok"
