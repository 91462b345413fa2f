#!/usr/bin/env bash
# Runs opkit's CUDA kernels on a real GPU and checks their values.
#
#   scripts/gpu-check.sh          (here, no GPU needed) with opkit itself: imports the
#                                 CUDA SDK tensorflow-2.10.1-cuda from the official wheel,
#                                 builds `opkit new gpu_op --cuda` and the acme_ops
#                                 fixture's resampler for it, links the harnesses of
#                                 tests/gpu/ against opkit's .cu.cc objects, and puts
#                                 the binaries (and libtensorflow_framework.so.2, which
#                                 the resampler's object needs) into .gpu-carry/bin.
#                                 Each binary is started once: without a GPU it must
#                                 say "no CUDA device" and exit 77.
#   scripts/gpu-check.sh --run    (on the GPU machine) nvidia-smi, then every harness;
#                                 the log goes to $OUT/gpu-check.log (else .gpu-carry/).
#
# Two builds of each kernel are run: `opkit`, the object exactly as opkit build
# compiled it, and `sm90`, the same nvcc command (from compile_commands.json)
# plus -gencode for sm_90 machine code, since opkit passes no -arch/-gencode and
# nvcc's default is sm_52 (CUDA 11.8, which builds TF 2.10.1's device code) or
# sm_75 (CUDA 13) code + PTX (the driver JITs it on Hopper). The harnesses are
# compiled by the nvcc opkit used. PyTorch's CUDA kernels (torch-op --cuda,
# tests/fixtures/scatterkit) are not run here: a GPU machine would need each
# release's torch (5 GB venvs, libtorch_cuda.so), beyond what can be carried.
#
# Environment: OPKIT (default build/opkit), GPU_CHECK_WORK (default
# /tmp/opkit-gpu-check), TF_CUDA_WHEEL (default the tensorflow 2.10.1 wheel in
# ~/.cache/opkit-test/wheels/tf-2.10.1-cuda), CUDA_HOME (default /usr/local/cuda).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
carry=$repo/.gpu-carry

