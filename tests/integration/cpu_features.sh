# The CPU check (issue 30): opkit reads which instruction-set extensions a
# library's code uses (capstone), keeps the code that runs while it loads
# apart, and holds it to the target's CPU: a baseline (--cpu, a runtime's
# policy) or this machine's /proc/cpuinfo. The real loader is the judge here:
# an AVX-512 static constructor dies of SIGILL on a CPU without AVX-512.
source "$(dirname "$0")/common.sh"

sdk_lib=$OPKIT_HOME/sdks/tensorflow-2.10.1/lib
framework=(-L"$sdk_lib" -l:libtensorflow_framework.so.2)

# A library whose static constructor runs AVX-512 (EVEX-encoded) code, and a good one.
cat >avx512_init.cc <<'CC'
#include <immintrin.h>
#include <cstdlib>
int cpu_lanes = 0;
__attribute__((target("avx512f"), noinline)) static void CountLanes(int seed) {
  __m512i a = _mm512_set1_epi32(seed);
  cpu_lanes = _mm512_reduce_add_epi32(_mm512_add_epi32(a, a));
}
namespace { struct Init { Init() { CountLanes(std::getenv("CPU_SEED") ? 3 : 1); } } init; }
CC
g++ -O2 -shared -fPIC -o libavx512_init.so avx512_init.cc "${framework[@]}"
objdump -d libavx512_init.so >"$work/disassembly"
grep -q '62 .*zmm' "$work/disassembly" || fail "no EVEX instruction in libavx512_init.so"
echo 'extern "C" int cpu_good(int x) { return x + 1; }' >good.cc
g++ -O2 -shared -fPIC -o libgood.so good.cc "${framework[@]}"

# --cpu x86-64-v3 (AVX2, no AVX-512): refused, naming the function and its first EVEX instruction.
run_opkit 1 check libavx512_init.so --tf 2.10.1 --cpu x86-64-v3
expect_contains "$work/out" '^  error \[cpu-feature-at-load\] runs avx512f instructions while it loads, which x86-64-v3 lacks: dlopen dies of SIGILL \(illegal instruction\)$'
expect_contains "$work/out" '^      CountLanes\(int\) at load: vpbroadcastd zmm0, edi \(avx512f, at 0x[0-9a-f]+\)$'
run_opkit 1 check libavx512_init.so --tf 2.10.1 --cpu x86-64-v3 --json
python3 - "$work/out" <<'PY' || fail "the JSON report of the CPU finding"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "fails", r
f = [f for f in r["findings"] if f["kind"] == "cpu-feature-at-load"]
assert f and f[0]["symbols"][0]["demangled"].startswith("CountLanes(int) at load: vpbroadcastd zmm"), f
PY
# x86-64-v4 has AVX-512; the good library passes every baseline.
run_opkit 0 check libavx512_init.so --tf 2.10.1 --cpu x86-64-v4
run_opkit 0 check libgood.so --tf 2.10.1 --cpu x86-64
# An unknown baseline: one error line naming the known ones, exit 2.
run_opkit 2 check libgood.so --tf 2.10.1 --cpu pentium4
expect_contains "$work/err" "^opkit: error: 'pentium4': unknown CPU baseline \(known: x86-64, x86-64-v2, x86-64-v3, x86-64-v4\)"

# --runtime host agrees with the real loader on whatever CPU runs this test.
if grep -qw avx512f /proc/cpuinfo; then expected=0; else expected=1; fi
run_opkit "$expected" check libavx512_init.so --tf 2.10.1 --runtime host
load_rc=0
python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$work/libavx512_init.so" 2>/dev/null || load_rc=$?
if [ "$expected" -eq 1 ]; then
  [ "$load_rc" -eq 132 ] || fail "the real loader did not die of SIGILL (exit $load_rc) on a CPU without AVX-512"
  expect_contains "$work/out" 'which .* \(host\) lacks'
else
  [ "$load_rc" -eq 0 ] || fail "the real loader failed ($load_rc) on a CPU with AVX-512"
fi

