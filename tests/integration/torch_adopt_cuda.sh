# `opkit init` on a torch extension with its CUDA kernel in csrc/cuda/*.cu
# (tests/fixtures/scatterkit: one CUDAExtension in setup.py), unedited: the
# .cu is a GPU source (`when: device: gpu`), built for torch 2.5.1 and 2.8.0
# with CUDA 12's nvcc (their own major: CUDA 12.4 and 12.8), and the real
# dispatcher of each holds its CUDA kernel beside the CPU one. The values
# come from each release's real torch (the CPU kernel: no GPU here).
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/scatterkit" .
cd scatterkit

run_opkit 0 init --ops --torch 2.5,2.8
expect_contains "$work/out" '^found: library scatter <- setup\.py:[0-9]+ CUDAExtension "_scatter\.so" \(2 sources, 1 GPU source\)$'
expect_contains "$work/out" '^found: CUDA kernel of scatterkit::scatter_sum \(csrc/cuda/scatter_cuda\.cu:[0-9]+\), CUDA builds only$'
python3 - opkit.yaml <<'PY'
import sys
text = open(sys.argv[1]).read()
assert "      - device: gpu\n        sources: [csrc/cuda/scatter_cuda.cu]" in text, text
assert "kernels: [CPU, CUDA]" in text, text
PY
# A value test, as a user adds one (the CPU kernel computes it in each real torch).
cat >>opkit.yaml <<'YAML'
        tests:
          - name: rows summed into their buckets
            inputs: {src: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], index: {dtype: int64, value: [0, 1, 0]}, buckets: 2}
            outputs: {output: [[6.0, 8.0], [3.0, 4.0]]}
YAML

run_opkit 0 build
cp "$work/err" "$work/build.err"
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda +built \\(4 compiled\\)"
  expect_contains "$work/build.err" "^torch-$v-cuda: device code by opkit's CUDA 12\\.4 "
  "$OPKIT_CUDA_TOOLCHAINS/cuda-12.4/usr/bin/cuobjdump" -ptx "build/torch-$v-cuda/_scatter.so" >"$work/ptx"
  expect_contains "$work/ptx" '^\.version 8\.[0-9]$'
done
run_opkit 0 test
for v in 2.5.1 2.8.0; do
  grep -A5 "^torch-$v-cuda: loaded .*/_scatter\\.so" "$work/out" >"$work/one"
  expect_contains "$work/one" '^  kernel scatterkit::scatter_sum on CUDA$'
  expect_contains "$work/one" '^  kernel scatterkit::scatter_sum on CPU$'
  expect_contains "$work/one" '^  matches opkit\.yaml$'
done
run_opkit 0 test --python
[ "$(grep -c 'vector 0 "rows summed into their buckets": ok$' "$work/out")" -eq 2 ] ||
  fail "the value test did not pass in both releases"
echo "PASS: torch_adopt_cuda"