# ---------------------------------------------------------------- --run (device)
run_device() {
  bin=$carry/bin
  echo "=== host: $(uname -srm); $(ldd --version 2>&1 | head -n 1)"
  nvidia-smi -L || echo "nvidia-smi -L failed"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv || true
  echo "=== device code in each object (from the build machine)"
  cat "$carry/archs.txt"
  command -v cuobjdump >/dev/null && for o in "$carry"/obj/*.o; do
    echo "--- cuobjdump --list-elf --list-ptx $(basename "$o")"
    cuobjdump --list-elf --list-ptx "$o" || true
  done
  failed=()
  for exe in template_kernel_check_opkit template_kernel_check_sm90 resampler_check_opkit resampler_check_sm90; do
    echo "=== $exe"
    rc=0
    timeout 60 "$bin/$exe" || rc=$?
    echo "=== $exe: exit $rc"
    [ "$rc" -eq 0 ] || failed+=("$exe($rc)")
  done
  # The sm90 builds must not need the JIT; opkit's own objects (sm_75 + PTX) do
  # on Hopper: with the JIT disabled, they are expected to fail to launch. The
  # JIT cache is off too: the runs above filled it, and with it a first try
  # (2026-11-26) ran opkit's objects with CUDA_DISABLE_PTX_JIT=1 all the same.
  echo "=== sm90 builds with CUDA_DISABLE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 (must pass: native sm_90 code)"
  for exe in template_kernel_check_sm90 resampler_check_sm90; do
    rc=0
    CUDA_DISABLE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 timeout 60 "$bin/$exe" >"$out/nojit-$exe.txt" 2>&1 || rc=$?
    echo "$exe (no JIT): exit $rc, $(grep -c '^PASS' "$out/nojit-$exe.txt") PASS, $(grep -c '^FAIL' "$out/nojit-$exe.txt") FAIL"
    [ "$rc" -eq 0 ] || failed+=("$exe-nojit($rc)")
  done
  echo "=== informative: opkit's objects with CUDA_DISABLE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 (no sm_90 code: launch failures expected)"
  for exe in template_kernel_check_opkit resampler_check_opkit; do
    rc=0
    CUDA_DISABLE_PTX_JIT=1 CUDA_CACHE_DISABLE=1 timeout 60 "$bin/$exe" >"$out/nojit-$exe.txt" 2>&1 || rc=$?
    echo "$exe (no JIT): exit $rc; first lines:"
    grep -m 3 -E '^(FAIL|PASS)|Check failed|error' "$out/nojit-$exe.txt" || head -n 3 "$out/nojit-$exe.txt"
  done
  # Bounded: skipped when the runs above took long (the caller's limit is about 300 s).
  if command -v compute-sanitizer >/dev/null && [ "$SECONDS" -lt 120 ]; then
    echo "=== compute-sanitizer memcheck on opkit's objects"
    for exe in template_kernel_check_opkit resampler_check_opkit; do
      rc=0
      timeout 75 compute-sanitizer --tool memcheck --leak-check no "$bin/$exe" >"$out/memcheck-$exe.txt" 2>&1 || rc=$?
      echo "$exe under memcheck: exit $rc; $(grep -E 'ERROR SUMMARY' "$out/memcheck-$exe.txt" || echo 'no summary')"
      [ "$rc" -eq 0 ] || failed+=("$exe-memcheck($rc)")
    done
  else
    echo "=== compute-sanitizer memcheck skipped (not installed, or ${SECONDS}s gone)"
  fi
  if [ ${#failed[@]} -eq 0 ]; then
    echo "gpu-check: PASS"
  else
    echo "gpu-check: FAIL: ${failed[*]}"
    return 1
  fi
}
if [ "${1:-}" = "--run" ]; then
  cd "$repo"
  out=${OUT:-$carry/out}
  mkdir -p "$out"
  run_device 2>&1 | tee "$out/gpu-check.log"
  exit "${PIPESTATUS[0]}"
fi

# ---------------------------------------------------------------- build (here)
[ $# -eq 0 ] || { echo "usage: $0 [--run]" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
opkit=${OPKIT:-$repo/build/opkit}
work=${GPU_CHECK_WORK:-/tmp/opkit-gpu-check}
wheel=${TF_CUDA_WHEEL:-$(find "${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/wheels/tf-2.10.1-cuda" -name '*.whl' 2>/dev/null | sort | head -n 1)}
[ -x "$opkit" ] || { echo "no opkit at $opkit (OPKIT_BUILD_TARGETS=opkit bash scripts/build.sh)" >&2; exit 2; }
[ -x "$nvcc" ] || { echo "no nvcc at $nvcc" >&2; exit 2; }
grep -qx '/.gpu-carry/' "$repo/.git/info/exclude" 2>/dev/null || { mkdir -p "$repo/.git/info"; echo '/.gpu-carry/' >>"$repo/.git/info/exclude"; }

export OPKIT_HOME=$work/home OPKIT_CONFIG=$work/no-user-config.yaml
mkdir -p "$work"
sdk_id=tensorflow-2.10.1-cuda
if ! "$opkit" sdk info "$sdk_id" >/dev/null 2>&1; then
  [ -f "$wheel" ] || { echo "no TF 2.10.1 CUDA wheel (set TF_CUDA_WHEEL; scripts/fetch-wheels.sh)" >&2; exit 2; }
  echo "+ opkit sdk add $wheel"
  "$opkit" sdk add "$wheel" >"$work/sdk-add.log"
fi
sdk=$OPKIT_HOME/sdks/$sdk_id

# (a) the tensorflow-op template with --cuda
cd "$work"
if [ ! -d gpu_op ]; then
  echo "+ opkit new gpu_op --template tensorflow-op --cuda"
  "$opkit" new gpu_op --template tensorflow-op --cuda >/dev/null
fi
echo "+ (gpu_op) opkit build --tf $sdk_id"
(cd gpu_op && "$opkit" build --tf "$sdk_id" >"$work/gpu_op-build.log" 2>&1) || { tail -n 30 "$work/gpu_op-build.log" >&2; exit 1; }
# (b) the acme_ops fixture's resampler (opkit init writes its opkit.yaml)
if [ ! -f acme_ops/opkit.yaml ]; then
  rm -rf acme_ops
  cp -r "$repo/tests/fixtures/acme_ops" acme_ops
  echo "+ (acme_ops) opkit init --tf $sdk_id"
  (cd acme_ops && "$opkit" init --tf "$sdk_id" >/dev/null)
fi
echo "+ (acme_ops) opkit build --tf $sdk_id --runtime host --lib resampler"
(cd acme_ops && "$opkit" build --tf "$sdk_id" --runtime host --lib resampler >"$work/acme-build.log" 2>&1) ||
  { tail -n 30 "$work/acme-build.log" >&2; exit 1; }

rm -rf "$carry"
mkdir -p "$carry/bin" "$carry/obj" "$carry/build"

# nvcc_args <project> <source suffix> <what>: opkit's nvcc command for that .cu.cc from
# compile_commands.json, one argument a line. what=all: the whole command (the
# directory first); what=flags: without nvcc, -c, the source, -o and its -include.
nvcc_args() {
  python3 - "$work/$1/build/tf-2.10.1-cuda/compile_commands.json" "$2" "$3" <<'PY'
import json, sys
entries = [e for e in json.load(open(sys.argv[1])) if e["file"].endswith(sys.argv[2])]
assert len(entries) == 1, entries
args, what = entries[0]["arguments"], sys.argv[3]
if what == "all":
    print(entries[0]["directory"])
    print("\n".join(args))
    sys.exit()
out, skip = [], False
for a in args[1:]:
    if skip:
        skip = False
    elif a in ("-c", "-o"):
        skip = True
    elif a.startswith("-Xcompiler=-include,") or a in ("-x", "cu"):
        pass
    else:
        out.append(a)
print("\n".join(out))
PY
}

sm90=(-gencode "arch=compute_75,code=[compute_75,sm_75]" -gencode "arch=compute_90,code=sm_90")

# build_kernel <project> <source suffix> <name>: copies opkit's object to obj/<name>_opkit.o
# and compiles obj/<name>_sm90.o with opkit's exact command plus the sm_90 -gencode.
build_kernel() {
  local project=$1 suffix=$2 name=$3 dir obj
  mapfile -t cmd < <(nvcc_args "$project" "$suffix" all)
  dir=${cmd[0]}
  cmd=("${cmd[@]:1}")
  for ((i = 0; i < ${#cmd[@]}; i++)); do [ "${cmd[$i]}" = "-o" ] && obj=${cmd[$((i + 1))]}; done
  cp "$dir/$obj" "$carry/obj/${name}_opkit.o"
  printf '%q ' "${cmd[@]}" >"$carry/build/${name}.opkit-nvcc.txt"
  for ((i = 0; i < ${#cmd[@]}; i++)); do [ "${cmd[$i]}" = "-o" ] && cmd[i + 1]=$carry/obj/${name}_sm90.o; done
  echo "+ (${name}) opkit's nvcc command + ${sm90[*]}"
  (cd "$dir" && "${cmd[@]}" "${sm90[@]}" 2>"$carry/build/${name}_sm90.stderr")
}

# build_harness <harness> <project> <source suffix> <name> [link args...]: the harness
# compiled with opkit's flags for that source (+ the sm_90 -gencode), linked with each object.
build_harness() {
  local harness=$1 project=$2 suffix=$3 name=$4 variant used
  shift 4
  mapfile -t flags < <(nvcc_args "$project" "$suffix" flags)
  # The nvcc opkit used (for TF 2.10.1: its fetched CUDA 11.8, with -ccbin g++-11 among the flags).
  used=$(nvcc_args "$project" "$suffix" all | sed -n 2p)
  echo "+ $used (opkit's flags for $suffix) ${sm90[*]} -c tests/gpu/$harness.cu"
  "$used" "${flags[@]}" "${sm90[@]}" -I"$repo/tests/gpu" -c "$repo/tests/gpu/$harness.cu" \
    -o "$carry/build/$harness.o" 2>"$carry/build/$harness.stderr" || { cat "$carry/build/$harness.stderr" >&2; exit 1; }
  local ccbin=()
  for ((i = 0; i < ${#flags[@]}; i++)); do [ "${flags[$i]}" = "-ccbin" ] && ccbin=(-ccbin "${flags[$((i + 1))]}"); done
  for variant in opkit sm90; do
    "$used" "${ccbin[@]}" "${sm90[@]}" -cudart static "$carry/build/$harness.o" "$carry/obj/${name}_${variant}.o" \
      -o "$carry/bin/${harness}_${variant}" "$@"
  done
}

build_kernel gpu_op gpu_op_kernels.cu.cc template
build_kernel acme_ops resampler_kernels.cu.cc resampler

# What the resampler's object needs from TensorFlow (TF_CHECK_OK, LogMessageFatal, Status):
# libtensorflow_framework.so.2 of the SDK, found next to the binary ($ORIGIN).
nm -C --undefined-only "$carry/obj/template_opkit.o" | grep -q tensorflow:: && { echo "template object needs TF now" >&2; exit 1; }
nm -C --undefined-only "$carry/obj/resampler_opkit.o" | grep tensorflow:: >"$carry/build/resampler-needs-tf.txt" || true
cp "$sdk/lib/libtensorflow_framework.so.2" "$carry/bin/"
build_harness template_kernel_check gpu_op gpu_op_kernels.cu.cc template
build_harness resampler_check acme_ops resampler_kernels.cu.cc resampler \
  -I"$work/acme_ops" -L"$carry/bin" -l:libtensorflow_framework.so.2 -Xlinker "-rpath,\$ORIGIN"

# The device code each object carries, read from its .nv_fatbin (no cuobjdump here).
python3 - "$carry"/obj/*.o >"$carry/archs.txt" <<'PY'
import os, struct, subprocess, sys, tempfile
for obj in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", obj, d + "/fb"], check=True)
        data = open(d + "/fb", "rb").read()
    found, off = set(), 0
    while off + 16 <= len(data):
        magic, _, hsize, fsize = struct.unpack_from("<IHHQ", data, off)
        if magic != 0xBA55ED50:
            off += 8
            continue
        p, end = off + hsize, off + hsize + fsize
        while p < end:
            kind, _, ehs, size = struct.unpack_from("<HHIQ", data, p)
            arch = struct.unpack_from("<I", data, p + 28)[0]
            found.add({1: "PTX", 2: "SASS"}.get(kind, f"kind{kind}") + f" sm_{arch}")
            p += ehs + size
        off = end
    print(f"{os.path.basename(obj)}: {', '.join(sorted(found)) or 'no device code'}")
PY
cat "$carry/archs.txt"

# Here (no GPU): every binary starts and says so.
for exe in "$carry"/bin/*_check_*; do
  rc=0
  "$exe" >"$work/smoke.txt" 2>&1 || rc=$?
  echo "smoke $(basename "$exe"): exit $rc: $(head -n 1 "$work/smoke.txt")"
  if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 77 ] && grep -q 'no CUDA device' "$work/smoke.txt"; }; then
    echo "gpu-check: $(basename "$exe") did not start cleanly" >&2
    exit 1
  fi
done
du -sh "$carry"
echo "built into $carry; on the GPU machine: bash scripts/gpu-check.sh --run (carry .gpu-carry)"
