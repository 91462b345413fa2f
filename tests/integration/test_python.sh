# opkit test --python: the default template's op runs on its test vectors in a
# real TensorFlow the local Python imports (a venv opkit makes), and a broken
# kernel fails with the differing values shown.
source "$(dirname "$0")/common.sh"
run_opkit 0 new vec_op
cd vec_op
run_opkit 0 test --python
expect_contains "$work/out" '^tensorflow 2\.[0-9]+\.[0-9]+ \(Python\): .*/build/tf-2\.[0-9.]+/libvec_op\.so$'
expect_contains "$work/out" '^  vector 0 zeroed: ok$'
expect_contains "$work/out" '^  vector 1 zeroed: ok$'
expect_contains "$work/out" '^  all test vectors match$'
# A broken kernel: every element but the first becomes 1 instead of 0.
sed -i 's/output(i) = i == 0 ? input(0) : T(0);/output(i) = i == 0 ? input(0) : T(1);/' src/vec_op_kernels.cc
grep -q 'T(1)' src/vec_op_kernels.cc || fail "the kernel was not broken"
run_opkit 1 test --python
expect_contains "$work/out" '^  vector 0 zeroed: MISMATCH$'
expect_contains "$work/out" '^    expected \[\[5,0\],\[0,0\]\]$'
expect_contains "$work/out" '^    got      \[\[5,1\],\[1,1\]\]$'
expect_contains "$work/out" '^  FAILED$'
