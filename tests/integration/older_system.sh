# A real older system (the Debian 11 root: glibc 2.31, libstdc++ up to
# GLIBCXX_3.4.28) recorded by `opkit profile capture --root` without running
# anything in it; `opkit check --profile` with that record agrees with the
# root's real loader and TensorFlow 2.10.1: an op built plainly with this
# machine's GCC 12 and glibc 2.36 needs GLIBCXX_3.4.29/30, GLIBC_2.27 and
# GLIBC_2.34 and is refused by both, naming them. Built for that root
# (`--profile`), or for the runtime TF 2.10.1's wheel assumes (CentOS 7: the
# default), the same sources load there and compute; so does a --cuda build's
# CPU kernel, and an op calling sqrtf with no libm of its own.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/debian11_common.sh"   # $root, $scratch, in_root

# The record, made from the root's files: the root's versions, the root's paths.
run_opkit 0 profile capture --root "$root" --name debian-11 -o debian11.json
expect_contains "$work/out" 'debian11\.json: 8 libraries \(debian-11\)'
python3 - <<'PY'
import json
profile = json.load(open("debian11.json"))
libs = {l["soname"]: l for l in profile["libraries"]}
assert libs["libc.so.6"]["path"] == "/lib/x86_64-linux-gnu/libc.so.6", libs["libc.so.6"]["path"]
# glibc 2.31: libc's newest version is GLIBC_2.30, libm's GLIBC_2.31.
assert "GLIBC_2.30" in libs["libc.so.6"]["versions"] and "GLIBC_2.32" not in libs["libc.so.6"]["versions"]
assert "GLIBC_2.31" in libs["libm.so.6"]["versions"]
cxx = libs["libstdc++.so.6"]["versions"]
assert "GLIBCXX_3.4.28" in cxx and "GLIBCXX_3.4.29" not in cxx, cxx
assert all(l["symbols_known"] and l["symbols"] for l in libs.values())
PY
# Not a system root: one line.
mkdir -p empty-root
run_opkit 2 profile capture --root empty-root -o nothing.json
expect_one_error_line
expect_contains "$work/err" 'empty-root: not a system root: no libc\.so\.6 in '
[ ! -e nothing.json ] || fail "a failed capture wrote its output"

run_opkit 0 new old_op --tf 2.10.1
cd old_op
run_opkit 0 build --runtime host
good=$work/old_op/build/tf-2.10.1/libold_op.so
run_opkit 0 check "$good" --tf 2.10.1 --profile ../debian11.json
in_root "$good" "print(m.old_op([[5, 4], [3, 2]]).numpy().tolist())" || { cat "$work/root.out" >&2; fail "the plain op did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[5, 0\], \[0, 0\]\]$'

# Kernel helpers as op code has them: containers that allocate and grow, float
# formatting, a worker thread handing a value over, run-once initialisation,
# powf/expf. With this machine's GCC 12 and glibc 2.36 they need
# __throw_bad_array_new_length@GLIBCXX_3.4.29, std::to_chars@GLIBCXX_3.4.29,
# condition_variable::wait@GLIBCXX_3.4.30, powf/expf@GLIBC_2.27 and
# pthread_once/pthread_create@GLIBC_2.34.
cat >>src/old_op_kernels.cc <<'CC'
#include <pthread.h>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
extern "C" std::size_t old_op_grow(std::size_t n) {
  std::allocator<int> allocator;
  int* values = allocator.allocate(n);
  allocator.deallocate(values, n);
  std::vector<int> grown;
  for (std::size_t i = 0; i < n; ++i) grown.push_back(static_cast<int>(i));
  return grown.size();
}
extern "C" int old_op_format(double value, char* out, int size) {
  std::to_chars_result result = std::to_chars(out, out + size - 1, value);
  *result.ptr = '\0';
  return static_cast<int>(result.ptr - out);
}
extern "C" float old_op_pow(float x, float y) { return std::pow(x, y) * std::exp(y - y); }
extern "C" int old_op_handoff(int value) {
  std::mutex mutex;
  std::condition_variable ready;
  int seen = 0;
  std::thread worker([&] { std::lock_guard<std::mutex> lock(mutex); seen = value; ready.notify_one(); });
  {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return seen != 0; });
  }
  worker.join();
  return seen;
}
static pthread_once_t old_op_once = PTHREAD_ONCE_INIT;
static int old_op_inits = 0;
static void old_op_init() { ++old_op_inits; }
extern "C" int old_op_init_twice() {
  pthread_once(&old_op_once, old_op_init);
  pthread_once(&old_op_once, old_op_init);
  return old_op_inits;
}
CC
# run_helpers <library>: every helper, in the root's TF, with its results printed.
run_helpers() {
  in_root "$1" "
import ctypes
lib = ctypes.CDLL(sys.argv[1])
lib.old_op_pow.restype = ctypes.c_float
lib.old_op_pow.argtypes = [ctypes.c_float, ctypes.c_float]
lib.old_op_format.argtypes = [ctypes.c_double, ctypes.c_char_p, ctypes.c_int]
text = ctypes.create_string_buffer(32)
lib.old_op_format(2.5, text, 32)
print(m.old_op([[7, 1], [2, 3]]).numpy().tolist(), lib.old_op_grow(12), lib.old_op_init_twice(),
      lib.old_op_pow(2.0, 10.0), text.value.decode(), lib.old_op_handoff(42))"
}
run_opkit 0 build -v --runtime host --build-dir build-grow
if grep -q 'portable:' "$work/out"; then fail "--runtime host did not keep the plain link"; fi
grow=$work/old_op/build-grow/tf-2.10.1/libold_op.so
readelf -V "$grow" >"$work/versions"
for version in GLIBCXX_3.4.29 GLIBCXX_3.4.30 GLIBC_2.27 GLIBC_2.34; do
  expect_contains "$work/versions" "Name: ${version//./\\.} "
