# opkit check's verdict must equal what really happens when the library is
# loaded with that version's real libtensorflow_framework, in two places:
# - this machine (`--runtime host`): the probe process, the real framework,
#   this machine's real system libraries, dlopen RTLD_NOW;
# - a real older system, the Debian 11 root (`--profile` captured from it):
#   the root's own Python 3.9 and tensorflow-cpu 2.10.1, tf.load_op_library.
#   Every library built for or loaded into TF 2.10.1 is compared there too.
#   Libraries for TF 1.x are not: the root has no TF 1.12, so they are
#   compared on this machine only.
# The corpus is built here, from the real SDKs.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/debian11_common.sh"   # $root, $scratch, in_root_python

sdk_dir() { echo "$OPKIT_HOME/sdks/tensorflow-$1"; }
probe_for() { echo "$OPKIT_HOME/probes/tensorflow-$1/load_probe"; }
cases=0 host_cases=0 root_cases=0

# The root's record, made once from its files.
run_opkit 0 profile capture --root "$root" --name debian-11 -o debian11.json
profile=$work/debian11.json

# compare <library> <where> <check rc> <load rc> <loads|fails> [finding kind...]:
# opkit check's verdict ($work/check.json) against the real load ($work/load.out).
compare() {
  local lib=$1 where=$2 check_rc=$3 load_rc=$4 expected=$5
  shift 5
  local verdict=loads loaded=loads
  [ "$check_rc" -eq 0 ] || verdict=fails
  [ "$load_rc" -eq 0 ] || loaded=fails
  if [ "$verdict" != "$loaded" ]; then
    cat "$work/check.json" "$work/load.out" >&2
    fail "$lib $where: opkit check says $verdict, the real loader says $loaded"
  fi
  [ "$verdict" = "$expected" ] || { cat "$work/check.json" "$work/load.out" >&2; fail "$lib $where: expected $expected, both say $verdict"; }
  python3 - "$work/check.json" "$verdict" "$@" <<'PY'
import json, sys
report, verdict, kinds = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
assert report["schema"] == "opkit.check/1" and report["verdict"] == verdict, report
found = [f["kind"] for f in report["findings"]]
for kind in kinds:
    assert kind in found, (kind, found)
for f in report["findings"]:
    assert f["summary"] and f["diagnosis"] and f["remedy"], f
PY
  cases=$((cases + 1))
  echo "agree: ${lib#"$work"/} $where: $verdict ${*:-}" >&2
}

# agree <library> <tf version> <loads|fails> [finding kind...]: on this machine.
agree() {
  local lib=$1 version=$2 expected=$3
  shift 3
  local check_rc=0 load_rc=0
  "$OPKIT" check "$lib" --tf "$version" --runtime host --json >"$work/check.json" 2>"$work/check.err" || check_rc=$?
  # A path with a slash: dlopen searches the library path for a bare file name.
  "$(probe_for "$version")" "$(realpath "$lib")" >"$work/load.out" 2>/dev/null || load_rc=$?
  [ "$check_rc" -le 1 ] || { cat "$work/check.err" >&2; fail "opkit check errored ($check_rc) on $lib"; }
  [ "$load_rc" -eq 0 ] || [ "$load_rc" -eq 3 ] || fail "probe crashed ($load_rc) on $lib"
  compare "$lib" "on TF $version (this machine)" "$check_rc" "$load_rc" "$expected" "$@"
  host_cases=$((host_cases + 1))
}

# The root's loader: a NotFoundError (what TF raises when dlopen fails) is
# "fails" (exit 3); anything else that stops it (a crash, another exception)
# fails the test.
root_loader='
import sys, tensorflow as tf
try:
    tf.load_op_library(sys.argv[1])
except tf.errors.NotFoundError as e:
    print("NotFoundError:", e)
    sys.exit(3)