# An extension beyond every psABI level: AMX (tilerelease) in a constructor.
# x86-64-v4 lacks it; on this CPU the real loader and check agree.
printf '%s\n' 'namespace { struct Init { Init() { asm volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0"); } } init; }' >amx_init.cc
g++ -O2 -shared -fPIC -o libamx_init.so amx_init.cc
run_opkit 1 check libamx_init.so --runtime host --cpu x86-64-v4
expect_contains "$work/out" 'error \[cpu-feature-at-load\] runs amx_tile instructions while it loads, which x86-64-v4 lacks'
expect_contains "$work/out" 'at load: tilerelease \(amx_tile, at 0x[0-9a-f]+\)$'
if grep -qw amx_tile /proc/cpuinfo; then amx_expected=0; else amx_expected=1; fi
run_opkit "$amx_expected" check libamx_init.so --runtime host
amx_rc=0
python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$work/libamx_init.so" 2>/dev/null || amx_rc=$?
if [ "$amx_expected" -eq 1 ]; then [ "$amx_rc" -eq 132 ] || fail "the AMX library loaded (exit $amx_rc) on a CPU without AMX"; fi
if [ "$amx_expected" -eq 0 ]; then [ "$amx_rc" -eq 0 ] || fail "the AMX library failed ($amx_rc) on a CPU with AMX"; fi

# A real AVX-512 and AMX CPU (the flags captured on a Xeon, tests/fixtures/cpus/,
# where both libraries loaded) with this machine's libraries: both load.
run_opkit 0 profile capture -o plain.json --name here
python3 - plain.json "$OPKIT_SOURCE_DIR/tests/fixtures/cpus/xeon-avx512-amx.json" xeon.json <<'PY'
import json, sys
profile, cpu = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["cpu"]
profile["cpu"], profile["name"] = cpu, "xeon"
json.dump(profile, open(sys.argv[3], "w"))
PY
run_opkit 0 check libavx512_init.so --profile xeon.json
run_opkit 0 check libamx_init.so --profile xeon.json

# opkit test of both: the first is named "illegal instruction" (with its
# function and instruction), the second is still probed.
run_opkit "$expected" test libavx512_init.so libgood.so --tf 2.10.1
expect_contains "$work/out" 'loaded libgood\.so into the real libtensorflow_framework'
if [ "$expected" -eq 1 ]; then
  expect_contains "$work/out" '^tensorflow-2\.10\.1: LOAD FAILED libavx512_init\.so$'
  expect_contains "$work/out" 'loader: illegal instruction \(SIGILL\) while loading: CountLanes\(int\) runs vpbroadcastd zmm0, edi \(avx512f\)'
fi

# The default CPU of a runtime policy is the least the framework itself
# starts on: the policy's baseline joined with the floor its wheels are
# documented to need (AVX, TF since 1.6) and what its framework library runs
# at load. TF's own framework libraries load by that default.
for v in 1.12.0 1.15.5 2.10.1; do
  lib=$(find "$OPKIT_HOME/sdks/tensorflow-$v/lib" -name 'libtensorflow_framework.so*' -type f | head -1)
  run_opkit 0 check "$lib" --tf "$v"
  expect_contains "$work/out" "^$lib: loads against tensorflow $v on tensorflow-[0-9.]+$"
  if grep -q 'cpu-feature-at-load' "$work/out"; then fail "TF $v's own library refused for its load-time code"; fi
done
# A constructor that runs AVX, as TF's own build flags make them: it loads
# wherever TF starts; AVX2 at load is more than TF 2.10.1 needs, and is refused.
cat >avx_init.cc <<'CC'
#include <immintrin.h>
float lanes_f[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int lanes_i[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__attribute__((target("avx"), noinline)) void Twice() {
  __m256 a = _mm256_loadu_ps(lanes_f);
  _mm256_storeu_ps(lanes_f, _mm256_add_ps(a, a));
}
__attribute__((target("avx2"), noinline)) void TwiceWide() {
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes_i));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes_i), _mm256_add_epi32(a, a));
}
#ifdef WIDE
namespace { struct Init { Init() { TwiceWide(); } } init; }
#else
namespace { struct Init { Init() { Twice(); } } init; }
#endif
CC
g++ -O2 -shared -fPIC -o libavx_init.so avx_init.cc "${framework[@]}"
g++ -O2 -shared -fPIC -DWIDE -o libavx2_init.so avx_init.cc "${framework[@]}"
run_opkit 0 check libavx_init.so --tf 2.10.1
if grep -q 'cpu-feature-at-load' "$work/out"; then fail "AVX at load refused where TF 2.10.1 itself needs AVX"; fi
run_opkit 1 check libavx2_init.so --tf 2.10.1
expect_contains "$work/out" '^  error \[cpu-feature-at-load\] runs avx2 instructions while it loads, which x86-64-v2 with avx \(the least tensorflow 2\.10\.1 itself starts on\) lacks'
# A CPU the user names is that CPU: x86-64-v2 refuses even TF's own AVX.
run_opkit 1 check libavx_init.so --tf 2.10.1 --cpu x86-64-v2
expect_contains "$work/out" '^  error \[cpu-feature-at-load\] runs avx instructions while it loads, which x86-64-v2 lacks'
run_opkit 0 check libavx2_init.so --tf 2.10.1 --cpu x86-64-v3
# Each CPU's findings are kept apart: checks that alternate CPUs read each
# one's kept file instead of scanning again (one folder per library).
kept=$({ grep -rlF -- "$work/libavx2_init.so" "$OPKIT_HOME/cache/cpu" || true; } | { grep '/cpu-[0-9a-f]*\.json$' || true; } | sort)
[ "$(echo "$kept" | wc -l)" -eq 2 ] || fail "expected the findings of two CPUs kept for libavx2_init.so: $kept"
[ "$(echo "$kept" | xargs -n1 dirname | sort -u | wc -l)" -eq 1 ] || fail "one library's findings in more than one folder: $kept"
before=$(stat -c %i $kept | md5sum) # an atomic rewrite is a new inode
run_opkit 1 check libavx2_init.so --tf 2.10.1
run_opkit 0 check libavx2_init.so --tf 2.10.1 --cpu x86-64-v3
[ "$(stat -c %i $kept | md5sum)" = "$before" ] || fail "alternating CPUs rewrote the kept findings"

