# Siblings as glibc's loader treats them (open_verify): beside an op whose
# RUNPATH is $ORIGIN, a library of another ELF class or machine is passed
# over and the search goes on; one of the right class in another byte order
# stops the load. And in a TF process libz.so.1 is already mapped (Python's
# zlib module), so the loader takes that one by soname and never reads a
# sibling. The real loader is the judge: plain dlopen (a C harness, no
# libz loaded) for --runtime host without a framework, and tf.load_op_library
# in the real TF venvs for --tf, with the default runtime and --runtime host:
# TF 2.15.1 (python_tf fixture), 1.12.0 and 2.10.1 (the venvs of `opkit test
# --python`, made once in the shared cache).
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env" # TF_VERSION, PYTHON
run_opkit 0 new sibling_venvs --tf 1.12,2.10.1
cd sibling_venvs
run_opkit 0 build
run_opkit 0 test --python
cd "$work"
releases=("$TF_VERSION=$PYTHON" "1.12.0=$OPKIT_VENVS/tf-1.12.0-py3.6/bin/python"
  "2.10.1=$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python")
for release in "${releases[@]}"; do
  [ -x "${release#*=}" ] || fail "no TF ${release%%=*} venv at ${release#*=} after opkit test --python"
done
zlib=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ && !found { print $NF; found = 1 }') # no early exit: ldconfig would die of SIGPIPE
[ -f "$zlib" ] || fail "no x86-64 libz.so.1 in ldconfig's cache (install zlib1g)"

cat >harness.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  void* handle = dlopen(argv[1], RTLD_NOW);
  if (!handle) { printf("%s\n", dlerror()); return 3; }
  printf("loaded\n");
  return 0;
}
C
gcc -o harness harness.c -ldl
cat >op.cc <<'CC'
extern "C" const char* zlibVersion();
extern "C" int corpus_dep();
extern "C" int op_zlib() { return zlibVersion()[0] + corpus_dep(); }
CC
echo 'extern "C" int corpus_dep() { return 1; }' >dep.cc
g++ -shared -fPIC -o libcorpus_dep.so dep.cc

# patch <file> <offset> <bytes as printf escapes>
patch_bytes() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# case <folder> <what the sibling is>: the op, linked with libz (and libcorpus_dep.so), and its sibling.
make_case() {
  mkdir -p "$1"
  g++ -shared -fPIC -o "$1/libop.so" op.cc -L. -lz -lcorpus_dep -Wl,-rpath,'$ORIGIN'
  cp libcorpus_dep.so "$1/"
}
make_case class32 && cp "$zlib" class32/libz.so.1 && patch_bytes class32/libz.so.1 4 '\001'
make_case arm && cp "$zlib" arm/libz.so.1 && patch_bytes arm/libz.so.1 18 '\267\000'
make_case msb && cp "$zlib" msb/libz.so.1 && patch_bytes msb/libz.so.1 5 '\002'
make_case armdep && cp libcorpus_dep.so armdep/libcorpus_dep.so && patch_bytes armdep/libcorpus_dep.so 18 '\267\000'
make_case plain
readelf -d plain/libop.so >"$work/dynamic"
expect_contains "$work/dynamic" 'NEEDED.*\[libz\.so\.1\]'
expect_contains "$work/dynamic" 'NEEDED.*\[libcorpus_dep\.so\]'

