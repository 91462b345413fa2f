# A real older system (the Debian 11 root: glibc 2.31, libstdc++ up to
# GLIBCXX_3.4.28) recorded by `opkit profile capture --root` without running
# anything in it; `opkit check --profile` with that record agrees with the
# root's real loader and TensorFlow 2.10.1: an op built with this machine's GCC
# 12 and glibc 2.36 that needs GLIBCXX_3.4.29 and GLIBC_2.34 is refused by both,
# naming them; built with `--profile` for that root it loads there and computes.
source "$(dirname "$0")/common.sh"
root=$(cat "$OPKIT_TEST_HOME/debian11-root.path")
[ -x "$root/opt/tf/bin/python" ] || fail "no Debian 11 root: run the debian11_root fixture (scripts/debian11-root.sh)"

# Libraries are copied into a scratch folder inside the root, removed on exit.
scratch=$(mktemp -d "$root/tmp/opkit-older-system.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# in_root <library> <python code using the module m>: runs it with the root's TF; output in $work/root.out.
in_root() {
  local name
  name=$(basename "$1")
  cp "$1" "$scratch/$name"
  local rc=0
  # TensorFlow reads /proc/self/exe: a private mount and PID namespace gets a
  # /proc of its own in the root, gone when the process ends.
  unshare --mount --pid --fork --mount-proc="$root/proc" \
    chroot "$root" /usr/bin/env -i TF_CPP_MIN_LOG_LEVEL=3 /opt/tf/bin/python -c \
    "import sys, tensorflow as tf; m = tf.load_op_library(sys.argv[1]); $2" "/${scratch#"$root"/}/$name" \
    >"$work/root.out" 2>&1 || rc=$?
  return $rc
}

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

# Kernel helpers that allocate through std::allocator (as containers do) and
# run something once: with this machine's GCC 12 and glibc 2.36 they need
# __throw_bad_array_new_length@GLIBCXX_3.4.29 and pthread_once@GLIBC_2.34.
cat >>src/old_op_kernels.cc <<'CC'
#include <pthread.h>
#include <cstddef>
#include <memory>
extern "C" std::size_t old_op_grow(std::size_t n) {
  std::allocator<int> allocator;
  int* values = allocator.allocate(n);
  allocator.deallocate(values, n);
  return n;
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
run_opkit 0 build --runtime host --build-dir build-grow
grow=$work/old_op/build-grow/tf-2.10.1/libold_op.so
readelf -V "$grow" >"$work/versions"
expect_contains "$work/versions" 'Name: GLIBCXX_3\.4\.29'
expect_contains "$work/versions" 'Name: GLIBC_2\.34'
if in_root "$grow" "print('loaded')"; then fail "the root's loader accepted a GLIBCXX_3.4.29 / GLIBC_2.34 library"; fi
expect_contains "$work/root.out" "version .(GLIBCXX_3\.4\.29|GLIBC_2\.34)' not found"
run_opkit 1 check "$grow" --tf 2.10.1 --profile ../debian11.json --json
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["verdict"] == "fails", report
finding = [f for f in report["findings"] if f["kind"] == "version-too-new" and "GLIBCXX" in f["summary"]][0]
assert "GLIBCXX_3.4.29" in finding["summary"], finding
assert "libstdc++.so.6 up to GLIBCXX_3.4.28" in finding["diagnosis"], finding
assert any(s["mangled"] == "_ZSt28__throw_bad_array_new_lengthv" for s in finding["symbols"]), finding
glibc = [f for f in report["findings"] if f["kind"] == "version-too-new" and "GLIBC_2.34" in f["summary"]]
assert glibc and any(s["mangled"] == "pthread_once" for s in glibc[0]["symbols"]), report["findings"]
assert glibc[0]["diagnosis"] == "the target provides libc.so.6 up to GLIBC_2.30", glibc[0]
PY
# The same library is refused by the stock runtime TF 2.10.1's wheel assumes (CentOS 7).
run_opkit 1 build --build-dir build-grow
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBCXX_3\.4\.29'

# Built for the captured root (`--profile`): the libstdc++ symbols above its
# GLIBCXX_3.4.28 are linked in from GCC's own libstdc++.a, hidden; the rest
# still binds to the root's libstdc++.so.6. It loads there and computes.
# glibc symbols are bound to the versions the root has (pthread_once@GLIBC_2.2.5).
run_opkit 0 build --profile ../debian11.json --build-dir build-fit
expect_contains "$work/out" 'portable: libstdc\+\+ above GLIBCXX_3\.4\.28/CXXABI_1\.3\.12 \(debian-11\): [0-9]+ symbols linked in from [0-9]+ members, hidden; glibc: [0-9]+ symbols bound to the versions debian-11 has'
fit=$work/old_op/build-fit/tf-2.10.1/libold_op.so
if readelf -V "$fit" | grep -Eq 'GLIBCXX_3\.4\.29|GLIBC_2\.3[2-9]'; then fail "the fitted library still needs a version the root lacks"; fi
nm -D "$fit" | grep -q ' U pthread_once@GLIBC_2\.2\.5$' || fail "pthread_once not bound to GLIBC_2.2.5"
readelf -V "$fit" | grep -q 'Name: GLIBCXX_3\.4' || fail "the fitted library no longer binds to the system libstdc++"
nm -D --defined-only "$fit" >"$work/exports"
if grep -q '__throw_bad_array_new_length' "$work/exports"; then fail "the linked-in libstdc++ symbol is exported"; fi
run_opkit 0 check "$fit" --tf 2.10.1 --profile ../debian11.json
in_root "$fit" "import ctypes; lib = ctypes.CDLL(sys.argv[1]); print(m.old_op([[7, 1], [2, 3]]).numpy().tolist(), lib.old_op_grow(12), lib.old_op_init_twice())" ||
  { cat "$work/root.out" >&2; fail "the fitted library did not load in the Debian 11 root"; }
expect_contains "$work/root.out" '^\[\[7, 0\], \[0, 0\]\] 12 1$'
# ...and still registers its op in this machine's TF 2.10.1.
run_opkit 0 test --build-dir build-fit
expect_contains "$work/out" '^  matches opkit\.yaml$'
