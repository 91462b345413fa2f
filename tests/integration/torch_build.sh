# `opkit new --template torch-op`, then `opkit build` for torch 2.5.1 (the old
# C++ ABI) and 2.8.0 (the new one) from PyPI's real wheels, then `opkit check`
# against the real loader: each library loads into its own torch's
# libtorch_cpu.so and is refused by the other's, and check names the symbol
# the loader names. The loader is glibc's own: a launcher that dlopens
# libtorch_cpu.so and then the op, RTLD_NOW|RTLD_LOCAL, as torch's Python does
# (torch/__init__.py imports _C with the default flags; torch.ops.load_library
# is ctypes.CDLL). libtorch_cpu.so needs libgomp (from the torch wheel) and
# libcudart.so.12 and libcupti.so.12 even without a GPU: from the two NVIDIA
# wheels its METADATA pins, fetched by scripts/fetch-wheels.sh.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
sdk_dir() { echo "$OPKIT_HOME/sdks/torch-$1-cuda"; }
for v in 2.5.1 2.8.0; do
  [ -f "$(sdk_dir $v)/sdk.json" ] || fail "no torch $v SDK: the sdks_torch fixture (integration.sdk_add_torch) makes it"
done

run_opkit 0 new tally -t torch-op
expect_contains "$work/out" 'src/tally_op\.cpp'
expect_contains tally/opkit.yaml '^  torch: \["2\.5", "2\.8"\]'
cd tally

# A torch project takes --torch; --tf is one clear error.
run_opkit 2 build --tf 2.10
expect_one_error_line
expect_contains "$work/err" "--tf: this project's template is for PyTorch"

run_opkit 0 build
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda +built \\(4 compiled\\)"
  [ -f "build/torch-$v-cuda/libtally.so" ] || fail "no build/torch-$v-cuda/libtally.so"
done
# Each with its torch's flags: -std=c++17, its own ABI, TORCH_EXTENSION_NAME, the C++ API headers;
# not TORCH_API_INCLUDE_EXTENSION_H, which only a Python module gets (<torch/torch.h> would pull in Python.h).
python3 - build/torch-2.5.1-cuda/compile_commands.json build/torch-2.8.0-cuda/compile_commands.json <<'PY'
import json, sys
for path, abi in zip(sys.argv[1:], ("0", "1")):
    for entry in json.load(open(path)):
        if "opkit_compat" in entry["file"]:
            continue
        args = entry["arguments"]
        for flag in ("-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=" + abi, "-DTORCH_EXTENSION_NAME=tally"):
            assert flag in args, (path, entry["file"], flag)
        assert "-DTORCH_API_INCLUDE_EXTENSION_H" not in args, (path, entry["file"])
        assert any(a.endswith("/include/torch/csrc/api/include") for a in args), (path, args)
        assert not any(a.startswith("-DEIGEN_MAX_ALIGN_BYTES") for a in args), (path, args)
PY
# The ABI is in the library: torch::Library's constructor takes the old std::string (Ss) for 2.5.1, std::__cxx11's for 2.8.0.
nm -D --undefined-only build/torch-2.5.1-cuda/libtally.so >"$work/nm-2.5"
nm -D --undefined-only build/torch-2.8.0-cuda/libtally.so >"$work/nm-2.8"
expect_contains "$work/nm-2.5" '_ZN5torch7LibraryC1ENS0_4KindESs'
expect_contains "$work/nm-2.8" '_ZN5torch7LibraryC1ENS0_4KindENSt7__cxx1112basic_string'
# Linked --as-needed: libc10 and libtorch_cpu, not libtorch.so (whose DT_NEEDED drags in libtorch_cuda.so).
for v in 2.5.1 2.8.0; do
  readelf -d "build/torch-$v-cuda/libtally.so" >"$work/dynamic"
  expect_contains "$work/dynamic" 'NEEDED.*\[libc10\.so\]'
  expect_contains "$work/dynamic" 'NEEDED.*\[libtorch_cpu\.so\]'
  ! grep -q 'NEEDED.*\[libtorch\.so\]' "$work/dynamic" || fail "$v: linked libtorch.so"
