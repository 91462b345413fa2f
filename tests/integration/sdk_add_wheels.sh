# Fixture and test: `opkit sdk add` imports both real wheels (different layouts:
# tensorflow-1.12.0.data/purelib/tensorflow/ and tensorflow/) and records their facts.
source "$(dirname "$0")/common.sh"
rm -rf "$OPKIT_HOME/sdks"

run_opkit 0 sdk add "$(wheel_for 1.12.0)"
run_opkit 0 sdk add "$(wheel_for 2.10.1)"
run_opkit 0 sdk add "$(wheel_for 1.15.5)"   # tensorflow_core/ layout
run_opkit 0 sdk list --json
python3 - "$work/out" <<'PY'
import json, sys
sdks = {s["version"]: s for s in json.load(open(sys.argv[1]))}
assert set(sdks) == {"1.12.0", "2.10.1", "1.15.5"}, sdks.keys()
mid = sdks["1.15.5"]
assert (mid["cxx11_abi"], mid["cxx_standard"], mid["soname"]) == (0, 11, "libtensorflow_framework.so.1"), mid
assert mid["warnings"] == [], mid["warnings"]
old, new = sdks["1.12.0"], sdks["2.10.1"]
# The ABI comes from the mangled names the framework library exports.
assert old["cxx11_abi"] == 0 and "730 with the old std::string spelling" in old["abi_evidence"], old
assert new["cxx11_abi"] == 1 and new["abi_evidence"].startswith("tensorflow:: exports: 1319 with std::__cxx11"), new
assert (old["cxx_standard"], new["cxx_standard"]) == (11, 17)
assert old["soname"] == "libtensorflow_framework.so", old
assert new["soname"] == "libtensorflow_framework.so.2", new
assert new["distribution"] == "tensorflow-cpu" and new["wheel_tag"].startswith("cp310-cp310-manylinux")
assert old["cuda"]["is_cuda_build"] is False and new["cuda"]["is_cuda_build"] is False
assert old["warnings"] == [] and new["warnings"] == [], (old["warnings"], new["warnings"])
PY
# Only the SDK subset is kept: headers, the framework library, metadata.
for v in 1.12.0 2.10.1 1.15.5; do
  sdk="$OPKIT_HOME/sdks/tensorflow-$v"
  [ -f "$sdk/include/tensorflow/core/framework/op.h" ] || fail "$v: op.h missing"
  [ -z "$(find "$sdk" -name '*.py' ! -name build_info.py)" ] || fail "$v: Python sources were kept"
  [ -z "$(find "$sdk" -name '_pywrap_tensorflow_internal.so')" ] || fail "$v: pywrap library was kept"
  # ... and the framework library's symbol index, for opkit check.
  [ -s "$sdk/symbols/$(basename "$(ls "$sdk"/lib/libtensorflow_framework.so*)").idx" ] || fail "$v: no symbol index"
done
# Nothing is left staged.
[ -z "$(find "$OPKIT_HOME/sdks" -maxdepth 1 -name '.opkit-partial.*')" ] || fail "staging folder left behind"
# A prefix resolves to the newest matching SDK; a list shows both.
run_opkit 0 sdk list
expect_contains "$work/out" '^tensorflow-1\.12\.0 +1\.12\.0 +[0-9.]+ [kMG]?B  abi=0 c\+\+11 libtensorflow_framework\.so '
expect_contains "$work/out" '^tensorflow-2\.10\.1 +2\.10\.1 +[0-9.]+ [kMG]?B  abi=1 c\+\+17 libtensorflow_framework\.so\.2 '
