# CUDA kernels for PyTorch: `opkit new --template torch-op --cuda`, built for
# torch 2.5.1 and 2.8.0 (both CUDA 12 builds: version.py says 12.4 and 12.8)
# with CUDA 12's nvcc (opkit's CUDA 12.4, fetched once: configs/cuda/
# toolchains.yaml), not this machine's CUDA 13. The kernel links libc10_cuda
# (kept in the SDK) and libcudart.so.12, which torch's process has loaded;
# check passes it against each release's default runtime with no CUDA
# finding, the load probe lists its CUDA kernel from the real dispatcher, and
# the real torch of each release runs the op's vectors. The same objects
# linked against CUDA 13's runtime are refused: torch 2.8 loads CUDA 12's.
# The newest torch (CUDA 13) is built by this machine's CUDA 13.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
for v in 2.5.1 2.8.0; do
  [ -f "$OPKIT_HOME/sdks/torch-$v-cuda/sdk.json" ] || fail "no torch $v SDK: the sdks_torch fixture (integration.sdk_add_torch) makes it"
done
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"

run_opkit 0 new tcu --template torch-op --cuda --torch 2.5.1,2.8.0
expect_contains "$work/out" 'src/tcu_kernels\.cu'
cd tcu
run_opkit 0 build
cp "$work/out" "$work/build.out"
cp "$work/err" "$work/build.err"
for v in 2.5.1 2.8.0; do
  expect_contains "$work/build.out" "^torch-$v-cuda +built \\(5 compiled\\)"
  expect_contains "$work/build.err" "^torch-$v-cuda: device code by opkit's CUDA 12\\.4 "
  lib=build/torch-$v-cuda/libtcu.so
  python3 - "build/torch-$v-cuda/compile_commands.json" <<'PY'
import json, sys
device = [c["arguments"] for c in json.load(open(sys.argv[1])) if c["file"].endswith(".cu")]
assert len(device) == 1 and "/cuda-12.4/" in device[0][0], device
assert device[0][device[0].index("-ccbin") + 1] == "g++-12", device[0]
PY
  "$OPKIT_CUDA_TOOLCHAINS/cuda-12.4/usr/bin/cuobjdump" -ptx "$lib" >"$work/ptx"
  expect_contains "$work/ptx" '^\.version 8\.[0-9]$'
  readelf -d "$lib" >"$work/dynamic"
  expect_contains "$work/dynamic" 'NEEDED.*\[libc10_cuda\.so\]'
  expect_contains "$work/dynamic" 'NEEDED.*\[libcudart\.so\.12\]'
  if grep -q 'libtorch_cuda' "$work/dynamic"; then fail "$lib needs libtorch_cuda.so, which no SDK keeps"; fi
  run_opkit 0 check "$lib" --torch "$v" --json
  python3 -c "import json; r=json.load(open('$work/out')); \
assert r['verdict'] == 'loads' and not [f for f in r['findings'] if f['kind'].startswith('cuda')], r['findings']"
done

# The load probe: the CUDA kernel is in each real dispatcher.
run_opkit 0 test
for v in 2.5.1 2.8.0; do
  grep -A6 "^torch-$v-cuda: loaded" "$work/out" >"$work/one"
  expect_contains "$work/one" '^  kernel tcu::zero_out on CUDA$'
  expect_contains "$work/one" '^  kernel tcu::zero_out on CPU$'
  expect_contains "$work/one" '^  matches opkit\.yaml$'
done
# The real torch of each release (no GPU here: the CPU kernel computes).
run_opkit 0 test --python
[ "$(grep -c 'vector [0-9] .*: ok$' "$work/out")" -eq 6 ] || fail "the vectors did not pass in both releases"

# Linked against CUDA 13's runtime instead (this machine's), the kernel needs
# libcudart.so.13: torch 2.8.0's process has CUDA 12's, and check says so.
cuda13=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
[ -f "$cuda13/lib64/libcudart.so" ] || fail "no CUDA 13 runtime beside nvcc: install the CUDA toolkit"
mapfile -t objects < <(find build/torch-2.8.0-cuda/obj -name '*.o' | sort)
g++ -shared -o "$work/libtcu13.so" "${objects[@]}" -L"$cuda13/lib64" -lcudart \
  -L"$OPKIT_HOME/sdks/torch-2.8.0-cuda/lib" -lc10_cuda -lc10 -ltorch_cpu
run_opkit 1 check "$work/libtcu13.so" --torch 2.8.0 --json
python3 -c "import json; r=json.load(open('$work/out')); f=[x for x in r['findings'] if x['kind']=='cuda-runtime-mismatch']; \
assert f and 'libcudart.so.13' in f[0]['summary'] and '12.8' in f[0]['summary'], r['findings']"

# The newest torch (2.15.0: CUDA 13.2) in a store of its own: this machine's
# CUDA 13 builds its kernel (its major), which links libcudart.so.13; check
# and the load probe (with CUDA 13's runtime, fetched through pip) agree.
cd "$work"
export OPKIT_HOME="$OPKIT_HOME-newest"
newest=$(ls "$(wheel_cache)"/torch-2.15.0/torch-2.15.0-*.whl 2>/dev/null | head -n 1)
[ -n "$newest" ] || fail "no torch 2.15.0 wheel in $(wheel_cache): run scripts/fetch-wheels.sh --torch"
[ -f "$OPKIT_HOME/sdks/torch-2.15.0-cuda/sdk.json" ] || run_opkit 0 sdk add "$newest"
run_opkit 0 sdk info torch-2.15.0-cuda --json
python3 -c "import json; i=json.load(open('$work/out')); t=i['cuda_toolkit']; \
assert i['cuda']['cuda_version'].startswith('13.') and t['release'].startswith('13.') and t['origin'].startswith(\"the system's\"), i"
run_opkit 0 new tcu13 --template torch-op --cuda --torch 2.15.0
cd tcu13
run_opkit 0 build
expect_contains "$work/out" '^torch-2\.15\.0-cuda +built \(5 compiled\)'
readelf -d build/torch-2.15.0-cuda/libtcu13.so >"$work/dynamic"
expect_contains "$work/dynamic" 'NEEDED.*\[libcudart\.so\.13\]'
run_opkit 0 check build/torch-2.15.0-cuda/libtcu13.so --torch 2.15.0 --json
python3 -c "import json; r=json.load(open('$work/out')); assert r['verdict'] == 'loads' and r['findings'] == [], r['findings']"
run_opkit 0 test
expect_contains "$work/out" '^  kernel tcu13::zero_out on CUDA$'
expect_contains "$work/out" '^  matches opkit\.yaml$'
echo "PASS: torch_cuda"