done

# Nothing changed: nothing runs.
run_opkit 0 build
expect_contains "$work/out" '^torch-2\.5\.1-cuda +up to date'

# The real loader: each library into each torch's libtorch_cpu.so.
cc -o "$work/launch" -x c - -ldl <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
      printf("%s\n", dlerror());
      return 1;
    }
  }
  printf("loaded\n");
  return 0;
}
C
runtime_dir() { # <version>: libgomp from its torch wheel, libcudart and libcupti from the pinned NVIDIA wheels
  local dir="$work/runtime-$1" wheel
  mkdir -p "$dir"
  ls "$(wheel_cache)/torch-$1-cuda-runtime"/*.whl >/dev/null 2>&1 ||
    fail "no CUDA runtime wheels for torch $1 in $(wheel_cache): run scripts/fetch-wheels.sh --torch"
  for wheel in "$(wheel_cache)/torch-$1-cuda-runtime"/*.whl; do
    unzip -qjo "$wheel" 'nvidia/*/lib/libcudart.so.12' 'nvidia/*/lib/libcupti.so.12' -d "$dir" 2>/dev/null || true
  done
  unzip -qjo "$(ls "$(wheel_cache)/torch-$1"/torch-*.whl | head -n 1)" 'torch/lib/libgomp*.so.1' -d "$dir"
  [ -f "$dir/libcudart.so.12" ] && [ -f "$dir/libcupti.so.12" ] || fail "torch $1: no libcudart/libcupti in its runtime wheels"
  echo "$dir"
}
load() { # <torch version> <library>: the loader's answer in $work/loader
  LD_LIBRARY_PATH="$(sdk_dir "$1")/lib:$(runtime_dir "$1")" "$work/launch" libtorch_cpu.so "$2" >"$work/loader" || true
}
for v in 2.5.1 2.8.0; do
  load $v "build/torch-$v-cuda/libtally.so"
  expect_contains "$work/loader" '^loaded$'
  run_opkit 0 check "build/torch-$v-cuda/libtally.so"
  expect_contains "$work/out" "loads against torch $v on manylinux"
done
refused() { # <built for> <checked against>
  load "$2" "build/torch-$1-cuda/libtally.so"
  expect_contains "$work/loader" 'undefined symbol: _Z'
  local symbol
  symbol=$(sed -n 's/.*undefined symbol: \(_Z[^ ]*\).*/\1/p' "$work/loader")
  echo "torch $1's library in torch $2, the real loader: $(cat "$work/loader")"
  echo "$symbol" >"$work/symbol-$1-in-$2"
  run_opkit 1 check "build/torch-$1-cuda/libtally.so" --torch "$2"
  expect_contains "$work/out" "WILL NOT LOAD against torch $2 on manylinux"
  expect_contains "$work/out" "error \\[dual-abi-mismatch\\] .* than torch $2's"
  expect_contains "$work/out" "fix: rebuild with the framework's ABI flag: opkit build --torch $2"
  run_opkit 1 check "build/torch-$1-cuda/libtally.so" --torch "$2" --json
  python3 - "$work/out" "$symbol" <<'PY'
import json, sys
report, symbol = json.load(open(sys.argv[1])), sys.argv[2]
named = {s["mangled"]: f["kind"] for f in report["findings"] for s in f["symbols"]}
assert named.get(symbol) == "dual-abi-mismatch", (symbol, named)
# The cause first: the ABI mismatch alone explains the failure; what the other
# release's toolchain brings (symbol versions) says it follows from it.
kinds = [f["kind"] for f in report["findings"]]
assert kinds[0] == "dual-abi-mismatch", kinds
for f in report["findings"][1:]:
    if f["severity"] == "error" and f["kind"] in ("version-too-new", "unresolved-symbol", "framework-symbol-missing"):
        assert "follows from [dual-abi-mismatch] above" in f["diagnosis"], f
PY
}
refused 2.8.0 2.5.1
refused 2.5.1 2.8.0

