# Fixture: the official wheels (1.12.0, 2.10.1 CPU, 1.15.5, 2.10.1 CUDA, 2.15.1 CPU for cp311;
# torch 2.5.1 for cp310, 2.8.0 and 2.15.0 for cp311, tensorflow-addons 0.18.0 for cp310),
# downloaded once with pip into a shared cache.
source "$(dirname "$0")/common.sh"
bash "$OPKIT_SOURCE_DIR/scripts/fetch-wheels.sh" >"$work/wheels"
[ "$(wc -l <"$work/wheels")" -eq 13 ] || fail "expected thirteen wheels"
expect_contains "$work/wheels" 'tensorflow-1\.12\.0-cp36-cp36m-manylinux1_x86_64\.whl$'
expect_contains "$work/wheels" 'tensorflow_cpu-2\.10\.1-cp310-cp310-manylinux.*manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'tensorflow-1\.15\.5-cp37-cp37m-manylinux2010_x86_64\.whl$'
expect_contains "$work/wheels" 'tf-2\.10\.1-cuda/tensorflow-2\.10\.1-cp310-cp310-manylinux.*manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'tf-2\.15\.1-cp311/tensorflow_cpu-2\.15\.1-cp311-cp311-manylinux.*manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'tfa-0\.18\.0/tensorflow_addons-0\.18\.0-cp310-cp310-manylinux.*manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'torch-2\.5\.1/torch-2\.5\.1-cp310-cp310-manylinux1_x86_64\.whl$'
expect_contains "$work/wheels" 'torch-2\.8\.0/torch-2\.8\.0-cp311-cp311-manylinux_2_28_x86_64\.whl$'
expect_contains "$work/wheels" 'torch-2\.15\.0/torch-2\.15\.0-cp311-cp311-manylinux_2_28_x86_64\.whl$'
# The CUDA runtime each torch's METADATA pins (libtorch_cpu.so needs its libcudart and libcupti).
expect_contains "$work/wheels" 'torch-2\.5\.1-cuda-runtime/nvidia_cuda_runtime_cu12-12\.4\.127-py3-none-manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'torch-2\.5\.1-cuda-runtime/nvidia_cuda_cupti_cu12-12\.4\.127-py3-none-manylinux2014_x86_64\.whl$'
expect_contains "$work/wheels" 'torch-2\.8\.0-cuda-runtime/nvidia_cuda_runtime_cu12-12\.8\.90-py3-none-manylinux.*\.whl$'
expect_contains "$work/wheels" 'torch-2\.8\.0-cuda-runtime/nvidia_cuda_cupti_cu12-12\.8\.90-py3-none-manylinux.*\.whl$'
