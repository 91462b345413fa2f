# Precompiled headers: made once per SDK and compiler in the store, used by
# every source whose flags match, proved used by gcc itself (-H marks a loaded
# PCH with '!'); the libraries load and register in both real frameworks and
# behave as plain-built ones; a changed flag compiles plainly, a changed
# compiler gets its own PCH and `sdk gc` drops the stale one; a no-op build
# runs no check.
source "$(dirname "$0")/common.sh"
# A store of its own (the shared SDKs linked in), so this test makes the PCHs itself.
export OPKIT_HOME="$work/home"
mkdir -p "$OPKIT_HOME/sdks"
for v in 1.12.0 2.10.1; do ln -s "$OPKIT_TEST_HOME/sdks/tensorflow-$v" "$OPKIT_HOME/sdks/"; done

run_opkit 0 new pch_op
cd pch_op
# A kernel that opens with the define the PCH has, as TF kernels often do.
sed -i '1i #define EIGEN_USE_THREADS' src/pch_op_kernels.cc

run_opkit 0 -v build --tf 1.12,2.10.1
for v in 1.12.0 2.10.1; do
  expect_contains "$work/err" "precompiling TensorFlow's headers for tensorflow-$v "
  gch=$(ls "$OPKIT_HOME"/pch/tensorflow-$v/*/opkit_pch.h.gch)
  [ -s "$gch" ] || fail "no PCH for $v"
  # Both TF sources take it; the compat shim (no TF header) does not.
  python3 - "build/tf-$v/compile_commands.json" "${gch%.gch}" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
uses = {e["file"].rsplit("/", 1)[1]: "-Winvalid-pch" in e["arguments"] for e in entries}
assert uses == {"pch_op_op.cc": True, "pch_op_kernels.cc": True, "opkit_compat.cc": False}, uses
for e in entries:
    if "-Winvalid-pch" in e["arguments"]:
        assert e["arguments"][e["arguments"].index("-Winvalid-pch") - 1] == sys.argv[2], e["arguments"]
PY
  # gcc says it loaded the .gch: with -H, '!' precedes a precompiled header it used.
  python3 - "build/tf-$v/compile_commands.json" >"$work/cmd-$v" <<'PY'
import json, shlex, sys
e = [e for e in json.load(open(sys.argv[1])) if e["file"].endswith("pch_op_kernels.cc")][0]
args = [a for a in e["arguments"]]
i = args.index("-o")
print(shlex.join(args[:i] + ["-o", "/dev/null", "-H", "-fsyntax-only"]))
PY
  (cd "build/tf-$v" && eval "$(cat "$work/cmd-$v")") 2>"$work/h-$v" || { cat "$work/h-$v"; fail "compile with -H failed"; }
  expect_contains "$work/h-$v" "^! .*/pch/tensorflow-$v/.*/opkit_pch\.h\.gch$"
done
expect_contains "$work/out" '^tf-2\.10\.1 +built \(3 compiled\) '

# The result loads and registers in both real frameworks ...
run_opkit 0 test --tf 1.12,2.10.1
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "not matched twice"
# ... exactly as a plain build does: same registrations, same exported symbols.
run_opkit 0 build --tf 1.12,2.10.1 --no-pch --build-dir build-plain
run_opkit 0 test --tf 1.12,2.10.1 --build-dir build-plain
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "plain build not matched twice"
if grep -q -- '-Winvalid-pch' build-plain/tf-2.10.1/build.ninja; then fail "--no-pch still used the PCH"; fi
for v in 1.12.0 2.10.1; do
  nm -D --defined-only build/tf-$v/libpch_op.so | awk '{print $3}' | sort >"$work/syms-pch-$v"
  nm -D --defined-only build-plain/tf-$v/libpch_op.so | awk '{print $3}' | sort >"$work/syms-plain-$v"
  cmp -s "$work/syms-pch-$v" "$work/syms-plain-$v" || fail "PCH and plain builds export different symbols for $v"
done

# A no-op build runs no compiler and no check: the verdict is reused.
run_opkit 0 -v build --tf 1.12,2.10.1
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
if grep -q 'check: .* against ' "$work/err"; then fail "a no-op build ran the check"; fi
[ "$(grep -c 'is unchanged since its last check: verdict reused' "$work/err")" -eq 2 ] || fail "verdict not reused"
if grep -q 'running: .*g++' "$work/err"; then fail "a no-op build ran the compiler"; fi
# A relinked library is checked again.
echo '// touched' >>src/pch_op_kernels.cc
run_opkit 0 -v build --tf 2.10.1
expect_contains "$work/err" 'check: .*/build/tf-2\.10\.1/libpch_op\.so against tensorflow-2\.10\.1'
run_opkit 0 build --tf 1.12

# A changed flag bypasses the PCH: compiled plainly, nothing new in the store.
run_opkit 0 -v build --tf 2.10.1 --abi 0 --no-check --build-dir build-abi0
if grep -q -- '-Winvalid-pch' build-abi0/tf-2.10.1/build.ninja; then fail "--abi 0 used the PCH made for ABI 1"; fi
expect_contains "$work/err" "tensorflow-2\.10\.1: the flags differ from the SDK's own: no precompiled header"
[ "$(ls "$OPKIT_HOME/pch/tensorflow-2.10.1" | wc -l)" -eq 1 ] || fail "a flag override made a PCH"

# A changed compiler gets a PCH of its own; the first one stays in use.
mkdir -p "$work/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v g++)" >"$work/bin/g++"
chmod +x "$work/bin/g++"
CXX="$work/bin/g++" run_opkit 0 -v build --tf 1.12 --build-dir build-cc
expect_contains "$work/err" "precompiling TensorFlow's headers for tensorflow-1\.12\.0 "
[ "$(ls "$OPKIT_HOME/pch/tensorflow-1.12.0" | wc -l)" -eq 2 ] || fail "the other compiler did not get its own PCH"
expect_contains build-cc/tf-1.12.0/build.ninja '-Winvalid-pch'
# That compiler changes (an upgrade): its PCH is stale and gc removes it, and only it.
touch "$work/bin/g++"
run_opkit 0 sdk gc
[ "$(ls "$OPKIT_HOME/pch/tensorflow-1.12.0" | wc -l)" -eq 1 ] || fail "gc did not remove exactly the stale PCH"
run_opkit 0 -v build --tf 1.12
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
if grep -q 'precompiling' "$work/err"; then fail "gc removed the PCH still current"; fi
# An SDK removed from the store takes its PCHs with it at the next gc.
rm "$OPKIT_HOME"/sdks/tensorflow-*
run_opkit 0 sdk gc
[ -z "$(ls -A "$OPKIT_HOME/pch")" ] || fail "PCHs of removed SDKs survived gc"
echo "build_pch: ok"
