# Issue 17: the default runtimes judge as the real systems do.
# - An OpenMP op whose libm calls are unversioned references (linked without
#   -lm, as some hand-written builds are), built for 2.10.1: passes the default
#   policy (tensorflow-2.10 models libgomp.so.1, and libm's symbol names), the
#   probe loads it, and so does tf.load_op_library in the real TF 2.10.1.
# - The same op also needing a glibc symbol newer than the policy
#   (reallocarray, GLIBC_2.26) fails the policy, naming it.
# - A library built for 1.15 with this machine's toolchain passes 1.15's
#   default runtime (tensorflow-1.15: where 1.15 is run, not the wheel's tag).
source "$(dirname "$0")/common.sh"
run_opkit 0 new pol_op --tf 2.10.1
cd pol_op
python3 - <<'PY'
p = "src/pol_op_kernels.cc"
s = open(p).read()
s = s.replace('#include "tensorflow/core/framework/tensor.h"\n',
              '#include "tensorflow/core/framework/tensor.h"\n\n#include <math.h>\n#include <omp.h>\n', 1)
old = "    for (int64_t i = 0; i < n; ++i) {\n      output(i) = i == 0 ? input(0) : T(0);\n    }"
assert old in s
s = s.replace(old, """    // libm through a pointer (kept a call, not an instruction), and OpenMP.
    float (*root)(float) = sqrtf;
    float sine = 0, cosine = 0;
    sincosf(static_cast<float>(omp_get_max_threads()), &sine, &cosine);
#ifdef POL_NEW_GLIBC
    void* (*grow)(void*, size_t, size_t) = reallocarray;
    if (n < 0) grow(nullptr, 1, 1);
#endif
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) {
      output(i) = i == 0 ? input(0) : T(root(4.0f) * sine * cosine * 0);
    }""")
open(p, "w").write(s)
with open("opkit.yaml", "a") as f:
    f.write("build:\n  cflags: [-fopenmp]\n  ldflags: [-nodefaultlibs]\n  libs: [gomp, stdc++, gcc_s, c]\n")
PY
run_opkit 0 build
lib=$work/pol_op/build/tf-2.10.1/libpol_op.so
nm -D --undefined-only "$lib" >"$work/undefined"
expect_contains "$work/undefined" ' U sqrtf$'
expect_contains "$work/undefined" ' U sincosf$'
expect_contains "$work/undefined" ' U GOMP_parallel@GOMP_4\.0$'
grep -q 'NEEDED.*libm\.so' <(readelf -d "$lib") && fail "the op needs libm: its references would be versioned"
grep -q 'NEEDED.*libgomp\.so\.1' <(readelf -d "$lib") || fail "the op does not need libgomp"
run_opkit 0 check "$lib" --tf 2.10.1 --json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['verdict']=='loads' and 'tensorflow-2.10' in r['target'], r" "$work/out"
run_opkit 0 test
run_opkit 0 test --python            # the template's vectors, in the real TF 2.10.1 (makes the venv if needed)
"$OPKIT_HOME/probes/tensorflow-2.10.1/load_probe" "$lib" >"$work/probe.out" 2>&1 || fail "the probe refused the op: $(cat "$work/probe.out")"
TF_CPP_MIN_LOG_LEVEL=3 "$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python" -c '
import sys, tensorflow as tf
m = tf.load_op_library(sys.argv[1])
print("loaded", m.pol_op([3, 4]).numpy().tolist())' "$lib" >"$work/real.out" 2>&1 \
  || fail "the real TF 2.10.1 refused the op: $(cat "$work/real.out")"
expect_contains "$work/real.out" '^loaded \[3, 0\]$'

# A glibc symbol newer than the policy: refused by the default runtime, named.
sed -i 's/^  cflags: \[-fopenmp\]$/  cflags: [-fopenmp, -DPOL_NEW_GLIBC]/' opkit.yaml
grep -q POL_NEW_GLIBC opkit.yaml || fail "the test's edit of opkit.yaml did not apply"
run_opkit 1 build --build-dir build-new
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBC_2\.26.* from libc\.so\.6'
run_opkit 1 check build-new/tf-2.10.1/libpol_op.so --tf 2.10.1
expect_contains "$work/out" 'reallocarray'
expect_contains "$work/out" 'libc\.so\.6 up to GLIBC_2\.17'
expect_contains "$work/out" 'fix: build with a toolchain no newer than the target'
# A prebuilt copy (no opkit-build.json beside it): the release to install instead.
mkdir -p "$work/prebuilt" && cp build-new/tf-2.10.1/libpol_op.so "$work/prebuilt/"
run_opkit 1 check "$work/prebuilt/libpol_op.so" --tf 2.10.1
expect_contains "$work/out" 'fix: a prebuilt library: install a release of it built for a system no newer than the target'

# 1.15: built with this machine's toolchain, judged against tensorflow-1.15.
cd "$work"
run_opkit 0 new old_op --tf 1.15
cd old_op
run_opkit 0 build
lib=$work/old_op/build/tf-1.15.5/libold_op.so
objdump -T "$lib" >"$work/dynsym"
grep -q 'GLIBC_2\.1[4-9]\|GLIBC_2\.2[0-3]' "$work/dynsym" || fail "the 1.15 library needs no glibc newer than the wheel's manylinux2010 tag: the test proves nothing"
run_opkit 0 check "$lib" --tf 1.15 --json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['verdict']=='loads' and r['target'].endswith('on tensorflow-1.15'), r" "$work/out"
# ...while the wheel's tag, manylinux2010 (glibc 2.12), would refuse it.
run_opkit 1 check "$lib" --tf 1.15 --runtime manylinux2010
expect_contains "$work/out" 'version-too-new'
echo "check_runtime_policies: ok"
