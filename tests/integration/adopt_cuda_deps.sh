# A Bazel tree whose GPU kernel comes only through `deps = [...] +
# if_cuda_is_configured([":x_gpu"])`, a cc_library of the .cu.cc, as the
# official custom-op example's GPU op has it (tests/fixtures/cuda_deps_ops):
# init puts the .cu.cc under `when: device: gpu`, the CPU build leaves it out,
# the CUDA build compiles it with nvcc and its GPU kernel registers in the real
# CUDA framework. No hand edits.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/cuda_deps_ops" cuda_deps_ops
cd cuda_deps_ops
run_opkit 0 init --tf 2.10.1 --ops
cat "$work/out" "$work/err" >"$work/init.out"
expect_contains "$work/init.out" 'scale_rows/BUILD:[0-9]+ cc_binary "_scale_rows_ops\.so" \(2 sources, 1 GPU source'
python3 - opkit.yaml <<'PY'
import sys
text = open(sys.argv[1]).read()
assert "output: _scale_rows_ops.so" in text, text
assert "      - device: gpu\n        sources: [scale_rows/scale_rows_kernels.cu.cc]" in text, text
assert '"factor: float = 2"' in text, text
PY
run_opkit 0 build --tf 2.10.1,tensorflow-2.10.1-cuda --runtime host
expect_contains "$work/out" '^tf-2\.10\.1 +built'
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built'
python3 - <<'PY'
import json
cpu = json.load(open("build/tf-2.10.1/compile_commands.json"))
cuda = json.load(open("build/tf-2.10.1-cuda/compile_commands.json"))
assert not [c for c in cpu if c["file"].endswith(".cu.cc")], "the CPU build compiled the GPU source"
device = [c for c in cuda if c["file"].endswith("scale_rows_kernels.cu.cc")]
assert device and device[0]["arguments"][0].endswith("nvcc"), device
PY
run_opkit 0 test --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" '^  kernel ScaleRows on GPU: T in \{float\}$'
expect_contains "$work/out" '^  matches opkit\.yaml$'
echo "PASS: adopt_cuda_deps"