print("loaded")
'
# agree_root [--folder] <library> <loads|fails> [finding kind...]: on TF 2.10.1
# in the Debian 11 root, opkit check with the root's profile against the root's
# real loader. The library is copied into the root (--folder: with its whole
# folder, the bundled libraries beside it in the same layout, so $ORIGIN finds
# them there as here).
agree_root() {
  local folder=
  if [ "$1" = --folder ]; then folder=1; shift; fi
  local lib=$1 expected=$2
  shift 2
  local check_rc=0 load_rc=0 dest
  "$OPKIT" check "$lib" --tf 2.10.1 --profile "$profile" --json >"$work/check.json" 2>"$work/check.err" || check_rc=$?
  [ "$check_rc" -le 1 ] || { cat "$work/check.err" >&2; fail "opkit check --profile errored ($check_rc) on $lib"; }
  dest=$(mktemp -d "$scratch/case.XXXXXX")
  if [ -n "$folder" ]; then cp -a "$(dirname "$lib")/." "$dest/"; else cp "$lib" "$dest/"; fi
  in_root_python "$root_loader" "$(inside_root "$dest/$(basename "$lib")")" || load_rc=$?
  cp "$work/root.out" "$work/load.out"
  case $load_rc in
    0) grep -q '^loaded$' "$work/load.out" || { cat "$work/load.out" >&2; fail "the root's TF did not report loading $lib"; } ;;
    3) grep -q '^NotFoundError:' "$work/load.out" || { cat "$work/load.out" >&2; fail "no NotFoundError from the root's TF on $lib"; } ;;
    *) cat "$work/load.out" >&2; fail "the root's TF crashed or errored ($load_rc) on $lib" ;;
  esac
  rm -rf "$dest"
  compare "$lib" "on TF 2.10.1 (Debian 11 root)" "$check_rc" "$load_rc" "$expected" "$@"
  root_cases=$((root_cases + 1))
}

# --- the op project, built for both versions (the build's own check passes)
run_opkit 0 new corpus_op
cd corpus_op
run_opkit 0 build --tf 1.12,2.10.1
run_opkit 0 test --tf 1.12,2.10.1          # also builds the two probes
good112=$work/corpus_op/build/tf-1.12.0/libcorpus_op.so
good210=$work/corpus_op/build/tf-2.10.1/libcorpus_op.so
agree "$good112" 1.12.0 loads
agree "$good210" 2.10.1 loads
agree_root "$good210" loads

# --- the same libraries stripped of their section headers (sstrip): the loader
# reads only program headers, so they load, and opkit reads them the same way
# (issue 16: once refused as malformed). With e_phnum = PN_XNUM the loader
# refuses the file, and opkit check says it is not loadable (exit 2).
elf_edit() { # <in> <out> strip|xnum
  python3 - "$@" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
if sys.argv[3] == "strip":
    struct.pack_into("<Q", data, 0x28, 0)        # e_shoff
    struct.pack_into("<HH", data, 0x3C, 0, 0)    # e_shnum, e_shstrndx
else:
    struct.pack_into("<H", data, 0x38, 0xFFFF)   # e_phnum = PN_XNUM
open(sys.argv[2], "wb").write(data)
PY
}
mkdir -p stripped
elf_edit "$good112" stripped/libcorpus_op_112.so strip
elf_edit "$good210" stripped/libcorpus_op_210.so strip
grep -q 'no sections\|There are no sections' <(readelf -S "$work/corpus_op/stripped/libcorpus_op_210.so" 2>&1) \
  || fail "the stripped library still has section headers"
agree "$work/corpus_op/stripped/libcorpus_op_112.so" 1.12.0 loads
agree "$work/corpus_op/stripped/libcorpus_op_210.so" 2.10.1 loads
agree_root "$work/corpus_op/stripped/libcorpus_op_210.so" loads
agree "$work/corpus_op/stripped/libcorpus_op_210.so" 1.12.0 fails wrong-framework-soname
elf_edit "$good210" stripped/libxnum.so xnum
load_rc=0
"$(probe_for 2.10.1)" stripped/libxnum.so >"$work/load.out" 2>&1 || load_rc=$?
[ "$load_rc" -eq 3 ] || { cat "$work/load.out" >&2; fail "the probe loaded a library with e_phnum PN_XNUM ($load_rc)"; }
run_opkit 2 check stripped/libxnum.so --tf 2.10.1 --runtime host
expect_one_error_line
expect_contains "$work/err" 'libxnum\.so: not loadable \(the dynamic loader refuses it\): e_phnum is PN_XNUM'

