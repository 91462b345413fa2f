# A CUDA SDK whose framework cannot load on this machine (TF 1.12's CUDA build
# needs CUDA 9 and cuDNN 7, which no machine here has): opkit builds for it,
# and `opkit test` says which libraries are missing and where they come from,
# exit 3, instead of a crashed probe. The SDK is fetched from PyPI with range
# requests (about 19 MB of the 282 MB wheel) into this test's own home.
source "$(dirname "$0")/common.sh"

export OPKIT_HOME="$work/home"
run_opkit 0 sdk fetch tensorflow==1.12.0 --variant gpu
expect_contains "$work/out" '^tensorflow-1\.12\.0-cuda: fetched tensorflow_gpu-1\.12\.0-'
run_opkit 0 new gpu_probe_op --output op
cd op
run_opkit 0 build --tf tensorflow-1.12.0-cuda
[ -f build/tf-1.12.0-cuda/libgpu_probe_op.so ] || fail "the CUDA 1.12 build made no library"
run_opkit 3 -q test --tf tensorflow-1.12.0-cuda
expect_one_error_line
expect_contains "$work/err" '^opkit: error: tensorflow-1\.12\.0-cuda: the framework cannot load on this machine: it needs .*libcublas\.so\.9\.0'
expect_contains "$work/err" 'libcudnn\.so\.7'
expect_contains "$work/err" 'libcudart\.so\.9\.0'
expect_contains "$work/err" 'CUDA toolkit and cuDNN'
if grep -q 'crashed' "$work/err"; then fail "a missing CUDA library is reported as a crash"; fi
echo "PASS: probe_framework_cannot_load"