# AVX2 outside the load: a warning, not a failure; a library that dispatches
# on the CPU at run time is told so.
cat >avx2_kernel.cc <<'CC'
#include <immintrin.h>
__attribute__((target("avx2"), noinline)) int SumAvx2(const int* v) {
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
  return _mm256_extract_epi32(_mm256_add_epi32(a, a), 0);
}
int Sum(const int* v) { return __builtin_cpu_supports("avx2") ? SumAvx2(v) : v[0] * 2; }
CC
g++ -O2 -shared -fPIC -o libavx2_kernel.so avx2_kernel.cc "${framework[@]}"
run_opkit 0 check libavx2_kernel.so --tf 2.10.1
expect_contains "$work/out" '^  warning \[cpu-feature\] 1 function uses avx2, which x86-64-v2 with avx \(the least tensorflow 2\.10\.1 itself starts on\) lacks'
expect_contains "$work/out" 'SumAvx2\(int const\*\): v'
expect_contains "$work/out" 'why: the library chooses code at run time'
run_opkit 0 check libavx2_kernel.so --tf 2.10.1 --cpu x86-64-v3
if grep -q 'cpu-feature' "$work/out"; then fail "x86-64-v3 has AVX2: no CPU finding expected"; fi

# opkit build --cpu: every compile takes the baseline's -march, and the
# build's own check holds the libraries to it.
run_opkit 0 new cpu_op --tf 2.10.1
cd cpu_op
run_opkit 0 build --cpu x86-64-v3 --no-cache
expect_contains build/tf-2.10.1/compile_commands.json '"-march=x86-64-v3"'
run_opkit 0 build --cpu x86-64-v3 --dry-run
run_opkit 2 build --cpu pentium4
# The project's own default: targets.cpu in opkit.yaml (--cpu overrides it).
sed -i 's|^targets:|targets:\n  cpu: x86-64-v2|' opkit.yaml
run_opkit 0 build --no-cache --build-dir build-v2
expect_contains build-v2/tf-2.10.1/compile_commands.json '"-march=x86-64-v2"'
sed -i 's|^  cpu: x86-64-v2|  cpu: pentium4|' opkit.yaml
run_opkit 2 build --build-dir build-bad
expect_contains "$work/err" "opkit\\.yaml:[0-9]+:[0-9]+: unknown CPU baseline 'pentium4' \\(known: none, x86-64, x86-64-v2, x86-64-v3, x86-64-v4\\)"
[ ! -e build-bad ] || fail "a refused opkit.yaml left build-bad behind"
cd "$work"

# Profiles record the CPU: capture reads /proc/cpuinfo; a policy names its baseline.
run_opkit 0 profile capture -o here.json --name here
python3 - here.json <<'PY' || fail "the captured profile's CPU"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["cpu"]["flags"] and "sse2" in p["cpu"]["flags"], p.get("cpu")
PY
run_opkit "$expected" check libavx512_init.so --tf 2.10.1 --profile here.json
echo "cpu_features: AVX-512 at load refused by x86-64-v3, loader and check agree on this CPU (exit $expected)" >&2
