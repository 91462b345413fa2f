# The tensorflow-op template: its files agree with opkit.yaml (consistency),
# and --cuda adds a GPU kernel that nvcc compiles for each TF version and that
# registers in both real frameworks (no GPU needed to build or register).
source "$(dirname "$0")/common.sh"

check_consistency() { # <project dir>
  python3 - "$1" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
yaml = (root / "opkit.yaml").read_text()
name = re.search(r"^name: (\w+)$", yaml, re.M).group(1)
op = re.search(r"^  name: (\w+)$", yaml, re.M).group(1)
inputs = re.findall(r"inputs:\n((?:    - .*\n      .*\n)+)", yaml)
op_cc = (root / "src" / f"{name}_op.cc").read_text()
kernels = (root / "src" / f"{name}_kernels.cc").read_text()
wrapper = (root / "python" / f"{name}_ops.py").read_text()
test = (root / "tests" / f"test_{name}.py").read_text()
assert re.findall(r'REGISTER_OP\("(\w+)"\)', op_cc) == [op], op_cc
assert set(re.findall(r'Name\("(\w+)"\)', kernels)) == {op}
assert '.Input("to_zero: T")' in op_cc and '.Output("zeroed: T")' in op_cc and '.Attr("T: {int32, float}")' in op_cc
assert "name: to_zero" in yaml and "name: zeroed" in yaml and "allowed: [int32, float]" in yaml
for src in re.findall(r"^  - (src/\S+)", yaml, re.M):
    assert (root / src).is_file(), src
# TF names an op's Python function in snake_case: ZeroOut -> zero_out, the project name.
snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()
assert snake == name and f"{name} = _module.{name}" in wrapper and f"from {name}_ops import {name}" in test
assert f'_LIBRARY = "lib{name}.so"' in wrapper
gpu = (root / "src" / f"{name}_kernels.cu.cc")
if gpu.exists():
    cu = gpu.read_text()
    assert "device: GPU" in yaml and f"src/{name}_kernels.cu.cc" in yaml
    assert f"void Launch{op}(" in cu and f"void Launch{op}(" in kernels and "DEVICE_GPU" in kernels
print("consistent:", root.name)
PY
}

run_opkit 0 new fancy-op
check_consistency "$work/fancy_op"
run_opkit 0 new gpu_op --cuda
check_consistency "$work/gpu_op"
run_opkit 0 new --list
expect_contains "$work/out" '^tensorflow-op +TensorFlow custom op'
run_opkit 2 new x --template oneflow-py-op --cuda
expect_contains "$work/err" "template oneflow-py-op does not take it|unknown template"

cd gpu_op
# The device code is compiled only against a CUDA build of TensorFlow (the
# `when: device: gpu` block); CPU builds compile the CPU kernels alone.
# Each fits the runtime its TF version's wheel assumes (the static CUDA
# runtime's glibc references bound too: see below).
run_opkit 0 build --tf 1.12,2.10.1,tensorflow-2.10.1-cuda
expect_contains "$work/out" '^tf-1\.12\.0 +built \(3 compiled\)'
expect_contains "$work/out" '^tf-2\.10\.1 +built \(3 compiled\)'
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built \(4 compiled\)'
python3 -c "import json; c=json.load(open('build/tf-2.10.1-cuda/compile_commands.json')); \
d=[e for e in c if e['file'].endswith('.cu.cc')][0]['arguments']; \
assert d[0].endswith('nvcc') and '-std=c++17' in d and '-D_GLIBCXX_USE_CXX11_ABI=1' in d and '-DGOOGLE_CUDA=1' in d, d; \
assert any(a.endswith('tensorflow-2.10.1-cuda/include') for a in d), d; \
assert '/cuda-11.8/' in d[0] and d[d.index('-ccbin') + 1] == 'g++-11', d"
# TF 2.10.1 was built with CUDA 11.2: its device code is CUDA 11's (PTX ISA
# 7.x), by the CUDA 11.8 toolchain opkit fetched (not this machine's nvcc).
expect_contains "$work/err" "tensorflow-2\.10\.1-cuda: device code by opkit's CUDA 11\.8 "
"$OPKIT_CUDA_TOOLCHAINS/cuda-11.8/usr/bin/cuobjdump" -ptx build/tf-2.10.1-cuda/libgpu_op.so >"$work/ptx"
expect_contains "$work/ptx" '^\.version 7\.[0-9]$'

python3 -c "import json; c=json.load(open('build/tf-2.10.1/compile_commands.json')); \
assert not [e for e in c if e['file'].endswith('.cu.cc')]; \
assert all('-DGOOGLE_CUDA=1' not in e['arguments'] for e in c), c"
readelf -S -W build/tf-2.10.1-cuda/libgpu_op.so >"$work/sections"
expect_contains "$work/sections" ' \.nv_fatbin '
run_opkit 0 test --tf 1.12,2.10.1,tensorflow-2.10.1-cuda
grep -A8 "^tensorflow-2.10.1-cuda: loaded" "$work/out" >"$work/one"
expect_contains "$work/one" '^  kernel GpuOp on GPU: T in \{(int32|float)\}$'
expect_contains "$work/one" '^  kernel GpuOp on CPU: T in \{int32\}$'
for v in 1.12.0 2.10.1; do
  grep -A8 "^tensorflow-$v: loaded" "$work/out" >"$work/one"
  expect_contains "$work/one" '^  kernel GpuOp on CPU: T in \{int32\}$'
  ! grep -q 'on GPU' "$work/one" || fail "a CPU-only build registered a GPU kernel"
