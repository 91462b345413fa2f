# What runs in dlopen, as the loader runs it (issue 47): the initializers of
# every library the loader maps for the op, bundled ones included, and code
# that a constructor reaches only behind a test of the CPU. The real loaders
# are the judges, on this machine's CPU:
# - tf.load_op_library in the real TF venv (python_tf fixture, TF 2.15.1);
# - tf.load_op_library of tensorflow-cpu 2.10.1 in the Debian 11 root;
# - `opkit test` (the load probe in the real framework library) for TF 1.12.0;
# - plain dlopen (ctypes) for --runtime host.
# opkit check must agree with each, by default and with --runtime host.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/debian11_common.sh" # $root, $scratch, in_root_python
source "$OPKIT_TEST_HOME/python-tf.env"     # TF_VERSION, PYTHON
# On a CPU with AVX-512 no loader can refuse AVX-512 code: there every real
# loader and `check --runtime host` (this CPU) must load each library, while
# the default runtime (its CPU the framework's own, without AVX-512) keeps the
# verdicts the real loaders give on a CPU without AVX-512, which this test
# compares in full on such a CPU.
host_wide=0
if grep -qw avx512f /proc/cpuinfo; then
  host_wide=1
  echo "cpu_at_load: this CPU has AVX-512: the loaders are expected to load everything here" >&2
fi

# An AVX-512 constructor, written in C (no libstdc++: the Debian 11 root loads it too).
cat >wide.h <<'C'
#include <cpuid.h>
#include <stdlib.h>
int lanes, flag;
__attribute__((target("avx512f"), noinline)) static void wide(int seed) {
  int out;
  asm volatile("vpbroadcastd %1, %%zmm0\n\tvmovd %%xmm0, %0" : "=r"(out) : "r"(seed) : "xmm0");
  lanes = out;
}
C
# The op's own library for each case, and one that needs a bundled library.
cat >dep.c <<'C'
#include "wide.h"
__attribute__((constructor)) static void init(void) { wide(getenv("SEED") ? 3 : 1); }
int dep_value(void) { return lanes; }
C
echo 'int dep_value(void); int op_value(void) { return dep_value() + 1; }' >op.c
mkdir -p bundled
gcc -O2 -shared -fPIC -o bundled/libwide_dep.so dep.c
gcc -O2 -shared -fPIC -o bundled/libop.so op.c -Lbundled -lwide_dep -Wl,-rpath,'$ORIGIN'
cat >guarded.c <<'C'
#include "wide.h"
__attribute__((noinline)) int has_512(void) { return __builtin_cpu_supports("avx512f"); }
static int cpuid_512(void) { unsigned a, b, c, d; return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F); }
__attribute__((constructor)) static void init(void) {
#if SHAPE == 0
  if (__builtin_cpu_supports("avx512f")) wide(1);
#elif SHAPE == 1
  if (has_512()) wide(1);
#elif SHAPE == 2
  if (cpuid_512()) wide(1);
#else
  if (__builtin_cpu_supports("sse4.2")) flag = 1; /* a test of something else: wide runs anyway */
  wide(2);
#endif
}
C
for shape in 0 1 2 3; do gcc -O2 -DSHAPE=$shape -shared -fPIC -o "libshape$shape.so" guarded.c; done