# judge <folder> <plain dlopen: loads|fails> <TF: loads|fails>: check agrees with each loader.
judge() {
  local dir=$1 plain=$2 in_tf=$3 rc=0 got
  ./harness "$work/$dir/libop.so" >"$work/load.out" 2>&1 || rc=$?
  got=$([ "$rc" -eq 0 ] && echo loads || echo fails)
  [ "$got" = "$plain" ] || fail "$dir: plain dlopen $got ($(cat "$work/load.out")), expected $plain"
  rc=0
  "$OPKIT" check "$dir/libop.so" --runtime host >"$work/out" 2>"$work/err" || rc=$?
  got=$([ "$rc" -eq 0 ] && echo loads || echo fails)
  [ "$got" = "$plain" ] || { cat "$work/out" >&2; fail "$dir: check --runtime host says $got, dlopen $plain"; }
  local release version python
  for release in "${releases[@]}"; do
    version=${release%%=*} python=${release#*=} rc=0
    "$python" "$OPKIT_SOURCE_DIR/tests/integration/tf_load.py" "$work/$dir/libop.so" >"$work/load.out" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$work/load.out" >&2; fail "$dir: TF $version's Python errored ($rc)"; }
    got=$([ "$rc" -eq 0 ] && echo loads || echo fails)
    [ "$got" = "$in_tf" ] || fail "$dir: TF $version's loader $got ($(cat "$work/load.out")), expected $in_tf"
    for runtime in "" host; do
      rc=0
      "$OPKIT" check "$dir/libop.so" --tf "$version" ${runtime:+--runtime "$runtime"} >"$work/out" 2>"$work/err" || rc=$?
      got=$([ "$rc" -eq 0 ] && echo loads || echo fails)
      [ "$got" = "$in_tf" ] ||
        { cat "$work/out" >&2; fail "$dir: check --tf $version ${runtime:+--runtime $runtime} says $got, TF $in_tf"; }
    done
  done
}
judge plain loads loads
# 32-bit and aarch64 libz beside the op: passed over, the system's taken.
judge class32 loads loads
judge arm loads loads
# The right class in big-endian: plain dlopen stops there; in TF the loaded libz is taken.
judge msb fails loads
./harness "$work/msb/libop.so" >"$work/load.out" || true
grep -q 'data encoding not little-endian' "$work/load.out" || fail "plain dlopen failed msb for another reason"
"$OPKIT" check msb/libop.so --runtime host >"$work/out" 2>&1 || true
expect_contains "$work/out" 'broken-library\] needs libz\.so\.1, and the loader finds .*/msb/libz\.so\.1'
# An aarch64 build of a library only the op has: passed over, none found.
judge armdep fails fails
./harness "$work/armdep/libop.so" >"$work/load.out" || true
grep -q 'cannot open shared object file' "$work/load.out" || fail "armdep failed for another reason"
"$OPKIT" check armdep/libop.so --tf "$TF_VERSION" >"$work/out" 2>&1 || true
expect_contains "$work/out" 'missing-library\] needs libcorpus_dep\.so, which the target does not have'
expect_contains "$work/out" 'the loader passes over .*/armdep/libcorpus_dep\.so \(an aarch64 library\)'
# Two bundled libraries that both need one broken file (as a kafka client's
# libraries need libcrypto): the loader stops at it once; check reports it
# once, saying through which library.
mkdir -p twice
echo 'extern "C" int shared_helper() { return 1; }' >helper.cc
g++ -shared -fPIC -Wl,-soname,libbroken.so.1 -o twice/libbroken.so.1 helper.cc
for name in left right; do
  echo "extern \"C\" int shared_helper(); extern \"C\" int $name() { return shared_helper(); }" >"$name.cc"
  g++ -shared -fPIC -o "twice/lib$name.so" "$name.cc" -Ltwice -l:libbroken.so.1 -Wl,-rpath,'$ORIGIN'
done
: >twice/libbroken.so.1
printf '%s\n' 'extern "C" int left(); extern "C" int right();' 'extern "C" int both() { return left() + right(); }' >both.cc
g++ -shared -fPIC -o twice/libop.so both.cc -Ltwice -lleft -lright -Wl,-rpath,'$ORIGIN'
./harness "$work/twice/libop.so" >"$work/load.out" || true
grep -q 'file too short' "$work/load.out" || fail "the loader refused twice/libop.so for another reason: $(cat "$work/load.out")"
run_opkit 1 check twice/libop.so --runtime host
[ "$(grep -c 'broken-library\]' "$work/out")" -eq 1 ] || { cat "$work/out" >&2; fail "the broken file is not reported once"; }
expect_contains "$work/out" 'broken-library\] needs libbroken\.so\.1 \(through libleft\.so\), and the loader finds .*/twice/libbroken\.so\.1, which it cannot load'
echo "check_siblings: the siblings agree with plain dlopen and with the loaders of TF ${releases[*]%%=*}; a broken file needed twice is one finding" >&2