# `opkit test`: each library into its own torch's real libtorch_cpu.so, through
# the load probe (load_probe.c, and a reporter built per SDK that reads the
# dispatcher): the schemas and the dispatch keys with kernels, locked in opkit.lock.
# The probe fetches the CUDA runtime libtorch_cpu needs with pip, once per SDK
# (from the wheels fetch-wheels.sh keeps, when pip finds them there).
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
run_opkit 0 test
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/libtally\.so into the real libtorch_cpu \($v\)"
done
expect_contains "$work/out" '^  op     tally::zero_out\(Tensor x\) -> Tensor$'
expect_contains "$work/out" '^  kernel tally::zero_out on CPU$'
expect_contains "$work/out" '^  kernel tally::zero_out on Autograd$'
expect_contains "$work/out" '^  matches opkit.yaml$'
expect_contains "$work/out" 'opkit.lock: written'
for v in 2.5.1 2.8.0; do
  python3 - opkit.lock "$v" <<'PY'
import sys
text, v = open(sys.argv[1]).read(), sys.argv[2]
entry = text.split("library tally torch-%s-cuda\n" % v)[1].split("\n\n")[0]
assert entry.splitlines() == ["op tally::zero_out", "  schema tally::zero_out(Tensor x) -> Tensor",
                              "kernel tally::zero_out Autograd", "kernel tally::zero_out CPU"], entry
PY
done
run_opkit 0 test --json
expect_json_schema opkit.test-1 "$work/out"
run_opkit 0 test
expect_contains "$work/out" 'opkit.lock: unchanged'
# The probe is the real loader too: 2.8.0's library in 2.5.1 is refused with the symbol check named.
run_opkit 1 test build/torch-2.8.0-cuda/libtally.so --torch 2.5.1
expect_contains "$work/out" '^torch-2\.5\.1-cuda: LOAD FAILED'
expect_contains "$work/out" "undefined symbol: $(cat "$work/symbol-2.8.0-in-2.5.1")\$"

# What opkit.yaml declares is compared with what the dispatcher holds: a
# schema that differs, and a dispatch key with no kernel, are each a MISMATCH.
cp opkit.yaml "$work/opkit.yaml.good"
sed -i 's/zero_out(Tensor x) -> Tensor"/zero_out(Tensor x, int keep=1) -> Tensor"/; s/kernels: \[CPU, Autograd\]/kernels: [CPU, Autograd, Meta]/' opkit.yaml
run_opkit 1 test --torch 2.8
expect_contains "$work/out" '^  MISMATCH tally::zero_out: opkit\.yaml declares tally::zero_out\(Tensor x, int keep=1\) -> Tensor, the library registered tally::zero_out\(Tensor x\) -> Tensor$'
expect_contains "$work/out" '^  MISMATCH no Meta kernel registered for tally::zero_out$'
cp "$work/opkit.yaml.good" opkit.yaml

# `opkit test --python`: the template's vectors in a venv with each real torch
# from PyPI (2.5.1 with Python 3.10, 2.8.0 with 3.11; made once, in the shared
# cache), the library loaded by torch.ops.load_library and called as
# torch.ops.tally.zero_out.
run_opkit 0 test --python
for v in 2.5.1 2.8.0; do
  grep -A6 "^torch $v (Python): .*/torch-$v-py3\.1[01]/bin/python$" "$work/out" >"$work/one" || fail "no run in torch $v"
  expect_contains "$work/one" "^  .*/build/torch-$v-cuda/libtally\.so$"
  expect_contains "$work/one" '^    tally::zero_out \(torch\.ops\.tally\.zero_out\) vector 0 "keeps the first element": ok$'
  expect_contains "$work/one" '^    tally::zero_out \(torch\.ops\.tally\.zero_out\) vector 1 "float, dtype inferred": ok$'
  expect_contains "$work/one" '^    tally::zero_out \(torch\.ops\.tally\.zero_out\) vector 2 "an empty tensor is refused": ok$'
  expect_contains "$work/one" '^  all test vectors match$'
