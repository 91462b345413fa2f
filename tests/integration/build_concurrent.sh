# Builds of one project at once (issue 32): three `opkit build`s and an
# `opkit test` started together all succeed, round after round, with a source
# changed before each; the library at the end is the last round's and agrees
# with its opkit-build.json. A second build waits for the first and says for
# whom; --no-wait fails at once naming the holder. Two specs of one SDK are one
# target. OPKIT_CONCURRENT_ROUNDS sets the rounds (20, the acceptance's).
source "$(dirname "$0")/common.sh"
rounds=${OPKIT_CONCURRENT_ROUNDS:-20}
command -v flock >/dev/null || fail "flock (util-linux) is missing: apt-get install util-linux"
run_opkit 0 new race_op
cd race_op
lib=build/tf-1.12.0/librace_op.so
mark() { # a string the library carries, changed each round: the library says which sources it was built from
  sed -i '/race_op_round/d' src/race_op_kernels.cc
  echo "extern \"C\" __attribute__((used, visibility(\"default\"))) const char race_op_round[] = \"race-round-$1\";" \
    >>src/race_op_kernels.cc
}
mark 0
run_opkit 0 build --tf 1.12

# --- two specs that resolve to one SDK are one target (ninja once said "multiple rules generate")
run_opkit 0 build --tf 1.12,1.12.0
expect_contains "$work/err" '1\.12\.0: the same SDK as 1\.12: built once'
[ "$(grep -c '^tf-1\.12\.0 ' "$work/out")" = 1 ] || fail "two specs of one SDK made two targets: $(cat "$work/out")"

# --- 3 builds and a test at once, $rounds rounds
for round in $(seq "$rounds"); do
  mark "$round"
  pids=()
  for n in 1 2 3; do
    "$OPKIT" build --tf 1.12 >"$work/build$n.out" 2>"$work/build$n.err" &
    pids+=($!)
  done
  "$OPKIT" test --tf 1.12 >"$work/test.out" 2>"$work/test.err" &
  pids+=($!)
  for i in 0 1 2 3; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    if [ "$rc" -ne 0 ]; then
      for f in build1 build2 build3 test; do echo "--- $f" >&2; cat "$work/$f.out" "$work/$f.err" >&2; done
      fail "round $round: process $i of 4 (3 builds, then the test) exited $rc"
    fi
  done
  grep -aq "race-round-$round" "$lib" || fail "round $round: $lib is not built from this round's sources"
  expect_contains "$work/test.out" '^  op +RaceOp\('
done
ls build/tf-1.12.0 | grep -E '\.tmp$' && fail "temporary link outputs were left"
# The library at the end is what its record says: opkit check reads the SDK and runtime from opkit-build.json.
python3 - "$lib" <<'PY' || fail "opkit-build.json does not describe $lib"
import json, os, sys
lib = sys.argv[1]
info = json.load(open(os.path.join(os.path.dirname(lib), "opkit-build.json")))
assert info["sdk"] == "tensorflow-1.12.0" and info["tf_version"] == "1.12.0", info
assert [l["file"] for l in info["libraries"]] == [os.path.basename(lib)], info
PY
run_opkit 0 check "$lib"
expect_contains "$work/out" 'loads'

# --- a held folder: a second build says for whom it waits, then builds; --no-wait fails at once (exit 4)
mark waited
printf 'opkit build --tf 9.9 (pid 4242)' >build/.opkit-build.lock
flock build/.opkit-build.lock sleep 3 &
holder=$!
sleep 0.5
run_opkit 4 build --tf 1.12 --no-wait
expect_one_error_line
expect_contains "$work/err" "build: in use by opkit build --tf 9\.9 \(pid 4242\): another build of this folder is running"
grep -aq "race-round-$rounds" "$lib" || fail "--no-wait changed the library"
run_opkit 4 test --tf 1.12 --no-wait
expect_contains "$work/err" "in use by opkit build --tf 9\.9 \(pid 4242\)"
run_opkit 0 build --tf 1.12
expect_contains "$work/err" 'waiting for opkit build --tf 9\.9 \(pid 4242\) to finish with .*/build \.\.\.'
grep -aq "race-round-waited" "$lib" || fail "the build that waited did not build"
wait "$holder"
echo "PASS: $test_name ($rounds rounds)"
