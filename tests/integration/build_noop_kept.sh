# A no-op `opkit build` is kept (build/.opkit-noop/): the same call, with
# nothing changed, prints the same thing without running ninja; any change
# ninja or the plan would see (a source, opkit.yaml, an output removed, the
# environment, another SDK) builds in full again.
source "$(dirname "$0")/common.sh"

# A ninja that counts its calls, first on PATH: the kept no-op never runs it.
mkdir -p "$work/bin"
cat >"$work/bin/ninja" <<SH
#!/bin/sh
echo "\$*" >>"$work/ninja-calls"
exec /usr/bin/ninja "\$@"
SH
chmod +x "$work/bin/ninja"
export PATH="$work/bin:$PATH"
: >"$work/ninja-calls"
ninja_calls() { wc -l <"$work/ninja-calls"; }
# Files written within a second of a call are not trusted (racily clean): wait that out.
settle() { sleep 1.1; }

run_opkit 0 new noop_op
cd noop_op
run_opkit 0 build
expect_contains "$work/out" '^tf-2\.10\.1 +built '
settle

# The first no-op runs in full, and is kept.
calls=$(ninja_calls)
run_opkit 0 build
cp "$work/out" "$work/full.out"
cp "$work/err" "$work/full.err"
[ "$(ninja_calls)" -gt "$calls" ] || fail "the first no-op did not run ninja"
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
ls build/.opkit-noop/*.json >/dev/null 2>&1 || fail "the no-op was not kept in build/.opkit-noop/"

# The same call again: the same output, on stdout and stderr, and no ninja.
calls=$(ninja_calls)
run_opkit 0 build
[ "$(ninja_calls)" -eq "$calls" ] || fail "the kept no-op ran ninja"
cmp "$work/out" "$work/full.out" || fail "the kept no-op printed another result"
cmp "$work/err" "$work/full.err" || fail "the kept no-op logged other notes"

# --json is another call: kept on its own, the same report when replayed.
run_opkit 0 build --json
cp "$work/out" "$work/full.json"
calls=$(ninja_calls)
run_opkit 0 build --json
[ "$(ninja_calls)" -eq "$calls" ] || fail "the kept --json no-op ran ninja"
cmp "$work/out" "$work/full.json" || fail "the kept --json no-op printed another report"
expect_json_schema opkit.build-1 "$work/out"

# A source edited: compiled again, for both versions.
echo "// edited" >>src/noop_op_kernels.cc
run_opkit 0 build
expect_contains "$work/out" '^tf-1\.12\.0 +built \(1 compiled\)'
expect_contains "$work/out" '^tf-2\.10\.1 +built \(1 compiled\)'
settle
run_opkit 0 build # kept again

# A library removed: linked again.
rm build/tf-2.10.1/libnoop_op.so
run_opkit 0 build
expect_contains "$work/out" '^tf-2\.10\.1 +built \(0 compiled\)'
[ -f build/tf-2.10.1/libnoop_op.so ] || fail "the removed library was not linked again"
settle
run_opkit 0 build

# opkit.yaml changed, or the environment: the plan is made again (ninja runs).
echo "# a comment" >>opkit.yaml
calls=$(ninja_calls)
run_opkit 0 build
[ "$(ninja_calls)" -gt "$calls" ] || fail "a changed opkit.yaml replayed the kept no-op"
expect_contains "$work/out" '^tf-2\.10\.1 +up to date '
settle
run_opkit 0 build
calls=$(ninja_calls)
OPKIT_SOME_SETTING=1 run_opkit 0 build
[ "$(ninja_calls)" -gt "$calls" ] || fail "another environment replayed the kept no-op"

# An SDK imported meanwhile (1.12 could now mean another): the store's folder changed.
calls=$(ninja_calls)
mkdir "$OPKIT_HOME/sdks/.opkit-noop-test" && rmdir "$OPKIT_HOME/sdks/.opkit-noop-test"
run_opkit 0 build
[ "$(ninja_calls)" -gt "$calls" ] || fail "a changed SDK store replayed the kept no-op"

# A build that is not a no-op is never kept as one: after a failure, no replay.
settle
run_opkit 0 build
echo "this is not C++" >>src/noop_op_kernels.cc
run_opkit 1 build
run_opkit 1 build
expect_contains "$work/out" 'FAILED'

# opkit clean removes the kept no-ops with the rest.
run_opkit 0 clean
[ ! -e build/.opkit-noop ] || fail "opkit clean left build/.opkit-noop"
echo "PASS: $test_name"
