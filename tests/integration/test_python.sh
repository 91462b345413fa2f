# opkit test --python: the template's op runs on its test vectors in a real
# TensorFlow of each target version (1.12.0 with Python 3.6, 2.10.1 with Python
# 3.10: venvs opkit makes once, in the tests' shared cache), on the libraries
# `opkit build` made; a kernel broken in one version fails there only, with
# the values shown; without the Python a version needs, one line says which.
source "$(dirname "$0")/common.sh"
run_opkit 0 new vec_op --tf 1.12,2.10.1
cd vec_op
# Not built yet: named, exit 3.
run_opkit 3 test --python --no-build
expect_contains "$work/err" 'not built for tensorflow-1\.12\.0.*opkit build --tf 1\.12'
run_opkit 0 build
run_opkit 0 test --python
for v in 1.12.0 2.10.1; do
  grep -A4 "^tensorflow $v (Python): .*/tf-$v-py3\.[0-9]*/bin/python$" "$work/out" >"$work/one" || fail "no run in $v"
  expect_contains "$work/one" "^  .*/build/tf-$v/libvec_op\.so$"
  expect_contains "$work/one" '^    VecOp \(vec_op\) vector 0: ok$'
  expect_contains "$work/one" '^    VecOp \(vec_op\) vector 1: ok$'
  expect_contains "$work/one" '^  all test vectors match$'
done
[ -f "$OPKIT_VENVS/tf-1.12.0-py3.6/.opkit-complete" ] || fail "no TF 1.12.0 venv in the shared cache"
[ -f "$OPKIT_VENVS/tf-2.10.1-py3.10/.opkit-complete" ] || fail "no TF 2.10.1 venv in the shared cache"

# A kernel broken on TF 1.x only (a define of opkit.yaml for <2.0): 1.12 fails, 2.10.1 passes.
sed -i 's/output(i) = i == 0 ? input(0) : T(0);/output(i) = i == 0 ? input(0) : T(VEC_FILL);/' src/vec_op_kernels.cc
sed -i '1i #ifndef VEC_FILL\n#define VEC_FILL 0\n#endif' src/vec_op_kernels.cc
cat >>opkit.yaml <<'YAML'
build:
  when:
    - tensorflow: "<2.0"
      defines: [VEC_FILL=1]
YAML
run_opkit 0 build
run_opkit 1 test --python
grep -A8 '^tensorflow 1\.12\.0 (Python)' "$work/out" >"$work/one"
expect_contains "$work/one" '^    VecOp \(vec_op\) vector 0: MISMATCH$'
expect_contains "$work/one" '^      expected zeroed = \[\[5,0\],\[0,0\]\]$'
expect_contains "$work/one" '^      actual   zeroed = \[\[5,1\],\[1,1\]\]$'
expect_contains "$work/one" '^  FAILED$'
grep -A5 '^tensorflow 2\.10\.1 (Python)' "$work/out" >"$work/one"
expect_contains "$work/one" '^  all test vectors match$'

# No Python 3.6 anywhere opkit looks (and no venv made yet): exit 3, naming the version and the variable.
OPKIT_VENVS="$work/no-venvs" PATH=/usr/bin:/bin PYENV_ROOT="$work/no-pyenv" run_opkit 3 test --python --tf 1.12
expect_one_error_line
expect_contains "$work/err" 'Python 3\.6: no interpreter found \(needed for tensorflow 1\.12\.0.*OPKIT_PYTHON_3_6='