done
if in_root "$grow" "print('loaded')"; then fail "the root's loader accepted a GLIBCXX_3.4.29 / GLIBC_2.34 library"; fi
expect_contains "$work/root.out" "version .(GLIBCXX_3\.4\.(29|30)|GLIBC_2\.34)' not found"
run_opkit 1 check "$grow" --tf 2.10.1 --profile ../debian11.json --json
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["verdict"] == "fails", report
finding = [f for f in report["findings"] if f["kind"] == "version-too-new" and "GLIBCXX" in f["summary"]][0]
assert "GLIBCXX_3.4.29" in finding["summary"], finding
assert "libstdc++.so.6 up to GLIBCXX_3.4.28" in finding["diagnosis"], finding
assert any(s["mangled"] == "_ZSt28__throw_bad_array_new_lengthv" for s in finding["symbols"]), finding
assert any(f["kind"] == "version-too-new" and "GLIBCXX_3.4.30" in f["summary"] for f in report["findings"]), report
glibc = [f for f in report["findings"] if f["kind"] == "version-too-new" and "GLIBC_2.34" in f["summary"]]
assert glibc and any(s["mangled"] == "pthread_once" for s in glibc[0]["symbols"]), report["findings"]
assert glibc[0]["diagnosis"] == "the target provides libc.so.6 up to GLIBC_2.30", glibc[0]
PY
# The same library is refused by the stock runtime TF 2.10.1's wheel assumes (CentOS 7).
run_opkit 1 check "$grow" --tf 2.10.1
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBCXX_3\.4\.30.*also GLIBCXX_3\.4\.29'

