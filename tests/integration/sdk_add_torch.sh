# Fixture and test: `opkit sdk add` imports PyPI's real torch wheels, 2.5.1
# (cp310, the last-but-one release of the old C++ ABI) and 2.8.0 (cp311, the
# new ABI), into their own store (OPKIT_HOME=home-torch), and reads each one's
# facts from its own files: the ABI from the exports of libc10 and libtorch_cpu,
# the version and CUDA from torch/version.py, the tags from the file name.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
rm -rf "$OPKIT_HOME/sdks"

torch_wheel() { # <version>: the cached wheel, fetched once by scripts/fetch-wheels.sh
  local wheel
  wheel=$(ls "$(wheel_cache)/torch-$1"/torch-"$1"-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || fail "no torch $1 wheel in $(wheel_cache): run scripts/fetch-wheels.sh --torch"
  echo "$wheel"
}

# Precompiled headers of an earlier import of the same id (keyed by its
# sdk.json) can never be used again: importing the id drops them.
mkdir -p "$OPKIT_HOME/pch/torch-2.5.1-cuda/0123456789abcdef"
echo stale >"$OPKIT_HOME/pch/torch-2.5.1-cuda/0123456789abcdef/opkit_pch.h.gch"
run_opkit 0 sdk add "$(torch_wheel 2.5.1)"
expect_contains "$work/err" 'torch-2\.5\.1-cuda'
[ ! -e "$OPKIT_HOME/pch/torch-2.5.1-cuda" ] || fail "the re-imported SDK's old precompiled headers were kept"
run_opkit 0 sdk add "$(torch_wheel 2.8.0)"
run_opkit 0 sdk list --json
python3 - "$work/out" <<'PY'
import json, sys
sdks = {s["version"]: s for s in json.load(open(sys.argv[1]))}
assert set(sdks) == {"2.5.1", "2.8.0"}, sdks.keys()
old, new = sdks["2.5.1"], sdks["2.8.0"]
for sdk in (old, new):
    assert sdk["framework"] == "torch" and sdk["id"] == "torch-%s-cuda" % sdk["version"], sdk
    assert sdk["cxx_standard"] == 17, sdk
    assert sdk["framework_library"] == "libtorch_cpu.so" and sdk["soname"] == "libtorch_cpu.so", sdk
    assert sdk["distribution"] == "torch", sdk
    assert sdk["warnings"] == [], sdk["warnings"]
# The ABI read from the c10::/at::/torch:: exports, not assumed: 2.5.1 has the
# old std::string, 2.8.0 std::__cxx11, each with none of the other spelling.
assert old["cxx11_abi"] == 0 and ": 0 with std::__cxx11 spellings" in old["abi_evidence"], old["abi_evidence"]
assert new["cxx11_abi"] == 1 and "spellings, 0 with the old std::string" in new["abi_evidence"], new["abi_evidence"]
# PyPI's Linux torch is the CUDA build; its version.py says which CUDA.
assert old["cuda"]["is_cuda_build"] and old["cuda"]["cuda_version"] == "12.4", old["cuda"]
assert new["cuda"]["is_cuda_build"] and new["cuda"]["cuda_version"] == "12.8", new["cuda"]
# The tags of the file name (2.5.1's dist-info/WHEEL says linux_x86_64).
assert old["wheel_tag"] == "cp310-cp310-manylinux1_x86_64", old["wheel_tag"]
assert new["wheel_tag"] == "cp311-cp311-manylinux_2_28_x86_64", new["wheel_tag"]
PY
# Only what a build and the load probe need is kept: the headers, libc10,
# libtorch_cpu, libtorch, libc10_cuda, libtorch_python (what a Python module links), and the
# libgomp libtorch_cpu needs (auditwheel's name in 2.5).
for v in 2.5.1 2.8.0; do
  sdk="$OPKIT_HOME/sdks/torch-$v-cuda"
  [ -f "$sdk/include/torch/library.h" ] || fail "$v: torch/library.h missing"
  [ -f "$sdk/include/torch/csrc/api/include/torch/torch.h" ] || fail "$v: the C++ API headers are missing"
  gomp=libgomp.so.1
  [ $v = 2.5.1 ] && gomp=libgomp-a34b3233.so.1
  [ "$(cd "$sdk/lib" && ls | sort | tr '\n' ' ')" = "$(printf '%s\n' libc10.so libc10_cuda.so libtorch.so libtorch_cpu.so libtorch_python.so $gomp | sort | tr '\n' ' ')" ] ||
    fail "$v: lib/ holds $(ls "$sdk/lib")"
  # Of the Python sources only version.py and the fact file cpp_extension.py (its C++ standard) are kept.
  [ -z "$(find "$sdk" -name '*.py' ! -name version.py ! -path "$sdk/facts/cpp_extension.py")" ] ||
    fail "$v: Python sources were kept"
  [ -s "$sdk/facts/cpp_extension.py" ] && [ -s "$sdk/facts/TorchConfig.cmake" ] || fail "$v: the fact files are missing"
  "$OPKIT" sdk info "torch-$v-cuda" >"$work/info" || fail "$v: sdk info failed"
  expect_contains "$work/info" "^cxx_standard +17  \(from the wheel's torch/utils/cpp_extension\.py\)$"
  expect_contains "$work/info" "^version +$v  \(from the wheel's torch/version\.py\)$"
  [ -s "$sdk/symbols/libtorch_cpu.so.idx" ] || fail "$v: no symbol index of libtorch_cpu.so"
  size=$(du -sm "$sdk" | cut -f1)
  [ "$size" -lt 700 ] || fail "$v: the SDK takes $size MB"
done
[ -z "$(find "$OPKIT_HOME/sdks" -maxdepth 1 -name '.opkit-partial.*')" ] || fail "staging folder left behind"
run_opkit 0 sdk list
expect_contains "$work/out" '^torch-2\.5\.1-cuda +2\.5\.1 +[0-9.]+ [kMG]?B  abi=0 c\+\+17 libtorch_cpu\.so '
expect_contains "$work/out" '^torch-2\.8\.0-cuda +2\.8\.0 +[0-9.]+ [kMG]?B  abi=1 c\+\+17 libtorch_cpu\.so '