done
[ -f "$OPKIT_VENVS/torch-2.5.1-py3.10/.opkit-complete" ] || fail "no torch 2.5.1 venv in the shared cache"
[ -f "$OPKIT_VENVS/torch-2.8.0-py3.11/.opkit-complete" ] || fail "no torch 2.8.0 venv in the shared cache"
run_opkit 0 test --python --json
expect_json_schema opkit.test-python-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["ok"], report
got = sorted((r["framework"], r["version"], r["vector"], r["ok"]) for r in report["records"])
assert got == [("torch", v, i, True) for v in ("2.5.1", "2.8.0") for i in range(3)], got
assert report["records"][0]["actual"] == {"outputs": {"output": [[5, 0], [0, 0]]}}, report["records"][0]
PY

# `opkit package wheel`: one library per torch release in one wheel, which
# requires no torch; installed beside each real torch, it loads the library
# built for that release (the loader picks it at import) and computes.
run_opkit 0 package wheel
expect_contains "$work/out" 'requires no PyTorch distribution: uses the installed one'
wheel=$(ls dist/tally-0.1.0-py3-none-*.whl)
unzip -l "$wheel" >"$work/listing"
for v in 2.5.1 2.8.0; do
  expect_contains "$work/listing" " tally/torch-$v/libtally\.so\$"
done
for v in 2.5.1:3.10 2.8.0:3.11; do
  version=${v%%:*} venv="$OPKIT_VENVS/torch-${v%%:*}-py${v##*:}"
  "$venv/bin/pip" install --quiet --no-index --no-deps --target "$work/site-$version" "$wheel" ||
    fail "pip could not install $wheel beside torch $version"
  PYTHONPATH="$work/site-$version" "$venv/bin/python" - >"$work/imported" 2>"$work/imported.err" <<'PY' ||
import torch
import tally
from tally import tally_ops
x = torch.tensor([[5, 4], [3, 2]], dtype=torch.int32)
assert tally.zero_out(x).tolist() == [[5, 0], [0, 0]], tally.zero_out(x)
print(torch.__version__, tally_ops._library_path())
PY
    { cat "$work/imported.err" >&2; fail "the wheel did not work beside torch $version"; }
  expect_contains "$work/imported" "^$version\+cu[0-9]+ $work/site-$version/tally/torch-$version/libtally\.so\$"
done

# A kernel broken in the new-ABI torch only (a per-version define of
# opkit.yaml): 2.8.0's values are wrong and shown, 2.5.1 still passes.
sed -i 's/^#include <torch\/library.h>/#include <torch\/library.h>\n#ifndef TALLY_FILL\n#define TALLY_FILL 0\n#endif/' src/tally_kernels.cpp
grep -q TALLY_FILL src/tally_kernels.cpp || fail "the kernel has no include of torch/library.h to add the define after"
sed -i 's/at::zeros_like(input);/at::full_like(input, TALLY_FILL);/' src/tally_kernels.cpp
grep -q 'at::full_like(input, TALLY_FILL);' src/tally_kernels.cpp || fail "the template's kernel changed: adapt this test"
cat >>opkit.yaml <<'YAML'
build:
  when:
    - torch: ">=2.7"
      defines: [TALLY_FILL=7]
YAML
run_opkit 0 build
run_opkit 1 test --python
grep -A12 '^torch 2\.8\.0 (Python)' "$work/out" >"$work/one"
expect_contains "$work/one" '^    tally::zero_out \(torch\.ops\.tally\.zero_out\) vector 0 "keeps the first element": MISMATCH$'
expect_contains "$work/one" '^      expected output = \[\[5,0\],\[0,0\]\]$'
expect_contains "$work/one" '^      actual   output = \[\[5,7\],\[7,7\]\]$'
expect_contains "$work/one" '^  FAILED$'
grep -A6 '^torch 2\.5\.1 (Python)' "$work/out" >"$work/one"
expect_contains "$work/one" '^  all test vectors match$'