# Built for the captured root (`--profile`): the libstdc++ symbols above its
# GLIBCXX_3.4.28 are linked in from GCC's own libstdc++.a, hidden; the rest
# still binds to the root's libstdc++.so.6. It loads there and computes.
# glibc symbols are bound to the versions the root has (pthread_once@GLIBC_2.2.5).
run_opkit 0 build -v --profile ../debian11.json --build-dir build-fit
expect_contains "$work/out" 'portable: libstdc\+\+ above GLIBCXX_3\.4\.28/CXXABI_1\.3\.12 \(debian-11\): [0-9]+ symbols linked in from [0-9]+ members, hidden; [0-9]+ symbols bound to the older versions debian-11 has'
fit=$work/old_op/build-fit/tf-2.10.1/libold_op.so
if grep -Eq 'GLIBCXX_3\.4\.29|GLIBC_2\.3[2-9]' <(readelf -V "$fit"); then fail "the fitted library still needs a version the root lacks"; fi
grep -q ' U pthread_once@GLIBC_2\.2\.5$' <(nm -D "$fit") || fail "pthread_once not bound to GLIBC_2.2.5"
grep -q 'Name: GLIBCXX_3\.4' <(readelf -V "$fit") || fail "the fitted library no longer binds to the system libstdc++"
nm -D --defined-only "$fit" >"$work/exports"
if grep -q '__throw_bad_array_new_length' "$work/exports"; then fail "the linked-in libstdc++ symbol is exported"; fi
run_opkit 0 check "$fit" --tf 2.10.1 --profile ../debian11.json
run_helpers "$fit" || { cat "$work/root.out" >&2; fail "the fitted library did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[7, 0\], \[0, 0\]\] 12 1 1024\.0 2\.5 42$'
# ...and still registers its op in this machine's TF 2.10.1.
run_opkit 0 test --build-dir build-fit
expect_contains "$work/out" '^  matches opkit\.yaml$'

# The default: the runtime TF 2.10.1's wheel assumes (CentOS 7: GLIBCXX_3.4.19,
# CXXABI_1.3.7, GLIBC_2.17). The same sources fit it with no flag at all:
# libstdc++ above it linked in unless the framework exports it, glibc and
# libstdc++ symbols that have older versions bound to them
# (condition_variable::wait@GLIBCXX_3.4.11).
run_opkit 0 build -v --build-dir build-default
expect_contains "$work/out" 'portable: libstdc\+\+ above GLIBCXX_3\.4\.19/CXXABI_1\.3\.7 \(tensorflow-2\.10\): [0-9]+ symbols linked in from [0-9]+ members, hidden; [0-9]+ symbols bound to the older versions tensorflow-2\.10 has'
default=$work/old_op/build-default/tf-2.10.1/libold_op.so
readelf -V "$default" >"$work/versions"
python3 - "$work/versions" <<'PY'
import re, sys
ceilings = {"GLIBCXX": (3, 4, 19), "CXXABI": (1, 3, 7), "GLIBC": (2, 17)}
for family, number in re.findall(r"Name: (GLIBCXX|CXXABI|GLIBC)_([0-9.]+)", open(sys.argv[1]).read()):
    assert tuple(map(int, number.split("."))) <= ceilings[family], (family, number)
PY
nm -D "$default" >"$work/dynamic"
expect_contains "$work/dynamic" ' U _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE@GLIBCXX_3\.4\.11$'
# std::thread's start (GLIBCXX_3.4.22, above CentOS 7's) binds to TF 2.10.1's
# framework, which exports it, as the plain link does: thread.o is not linked in.
expect_contains "$work/dynamic" ' U _ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE$'
if grep -q 'pthread_create@GLIBC_2\.34' "$work/dynamic"; then fail "pthread_create bound to GLIBC_2.34"; fi
expect_contains "$work/dynamic" ' U powf@GLIBC_2\.2\.5$'
run_opkit 0 check "$default" --tf 2.10.1
run_opkit 0 check "$default" --tf 2.10.1 --profile ../debian11.json
run_helpers "$default" || { cat "$work/root.out" >&2; fail "the library built for CentOS 7 did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[7, 0\], \[0, 0\]\] 12 1 1024\.0 2\.5 42$'
run_opkit 0 test --build-dir build-default
expect_contains "$work/out" '^  matches opkit\.yaml$'

# A glibc symbol with no older version (fmaxf64 is GLIBC_2.27's only): the
# build fails with one finding naming it and the function that calls it.
cat >src/widest.cc <<'CC'
#include <math.h>
namespace old_op { double Widest(double a, double b) { return fmaxf64(a, b); } }
CC
sed -i 's|^sources:|sources:\n  - src/widest.cc|' opkit.yaml
run_opkit 1 build --build-dir build-widest
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBC_2\.27'
expect_contains "$work/out" '^      fmaxf64@GLIBC_2\.27$'
expect_contains "$work/out" '^        used by old_op::Widest\(double, double\) in widest\.cc\.o$'
expect_contains "$work/out" 'fix: glibc has no older version of this symbol for opkit build to bind to'
[ "$(grep -c 'error \[' "$work/out")" -eq 1 ] || fail "expected one finding"
sed -i '/src\/widest.cc/d' opkit.yaml

# An op calling sqrtf with no libm of its own (linked by gcc, which adds none):
# TF's own process has libm, so the policy check passes, and the root loads it.
cat >sqrt_op.cc <<'CC'
#include <math.h>
extern "C" float old_op_sqrt(float x) { return sqrtf(x); }
CC
g++ -c -fPIC -O2 -o sqrt_op.o sqrt_op.cc
gcc -shared -o libsqrt_op.so build/tf-2.10.1/obj/old_op/src/*.o build/tf-2.10.1/obj/opkit/*.o sqrt_op.o \
  -L"$OPKIT_HOME/sdks/tensorflow-2.10.1/lib" -l:libtensorflow_framework.so.2 -lstdc++
readelf -d libsqrt_op.so >"$work/dynamic"
if grep -q 'libm\.so' "$work/dynamic"; then fail "libsqrt_op.so links libm"; fi
grep -q ' U sqrtf' <(nm -D libsqrt_op.so) || fail "libsqrt_op.so does not call sqrtf"
run_opkit 0 check libsqrt_op.so --tf 2.10.1
in_root libsqrt_op.so "import ctypes; f = ctypes.CDLL(sys.argv[1]).old_op_sqrt; f.restype = ctypes.c_float; f.argtypes = [ctypes.c_float]; print(m.old_op([[3, 3]]).numpy().tolist(), f(-1.0) != f(-1.0), f(2.25))" ||
  { cat "$work/root.out" >&2; fail "the sqrtf op did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[3, 0\]\] True 1\.5$'

# std::random_device (C++11 ABI): its _M_init(std::string const&) is above
# CentOS 7's GLIBCXX_3.4.19, but TF 2.10.1's framework exports it, so the
# default build binds there, as the plain link does, rather than linking in
# GCC 12's random.o, which needs getentropy@GLIBC_2.25 and arc4random@GLIBC_2.36.
# It passes the default check, loads in the Debian 11 root and runs.
cd "$work/old_op"
cat >src/random_seed.cc <<'CC'
#include <random>
extern "C" unsigned old_op_seed() {
  std::random_device device;
  return device() | 1u;
}
CC
sed -i 's|^sources:|sources:\n  - src/random_seed.cc|' opkit.yaml
run_opkit 0 build --build-dir build-random
random_lib=$work/old_op/build-random/tf-2.10.1/libold_op.so
nm -D "$random_lib" >"$work/dynamic"
if grep -Eq 'getentropy|arc4random' "$work/dynamic"; then fail "random.o's getentropy/arc4random were linked in"; fi
expect_contains "$work/dynamic" ' U _ZNSt13random_device7_M_initERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE$'
run_opkit 0 check "$random_lib" --tf 2.10.1
in_root "$random_lib" "import ctypes; f = ctypes.CDLL(sys.argv[1]).old_op_seed; f.restype = ctypes.c_uint; print(m.old_op([[2, 2]]).numpy().tolist(), f() % 2)" ||
  { cat "$work/root.out" >&2; fail "the random_device op did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[2, 0\]\] 1$'
sed -i '/src\/random_seed.cc/d' opkit.yaml

# What cannot be fitted names the C++ entity the op calls: std::filesystem's
# status() is above CentOS 7's libstdc++ and no TF exports it, and GCC 12's
# fs_ops.o calls stat, which glibc has only from 2.33 (no older version).
cat >src/fs_probe.cc <<'CC'
#include <filesystem>
extern "C" int old_op_exists(const char* path) { return std::filesystem::exists(std::filesystem::path(path)) ? 1 : 0; }
CC
sed -i 's|^sources:|sources:\n  - src/fs_probe.cc|' opkit.yaml
run_opkit 1 build --build-dir build-fs
expect_contains "$work/out" '^      stat@GLIBC_2\.33$'
expect_contains "$work/out" "^        used by std::filesystem::status\\(std::filesystem::__cxx11::path const&\\) \\(libstdc\\+\\+'s fs_ops\\.o, linked in statically\\), called by old_op_exists in fs_probe\\.cc\\.o$"
expect_contains "$work/out" "fix: the target's libstdc\\+\\+ lacks the C\\+\\+ library function named above"
[ "$(grep -c 'error \[' "$work/out")" -eq 1 ] || fail "expected one finding"
sed -i '/src\/fs_probe.cc/d' opkit.yaml

# A --cuda build, by CUDA 11.8 (TF 2.10.1's own CUDA major): the static CUDA
# runtime's glibc references are bound too, so it passes the default check
# with no finding, and its CPU kernels run in the root's CPU-only TF 2.10.1.
cd "$work"
run_opkit 0 new gpu_op --cuda --tf 2.10.1
cd gpu_op
run_opkit 0 -v build --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built'
expect_contains "$work/out" 'symbols bound to the older versions tensorflow-2\.10 has, in the CUDA runtime too'
gpu=$work/gpu_op/build/tf-2.10.1-cuda/libgpu_op.so
if grep -Eq 'GLIBC_2\.(1[89]|[2-9][0-9])' <(readelf -V "$gpu"); then fail "the CUDA build needs a glibc newer than 2.17"; fi
run_opkit 0 check "$gpu" --tf tensorflow-2.10.1-cuda --json
python3 -c "import json; r=json.load(open('$work/out')); assert r['verdict']=='loads' and [f['kind'] for f in r['findings']]==[], r"
in_root "$gpu" "print(m.gpu_op([[5, 4], [3, 2]]).numpy().tolist())" ||
  { cat "$work/root.out" >&2; fail "the CUDA build did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[5, 0\], \[0, 0\]\]$'
