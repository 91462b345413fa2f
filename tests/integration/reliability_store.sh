# The SDK store under concurrency and kills (issue 16): readers see the old or
# the new SDK while it is re-imported, never none; `sdk gc` leaves a running
# import's staging alone; `kill -9` during `sdk add` leaves the old or the
# complete new SDK, and a rerun succeeds. OPKIT_KILL_ROUNDS sets the kills (5).
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"
rounds=${OPKIT_KILL_ROUNDS:-5}
wheel=$(wheel_for 1.12.0)
run_opkit 0 -q sdk add "$wheel"

# --- re-imports while `sdk list` and `sdk gc` run in loops: nothing fails
"$OPKIT" -q sdk add "$wheel" >/dev/null 2>"$work/add1.err" &
add1=$!
"$OPKIT" -q sdk add "$wheel" >/dev/null 2>"$work/add2.err" &
add2=$!
lists=0 gcs=0
while kill -0 "$add1" 2>/dev/null || kill -0 "$add2" 2>/dev/null; do
  "$OPKIT" sdk list --json >"$work/list.json" 2>"$work/list.err" || fail "sdk list during an import failed: $(cat "$work/list.err")"
  python3 -c "import json,sys; ids=[s['id'] for s in json.load(open(sys.argv[1]))]; assert ids == ['tensorflow-1.12.0'], ids" \
    "$work/list.json" || fail "sdk list during an import did not show the SDK: $(cat "$work/list.json")"
  lists=$((lists + 1))
  "$OPKIT" -q sdk gc >/dev/null 2>"$work/gc.err" || fail "sdk gc during an import failed: $(cat "$work/gc.err")"
  gcs=$((gcs + 1))
done
wait "$add1" || fail "the first concurrent import failed: $(cat "$work/add1.err")"
wait "$add2" || fail "the second concurrent import failed: $(cat "$work/add2.err")"
[ "$lists" -ge 3 ] || fail "only $lists listings ran during the imports: the test proves nothing"
run_opkit 0 sdk info tensorflow-1.12.0

# --- kill -9 during sdk add: the store holds the old or the complete new SDK
for round in $(seq "$rounds"); do
  [ $((round % 2)) -eq 0 ] && rm -rf "$OPKIT_HOME/sdks/tensorflow-1.12.0" # half the rounds import anew
  "$OPKIT" -q sdk add "$wheel" >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.2, 4.0), 2))")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  run_opkit 0 sdk list --json
  if grep -q tensorflow-1.12.0 "$work/out"; then
    sdk="$OPKIT_HOME/sdks/tensorflow-1.12.0"
    [ -f "$sdk/sdk.json" ] && [ -f "$sdk/include/tensorflow/core/framework/op.h" ] && [ -n "$(ls "$sdk/lib")" ] ||
      fail "round $round: a killed import left a partial SDK at the final name"
  fi
  [ -z "$(ls -A "$OPKIT_HOME/sdks" | grep -v -e '^tensorflow-1\.12\.0$' -e '^\.opkit-partial\.' -e '^\.opkit-old\.')" ] ||
    fail "round $round: the store holds $(ls -A "$OPKIT_HOME/sdks")"
  run_opkit 0 -q sdk gc
  [ -z "$(ls -A "$OPKIT_HOME/sdks" | grep '^\.')" ] || fail "round $round: gc left $(ls -A "$OPKIT_HOME/sdks")"
  run_opkit 0 -q sdk add "$wheel"
done
# --- sdk remove during a build refuses (exit 1), and the build completes; once
# the build has ended the remove goes through. The compiler is slowed down so
# that the build is surely running when the remove comes.
lock="$OPKIT_HOME/locks/sdk-tensorflow-1.12.0.lock"
cat >"$work/slow-cxx" <<'SH'
#!/bin/sh
sleep 4
exec g++ "$@"
SH
chmod +x "$work/slow-cxx"
cd "$work"
run_opkit 0 new held --tf 1.12
cd held
CXX="$work/slow-cxx" "$OPKIT" build --no-cache >"$work/build.out" 2>"$work/build.err" &
build=$!
for _ in $(seq 100); do
  [ -f "$lock" ] && ! flock -n -x "$lock" true && break
  sleep 0.1
done
flock -n -x "$lock" true && fail "the build holds no lock on its SDK"
run_opkit 1 sdk remove tensorflow-1.12.0
expect_one_error_line
expect_contains "$work/err" 'tensorflow-1\.12\.0: in use by a running opkit build or test; not removed'
kill -0 "$build" 2>/dev/null || fail "the build ended before the remove was tried: the test proves nothing"
wait "$build" || fail "the build failed after a refused remove: $(cat "$work/build.err")"
[ -f build/tf-1.12.0/libheld.so ] || fail "the build made no library"
# A shared holder (as a second build or a test) is refused the same way; once it is gone, remove works.
flock -s "$lock" sleep 3 &
holder=$!
sleep 0.5
run_opkit 1 sdk remove tensorflow-1.12.0
wait "$holder"
run_opkit 0 sdk remove tensorflow-1.12.0
[ ! -e "$OPKIT_HOME/sdks/tensorflow-1.12.0" ] || fail "sdk remove left the SDK"
run_opkit 3 build --tf 1.12
expect_contains "$work/err" 'opkit sdk fetch tensorflow==1\.12'

echo "reliability_store: ok ($lists listings and $gcs gc runs during imports, $rounds kills)"