# --- ABI flag wrong (1.12 built with _GLIBCXX_USE_CXX11_ABI=1)
run_opkit 0 build --tf 1.12 --abi 1 --no-check --build-dir build-abi
agree build-abi/tf-1.12.0/libcorpus_op.so 1.12.0 fails dual-abi-mismatch   # TF 1.x: this machine only
# ...and opkit build's own check refuses it.
run_opkit 1 build --tf 1.12 --abi 1 --build-dir build-abi
expect_contains "$work/out" '^tf-1\.12\.0 +CHECK FAILED'
expect_contains "$work/out" 'error \[dual-abi-mismatch\]'

# --- wrong -std for 2.10.1 (C++14: absl::string_view instead of std::string_view)
run_opkit 0 build --tf 2.10.1 --std 14 --no-check --build-dir build-std
agree build-std/tf-2.10.1/libcorpus_op.so 2.10.1 fails cxx-standard-mismatch
agree_root build-std/tf-2.10.1/libcorpus_op.so fails cxx-standard-mismatch

# --- built for 2.10.1, loaded into 1.12 (TF 1.x: this machine only)
agree "$good210" 1.12.0 fails wrong-framework-soname
# That finding says it all: the 1.12 framework's symbols it uses are not also
# "framework-not-needed" (it needs a framework library, only the wrong one).
python3 -c "import json,sys; k=[f['kind'] for f in json.load(open(sys.argv[1]))['findings']]; assert 'framework-not-needed' not in k, k" "$work/check.json"
# A prebuilt copy of it: each finding's remedy is the release to install,
# written out once and referred to after.
mkdir -p "$work/prebuilt" && cp "$good210" "$work/prebuilt/"
run_opkit 1 check "$work/prebuilt/libcorpus_op.so" --tf 1.12.0
[ "$(grep -c 'fix: a prebuilt library: install the release of it built for TF 1\.12\.0' "$work/out")" -eq 1 ] ||
  fail "the prebuilt library's remedy is not written out exactly once"
expect_contains "$work/out" 'error \[dual-abi-mismatch\]'
expect_contains "$work/out" 'fix: as for \[wrong-framework-soname\] above'

# --- a symbol the framework does not export
cat >src/not_exported.cc <<'CC'
namespace tensorflow { void NotExportedByAnyFramework(int); }
extern "C" void corpus_call_missing(int x) { tensorflow::NotExportedByAnyFramework(x); }
CC
sed -i 's|^sources:|sources:\n  - src/not_exported.cc|' opkit.yaml
run_opkit 1 build --tf 2.10.1 --build-dir build-missing
expect_contains "$work/out" 'error \[framework-symbol-missing\]'
agree build-missing/tf-2.10.1/libcorpus_op.so 2.10.1 fails framework-symbol-missing
agree_root build-missing/tf-2.10.1/libcorpus_op.so fails framework-symbol-missing
sed -i '/src\/not_exported.cc/d' opkit.yaml

# --- a weak undefined symbol: allowed by the loader, so by opkit check
cat >src/weak_hook.cc <<'CC'
namespace tensorflow { void OptionalHookNobodyDefines() __attribute__((weak)); }
extern "C" void corpus_maybe_hook() { if (tensorflow::OptionalHookNobodyDefines) tensorflow::OptionalHookNobodyDefines(); }
CC
sed -i 's|^sources:|sources:\n  - src/weak_hook.cc|' opkit.yaml
run_opkit 0 build --tf 1.12,2.10.1 --build-dir build-weak
for v in 1.12.0 2.10.1; do
  readelf --dyn-syms -W build-weak/tf-$v/libcorpus_op.so >"$work/dynsyms"
  expect_contains "$work/dynsyms" 'WEAK +DEFAULT +UND _ZN10tensorflow25OptionalHookNobodyDefinesEv'

  agree build-weak/tf-$v/libcorpus_op.so "$v" loads
done
agree_root build-weak/tf-2.10.1/libcorpus_op.so loads
sed -i '/src\/weak_hook.cc/d' opkit.yaml