verdict_of() { [ "$1" -eq 0 ] && echo loads || echo fails; }
cases=0
# judge <library> <loads|fails> [finding kind]: every loader and every check says so.
judge() {
  local lib=$1 target=$2 kind=${3:-} rc got name expected here_kind=${3:-}
  name=$(basename "$lib")
  expected=$target # what the loaders on this CPU do
  if [ "$host_wide" -eq 1 ]; then expected=loads; here_kind=""; fi
  rc=0; python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$work/$lib" >/dev/null 2>&1 || rc=$?
  [ "$(verdict_of $rc)" = "$expected" ] || fail "$lib: plain dlopen exit $rc, expected $expected"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 132 ] || fail "$lib: plain dlopen exit $rc, neither loaded nor SIGILL"
  rc=0; "$PYTHON" "$OPKIT_SOURCE_DIR/tests/integration/tf_load.py" "$work/$lib" >"$work/load.out" 2>&1 || rc=$?
  [ "$(verdict_of $rc)" = "$expected" ] || fail "$lib: TF $TF_VERSION's loader exit $rc ($(tail -1 "$work/load.out")), expected $expected"
  mkdir -p "$scratch/$(dirname "$lib")"
  cp "$work/$(dirname "$lib")"/*.so "$scratch/$(dirname "$lib")/"
  rc=0; in_root_python 'import sys, tensorflow as tf; tf.load_op_library(sys.argv[1])' "$(inside_root "$scratch/$lib")" || rc=$?
  [ "$(verdict_of $rc)" = "$expected" ] || fail "$lib: TF 2.10.1 in the Debian 11 root exit $rc ($(tail -1 "$work/root.out")), expected $expected"
  rc=0; "$OPKIT" test "$lib" --tf 1.12.0 >"$work/out" 2>"$work/err" || rc=$?
  [ "$(verdict_of $rc)" = "$expected" ] || { cat "$work/out" "$work/err" >&2; fail "$lib: opkit test --tf 1.12.0 exit $rc, expected $expected"; }
  if [ "$expected" = fails ]; then expect_contains "$work/out" 'illegal instruction \(SIGILL\)'; fi
  for version in 1.12.0 2.10.1 "$TF_VERSION"; do
    for runtime in "" host; do
      local want=$target want_kind=$kind
      if [ "$runtime" = host ]; then want=$expected; want_kind=$here_kind; fi
      rc=0
      "$OPKIT" check "$lib" --tf "$version" ${runtime:+--runtime "$runtime"} >"$work/out" 2>"$work/err" || rc=$?
      got=$(verdict_of $rc)
      [ "$rc" -le 1 ] || { cat "$work/err" >&2; fail "$lib: check errored ($rc)"; }
      [ "$got" = "$want" ] || { cat "$work/out" >&2; fail "$lib: check --tf $version ${runtime:+--runtime $runtime} says $got, the loaders $want"; }
      [ -z "$want_kind" ] || expect_contains "$work/out" "\\[$want_kind\\]"
      cases=$((cases + 1))
    done
  done
  echo "agree: $lib $target (here: $expected) ${kind:-}" >&2
}

# A bundled library's AVX-512 constructor kills the load of the op that needs it,
# and check names that library and which library needed it.
judge bundled/libop.so fails cpu-feature-at-load
run_opkit 1 check bundled/libop.so --tf 2.10.1
expect_contains "$work/out" 'error \[cpu-feature-at-load\] libwide_dep\.so, which the loader maps with it \(needed by libop\.so\), runs avx512f instructions while it loads'
expect_contains "$work/out" '^      wide[.a-z0-9]* at load: vpbroadcastd zmm0, '
# The same code behind __builtin_cpu_supports, a helper that asks, cpuid.h: a
# warning naming the test and the function that runs it.
for shape in 0 1 2; do judge "libshape$shape.so" loads cpu-dispatch-at-load; done
run_opkit 0 check libshape1.so --tf 2.10.1
expect_contains "$work/out" 'warning \[cpu-dispatch-at-load\] runs avx512f instructions while it loads only behind a CPU test \(has_512 in init\)'
expect_contains "$work/out" '^      wide[.a-z0-9]* at load behind has_512 in init: vpbroadcastd zmm0, '
if grep -q 'cpu-feature-at-load' "$work/out"; then fail "code behind a CPU test refused"; fi
# A test of another feature guards only its own `if`: AVX-512 still runs at load.
judge libshape3.so fails cpu-feature-at-load
echo "cpu_at_load: $cases checks agree with plain dlopen, TF $TF_VERSION, TF 2.10.1 (Debian 11) and TF 1.12.0's probe$([ "$host_wide" -eq 1 ] && echo " (this CPU has AVX-512: the default runtime checked against the verdicts of a CPU without it)")" >&2