done
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 3 ] || fail "not matched three times"
# Built with the framework's own CUDA major, the library asks no newer NVIDIA
# driver than TF does: no cuda-runtime warning, by the default runtime or the host's.
for runtime in "" "--runtime host"; do
  # shellcheck disable=SC2086
  run_opkit 0 check build/tf-2.10.1-cuda/libgpu_op.so --tf tensorflow-2.10.1-cuda $runtime --json
  python3 -c "import json; r=json.load(open('$work/out')); \
assert r['verdict'] == 'loads' and not [x for x in r['findings'] if x['kind'].startswith('cuda')], r['findings']"
done
# Built with this machine's CUDA 13 (cuda: system), the library needs a
# driver for CUDA 13: check warns, naming the device code's CUDA.
OPKIT_CUDA=system run_opkit 0 build --tf tensorflow-2.10.1-cuda --build-dir build-cuda13
python3 -c "import json; c=json.load(open('build-cuda13/tf-2.10.1-cuda/compile_commands.json')); \
d=[e for e in c if e['file'].endswith('.cu.cc')][0]['arguments']; assert '/cuda-11.8/' not in d[0] and '-ccbin' not in d, d"
run_opkit 0 check build-cuda13/tf-2.10.1-cuda/libgpu_op.so --tf tensorflow-2.10.1-cuda --runtime host --json
python3 -c "import json; r=json.load(open('$work/out')); f=[x for x in r['findings'] if x['kind']=='cuda-runtime']; \
assert f and f[0]['severity']=='warning' and 'statically' in f[0]['summary'] and 'CUDA 13' in f[0]['diagnosis'], r['findings']"
run_opkit 0 check build-cuda13/tf-2.10.1-cuda/libgpu_op.so --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" 'warning \[cuda-runtime\]'
# The same objects linked without any CUDA runtime (as builds relying on
# TensorFlow's own cudart stub are): described as they are, not as static.
mapfile -t gpu_objects < <(find build-cuda13/tf-2.10.1-cuda/obj -name '*.o' | sort)
g++ -shared -o "$work/libgpu_nocudart.so" "${gpu_objects[@]}" \
  -L"$OPKIT_HOME/sdks/tensorflow-2.10.1-cuda/lib" -l:libtensorflow_framework.so.2
nm -D --undefined-only "$work/libgpu_nocudart.so" >"$work/gpu_undefined"
grep -q ' U cuda\| U __cuda' "$work/gpu_undefined" || fail "the relinked GPU op calls no CUDA runtime"
rc=0
"$OPKIT" check "$work/libgpu_nocudart.so" --tf tensorflow-2.10.1-cuda --runtime host --json >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -le 1 ] || { cat "$work/err" >&2; fail "check errored ($rc) on the GPU op without cudart"; }
python3 -c "import json; r=json.load(open('$work/out')); f=[x for x in r['findings'] if x['kind']=='cuda-runtime']; \
assert f and 'calls the CUDA runtime' in f[0]['summary'] and 'statically' not in f[0]['summary'], r['findings']"
# Linked plainly (--runtime host), the static CUDA runtime's calls into glibc
# bind to this machine's GLIBC_2.34, which the stock runtime (CentOS 7) lacks.
run_opkit 0 build --tf tensorflow-2.10.1-cuda --runtime host --build-dir build-host
run_opkit 1 check build-host/tf-2.10.1-cuda/libgpu_op.so --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBC_2\.34'

# No CUDA toolkit where the system's is asked for: one line, exit 3, nothing built.
rm -rf build
OPKIT_CUDA=system PATH=/usr/bin:/bin CUDA_HOME= CUDA_PATH= run_opkit 3 build --tf tensorflow-2.10.1-cuda --runtime host
expect_one_error_line
expect_contains "$work/err" 'nvcc: CUDA toolkit not found \(needed for src/gpu_op_kernels\.cu\.cc\)'
[ ! -e build ] || fail "build/ was created without a CUDA toolkit"

# nvcc's host compiler is the table's (g++-11 for CUDA 11.8) or the one
# cuda_host_compiler names; one that is not installed: one line, exit 3, nothing built.
OPKIT_CUDA_HOST_CXX=g++-0 run_opkit 3 build --tf tensorflow-2.10.1-cuda
expect_one_error_line
expect_contains "$work/err" "CUDA 11\.8's nvcc needs g\+\+-0 as its host compiler, which is not on PATH.*cuda_host_compiler"
[ ! -e build ] || fail "build/ was created without nvcc's host compiler"

# Device code listed for every build, asked of a CPU-only SDK: one line naming the CUDA SDK to fetch.
sed -i 's#^  - src/gpu_op_kernels.cc$#  - src/gpu_op_kernels.cc\n  - src/gpu_op_kernels.cu.cc#; /^when:/,/sources: \[src\/gpu_op_kernels.cu.cc\]/d' opkit.yaml
run_opkit 3 build --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" 'tensorflow-2\.10\.1: a CPU-only build of TensorFlow cannot compile device code \(src/gpu_op_kernels\.cu\.cc of library gpu_op\).*--variant gpu'
[ ! -e build ] || fail "build/ was created for device code on a CPU-only SDK"