# The remaining cases need a link opkit does not offer: done by hand with the
# same objects and the SDK's own link flags.
objects112=$(ls build/tf-1.12.0/obj/*/src/*.o build/tf-1.12.0/obj/opkit/*.o)
objects210=$(ls build/tf-2.10.1/obj/*/src/*.o build/tf-2.10.1/obj/opkit/*.o)

# --- a library the target lacks
mkdir -p extra
echo 'extern "C" int corpus_extra(int x) { return x + 1; }' >extra/extra.cc
g++ -shared -fPIC -o extra/libcorpusextra.so extra/extra.cc
echo 'extern "C" int corpus_extra(int); extern "C" int corpus_use_extra(int x) { return corpus_extra(x); }' >use_extra.cc
g++ -c -fPIC -o use_extra.o use_extra.cc
g++ -shared -o needs_extra_210.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 -Lextra -lcorpusextra
agree needs_extra_210.so 2.10.1 fails missing-library
agree_root needs_extra_210.so fails missing-library
g++ -shared -o needs_extra_112.so $objects112 use_extra.o -L"$(sdk_dir 1.12.0)/lib" -ltensorflow_framework -Lextra -lcorpusextra
agree needs_extra_112.so 1.12.0 fails missing-library   # TF 1.x: this machine only
# --- an OpenMP op (libgomp.so.1): this machine (GCC's runtime installed)
# loads it; the Debian 11 root, a minimal system without libgomp1, refuses it,
# and check with the root's profile says so; the default runtime passes it
# with the optional-library warning naming the package.
[ ! -e "$root/usr/lib/x86_64-linux-gnu/libgomp.so.1" ] || fail "the Debian 11 root has libgomp: this case proves nothing"
printf '%s\n' 'extern "C" int corpus_omp(int n) {' '  int s = 0;' '#pragma omp parallel for reduction(+ : s)' \
  '  for (int i = 0; i < n; ++i) s += i;' '  return s;' '}' >omp.cc
g++ -c -fPIC -fopenmp -o omp.o omp.cc
g++ -shared -fopenmp -o needs_gomp_210.so $objects210 omp.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2
grep -q 'NEEDED.*libgomp\.so\.1' <(readelf -d needs_gomp_210.so) || fail "the OpenMP op does not need libgomp"
agree needs_gomp_210.so 2.10.1 loads
agree_root needs_gomp_210.so fails missing-library
run_opkit 0 check needs_gomp_210.so --tf 2.10.1 --json
python3 - "$work/out" <<'PY' || fail "the default runtime's libgomp warning"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "loads", r
warning = [f for f in r["findings"] if f["kind"] == "optional-library"]
assert warning and "libgomp1 (Debian, Ubuntu)" in warning[0]["summary"], r["findings"]
PY
# Bundled next to the op with RUNPATH $ORIGIN, the same library is found: both agree it loads.
mkdir -p bundle && cp extra/libcorpusextra.so bundle/
g++ -shared -o bundle/libbundled.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 -Lextra -lcorpusextra -Wl,-rpath,'$ORIGIN'
agree bundle/libbundled.so 2.10.1 loads
agree_root --folder bundle/libbundled.so loads
# Bundled but without $ORIGIN: the loader does not look there.
g++ -shared -o bundle/libnoorigin.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 -Lextra -lcorpusextra
agree bundle/libnoorigin.so 2.10.1 fails bundled-without-origin
agree_root --folder bundle/libnoorigin.so fails bundled-without-origin

# --- DT_RPATH is inherited (glibc's _dl_map_object): the op's RPATH
# $ORIGIN/deps also serves the dependencies of the library it finds there,
# which has no path of its own. DT_RUNPATH is not inherited: the same link with
# new dtags does not load.
mkdir -p rpath/deps
echo 'extern "C" int corpus_leaf(int x) { return x * 2; }' >rpath/leaf.cc
g++ -shared -fPIC -o rpath/deps/libcorpusleaf.so rpath/leaf.cc
echo 'extern "C" int corpus_leaf(int); extern "C" int corpus_extra(int x) { return corpus_leaf(x); }' >rpath/mid.cc
g++ -shared -fPIC -o rpath/deps/libcorpusextra.so rpath/mid.cc -Lrpath/deps -lcorpusleaf
readelf -d rpath/deps/libcorpusextra.so | grep -q 'RPATH\|RUNPATH' && fail "the middle library has a path of its own"
g++ -shared -o rpath/libinherits.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 \
  -Lrpath/deps -lcorpusextra -Wl,--disable-new-dtags,-rpath,'$ORIGIN/deps'
readelf -d rpath/libinherits.so | grep -q '(RPATH)' || fail "no DT_RPATH in rpath/libinherits.so"
agree rpath/libinherits.so 2.10.1 loads
agree_root --folder rpath/libinherits.so loads
g++ -shared -o rpath/librunpath.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 \
  -Lrpath/deps -lcorpusextra -Wl,--enable-new-dtags,-rpath,'$ORIGIN/deps'
agree rpath/librunpath.so 2.10.1 fails bundled-without-origin   # the leaf sits beside the middle library, which has no path
agree_root --folder rpath/librunpath.so fails bundled-without-origin

# --- a broken library beside the op (0 bytes, or not ELF), found through
# $ORIGIN: the loader refuses the op ("file too short"), check fails it with a
# finding; another library in the same call is still judged.
for kind in empty text; do
  mkdir -p "broken-$kind" && cp bundle/libbundled.so "broken-$kind/"
  if [ "$kind" = empty ]; then : >"broken-$kind/libcorpusextra.so"; else echo "not a library" >"broken-$kind/libcorpusextra.so"; fi
  agree "broken-$kind/libbundled.so" 2.10.1 fails broken-library
  agree_root --folder "broken-$kind/libbundled.so" fails broken-library
done
# --- this machine's loader finds libraries through ldconfig's cache
# (/etc/ld.so.cache), never through /etc/ld.so.conf itself: a library in a
# folder ld.so.conf lists does not load until ldconfig has run, then it does.
[ "$(id -u)" -eq 0 ] || fail "this case edits /etc/ld.so.conf.d and runs ldconfig: run the suite as root (CI does)"
conf=/etc/ld.so.conf.d/opkit-test-$$.conf
mkdir -p "$work/ldconf" && cp extra/libcorpusextra.so "$work/ldconf/"
echo "$work/ldconf" >"$conf"
trap 'rm -f "$conf"; ldconfig; rm -rf "$scratch"' EXIT
agree needs_extra_210.so 2.10.1 fails missing-library
expect_contains "$work/check.json" 'is in a folder /etc/ld\.so\.conf lists, but not in /etc/ld\.so\.cache'
ldconfig
agree needs_extra_210.so 2.10.1 loads
rm -f "$conf" && ldconfig
agree needs_extra_210.so 2.10.1 fails missing-library

run_opkit 1 check broken-empty/libbundled.so "$good210" --tf 2.10.1 --runtime host --json
python3 - "$work/out" <<'PY' || fail "a broken sibling stopped the judging of the other library"
import json, sys
reports = json.load(open(sys.argv[1]))
assert [r["verdict"] for r in reports] == ["fails", "loads"], [r["verdict"] for r in reports]
assert reports[0]["findings"][0]["kind"] == "broken-library", reports[0]["findings"]
PY

# --- a GLIBCXX version newer than the target's libstdc++ provides: the op is
# linked against a libstdc++.so.6 from a "newer GCC" (a link-time stand-in that
# defines GLIBCXX_3.4.99), then loaded with this machine's real libstdc++.
mkdir -p newer
echo 'extern "C" int opkit_future_api(int x) { return x; }' >newer/future.cc
printf 'GLIBCXX_3.4.99 { global: opkit_future_api; local: *; };\n' >newer/future.map
g++ -shared -fPIC -o newer/libstdc++.so.6 -Wl,-soname,libstdc++.so.6 -Wl,--version-script,newer/future.map newer/future.cc
echo 'extern "C" int opkit_future_api(int); extern "C" int corpus_future(int x) { return opkit_future_api(x); }' >use_future.cc
g++ -c -fPIC -o use_future.o use_future.cc
g++ -shared -o needs_future_210.so $objects210 use_future.o newer/libstdc++.so.6 -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2
readelf -V needs_future_210.so >"$work/versions"
expect_contains "$work/versions" 'Name: GLIBCXX_3\.4\.99'

agree needs_future_210.so 2.10.1 fails version-too-new
agree_root needs_future_210.so fails version-too-new
g++ -shared -o needs_future_112.so $objects112 use_future.o newer/libstdc++.so.6 -L"$(sdk_dir 1.12.0)/lib" -ltensorflow_framework
agree needs_future_112.so 1.12.0 fails version-too-new   # TF 1.x: this machine only

# --- framework version skew under one soname: built for a newer TF 2.x
# (absl::Status, another abseil release), loaded into TF 2.10.1's .so.2.
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION: the newer SDK (python_tf fixture)
run_opkit 0 build --tf "$TF_VERSION" --no-check --build-dir build-newer
agree "build-newer/tf-$TF_VERSION/libcorpus_op.so" 2.10.1 fails framework-version-skew
agree_root "build-newer/tf-$TF_VERSION/libcorpus_op.so" fails framework-version-skew

# --- where the two places differ: kernel helpers that allocate through
# std::allocator and run something once, linked for this machine
# (`--runtime host`): with its GCC 12 and glibc 2.36 the library needs
# __throw_bad_array_new_length@GLIBCXX_3.4.29 and pthread_once@GLIBC_2.34.
# It loads here; the root (GLIBCXX_3.4.28, glibc 2.31) refuses it, and both
# verdicts follow their place.
cat >src/host_only.cc <<'CC'
#include <pthread.h>
#include <cstddef>
#include <memory>
extern "C" std::size_t corpus_grow(std::size_t n) {
  std::allocator<int> allocator;
  int* values = allocator.allocate(n);
  allocator.deallocate(values, n);
  return n;
}
static pthread_once_t corpus_once = PTHREAD_ONCE_INIT;
static int corpus_inits = 0;
static void corpus_init() { ++corpus_inits; }
extern "C" int corpus_init_twice() {
  pthread_once(&corpus_once, corpus_init);
  pthread_once(&corpus_once, corpus_init);
  return corpus_inits;
}
CC
sed -i 's|^sources:|sources:\n  - src/host_only.cc|' opkit.yaml
run_opkit 0 build --tf 2.10.1 --runtime host --build-dir build-host-only
sed -i '/src\/host_only.cc/d' opkit.yaml
host_only=build-host-only/tf-2.10.1/libcorpus_op.so
readelf -V "$host_only" >"$work/versions"
expect_contains "$work/versions" 'Name: GLIBCXX_3\.4\.29'
expect_contains "$work/versions" 'Name: GLIBC_2\.34'
agree "$host_only" 2.10.1 loads
agree_root "$host_only" fails version-too-new
grep -Eq "version .(GLIBCXX_3\.4\.29|GLIBC_2\.34)' not found" "$work/load.out" ||
  { cat "$work/load.out" >&2; fail "the root's loader refused $host_only for another reason"; }

# --- the Python C API from an op, without libpython in its DT_NEEDED: TF's
# Python process has the interpreter in its global scope, so the real
# tf.load_op_library loads it (TF $TF_VERSION in its venv, Python of the
# wheel's tag), and check counts the interpreter's exports (configs/python/);
# a name the interpreter lacks is still refused by both.
agree_python() { # <library> <loads|fails> [finding kind...]: this machine, TF's Python as the loader
  local lib=$1 expected=$2
  shift 2
  local check_rc=0 load_rc=0
  "$OPKIT" check "$lib" --tf "$TF_VERSION" --runtime host --json >"$work/check.json" 2>"$work/check.err" || check_rc=$?
  [ "$check_rc" -le 1 ] || { cat "$work/check.err" >&2; fail "opkit check errored ($check_rc) on $lib"; }
  "$PYTHON" -c "$root_loader" "$(realpath "$lib")" >"$work/load.out" 2>&1 || load_rc=$?
  [ "$load_rc" -eq 0 ] || [ "$load_rc" -eq 3 ] || { cat "$work/load.out" >&2; fail "TF's Python errored ($load_rc) on $lib"; }
  compare "$lib" "in TF $TF_VERSION's Python (this machine)" "$check_rc" "$load_rc" "$expected" "$@"
  host_cases=$((host_cases + 1))
}
mkdir -p python
printf '%s\n' 'extern "C" int Py_IsInitialized(void);' 'extern "C" int corpus_python_ready() { return Py_IsInitialized(); }' >python/ready.cc
printf '%s\n' 'extern "C" int Py_OpkitNoSuchFunction(void);' 'extern "C" int corpus_python_missing() { return Py_OpkitNoSuchFunction(); }' >python/missing.cc
for case in ready missing; do
  g++ -shared -fPIC -o "python/lib$case.so" "python/$case.cc" -L"$(sdk_dir "$TF_VERSION")/lib" -l:libtensorflow_framework.so.2
  if grep -q 'NEEDED.*libpython' <(readelf -d "python/lib$case.so"); then fail "python/lib$case.so links libpython"; fi
done
agree_python python/libready.so loads
agree_python python/libmissing.so fails unresolved-symbol
run_opkit 0 check python/libready.so --tf "$TF_VERSION"   # the default runtime: TF's Python too
run_opkit 1 check python/libmissing.so --tf "$TF_VERSION"
# --- an op linked against what `import tensorflow` loads (TF's C API in
# libtensorflow_cc.so.2 for 2.15.1; _pywrap_tensorflow_internal.so before):
# the loader finds the copy already loaded by its soname, and check counts
# its exports from the index `sdk add` made of it (the SDK does not keep it).
tf_dir=$("$PYTHON" -c 'import os, tensorflow; print(os.path.dirname(tensorflow.__file__))' 2>/dev/null)
[ -e "$tf_dir/libtensorflow_cc.so.2" ] || fail "no libtensorflow_cc.so.2 in TF $TF_VERSION's venv"
[ -e "$OPKIT_HOME/sdks/tensorflow-$TF_VERSION/symbols/libtensorflow_cc.so.2.idx" ] ||
  fail "sdk add kept no index of libtensorflow_cc.so.2"
[ ! -e "$OPKIT_HOME/sdks/tensorflow-$TF_VERSION/lib/libtensorflow_cc.so.2" ] || fail "the SDK kept libtensorflow_cc.so.2"
printf '%s\n' 'extern "C" void* TF_NewGraph();' 'extern "C" void* corpus_graph() { return TF_NewGraph(); }' >python/graph.cc
printf '%s\n' 'extern "C" void* TF_OpkitNoSuchGraph();' 'extern "C" void* corpus_no_graph() { return TF_OpkitNoSuchGraph(); }' >python/nograph.cc
for case in graph nograph; do
  g++ -shared -fPIC -o "python/lib$case.so" "python/$case.cc" -Wl,--no-as-needed -L"$tf_dir" -l:libtensorflow_cc.so.2 \
    -L"$(sdk_dir "$TF_VERSION")/lib" -l:libtensorflow_framework.so.2
done
for case in graph nograph; do
  grep -q 'NEEDED.*libtensorflow_cc\.so\.2' <(readelf -d "python/lib$case.so") || fail "python/lib$case.so does not need libtensorflow_cc.so.2"
done
agree_python python/libgraph.so loads
agree_python python/libnograph.so fails unresolved-symbol

echo "check and the real loader agree on all $cases cases ($host_cases on this machine, $root_cases in the Debian 11 root)" >&2
[ "$host_cases" -eq 31 ] || fail "expected 31 agreement cases on this machine, ran $host_cases"
[ "$root_cases" -eq 16 ] || fail "expected 16 agreement cases in the Debian 11 root, ran $root_cases"
[ "$cases" -eq 47 ] || fail "expected 47 agreement cases, ran $cases"

# --- policies (no machine here has them, so no load to compare): the ceilings
# are applied and named. The stock runtimes accept the good ops (opkit build's
# compat shim keeps GLIBC_2.32 out of them) ...
run_opkit 0 check "$good112" --tf 1.12
run_opkit 0 check "$good210" --tf 2.10.1 --runtime manylinux2014
# ... and the newer-libstdc++ op is refused by manylinux2014, naming the release.
run_opkit 1 check needs_future_210.so --tf 2.10.1 --runtime manylinux2014
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBCXX_3.4.99 from libstdc\+\+\.so\.6'
expect_contains "$work/out" 'why: the target provides libstdc\+\+\.so\.6 up to GLIBCXX_3\.4\.19 \(GCC 4\.8\.3\)'
