# opkit check's verdict must equal what really happens when the library is
# loaded with that version's real libtensorflow_framework (the probe process:
# the real framework, this machine's real system libraries, dlopen RTLD_NOW).
# The corpus is built here, from the real SDKs.
source "$(dirname "$0")/common.sh"

sdk_dir() { echo "$OPKIT_HOME/sdks/tensorflow-$1"; }
probe_for() { echo "$OPKIT_HOME/probes/tensorflow-$1/tf_probe"; }
cases=0

# agree <library> <tf version> <loads|fails> [finding kind...]
agree() {
  local lib=$1 version=$2 expected=$3
  shift 3
  local check_rc=0 load_rc=0
  "$OPKIT" check "$lib" --tf "$version" --runtime host --json >"$work/check.json" 2>"$work/check.err" || check_rc=$?
  "$(probe_for "$version")" "$lib" >"$work/load.json" 2>/dev/null || load_rc=$?
  [ "$check_rc" -le 1 ] || { cat "$work/check.err" >&2; fail "opkit check errored ($check_rc) on $lib"; }
  [ "$load_rc" -eq 0 ] || [ "$load_rc" -eq 3 ] || fail "probe crashed ($load_rc) on $lib"
  local verdict=loads loaded=loads
  [ "$check_rc" -eq 0 ] || verdict=fails
  [ "$load_rc" -eq 0 ] || loaded=fails
  if [ "$verdict" != "$loaded" ]; then
    cat "$work/check.json" "$work/load.json" >&2
    fail "$lib on TF $version: opkit check says $verdict, the real loader says $loaded"
  fi
  [ "$verdict" = "$expected" ] || { cat "$work/check.json" "$work/load.json" >&2; fail "$lib on TF $version: expected $expected, both say $verdict"; }
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
  echo "agree: $(basename "$lib") on TF $version: $verdict ${*:-}" >&2
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

# --- ABI flag wrong (1.12 built with _GLIBCXX_USE_CXX11_ABI=1)
run_opkit 0 build --tf 1.12 --abi 1 --no-check --build-dir build-abi
agree build-abi/tf-1.12.0/libcorpus_op.so 1.12.0 fails dual-abi-mismatch
# ...and opkit build's own check refuses it.
run_opkit 1 build --tf 1.12 --abi 1 --build-dir build-abi
expect_contains "$work/out" '^tf-1\.12\.0 +CHECK FAILED'
expect_contains "$work/out" 'error \[dual-abi-mismatch\]'

# --- wrong -std for 2.10.1 (C++14: absl::string_view instead of std::string_view)
run_opkit 0 build --tf 2.10.1 --std 14 --no-check --build-dir build-std
agree build-std/tf-2.10.1/libcorpus_op.so 2.10.1 fails cxx-standard-mismatch

# --- built for 2.10.1, loaded into 1.12
agree "$good210" 1.12.0 fails wrong-framework-soname

# --- a symbol the framework does not export
cat >src/not_exported.cc <<'CC'
namespace tensorflow { void NotExportedByAnyFramework(int); }
extern "C" void corpus_call_missing(int x) { tensorflow::NotExportedByAnyFramework(x); }
CC
sed -i 's|^sources:|sources:\n  - src/not_exported.cc|' opkit.yaml
run_opkit 1 build --tf 2.10.1 --build-dir build-missing
expect_contains "$work/out" 'error \[framework-symbol-missing\]'
agree build-missing/tf-2.10.1/libcorpus_op.so 2.10.1 fails framework-symbol-missing
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
g++ -shared -o needs_extra_112.so $objects112 use_extra.o -L"$(sdk_dir 1.12.0)/lib" -ltensorflow_framework -Lextra -lcorpusextra
agree needs_extra_112.so 1.12.0 fails missing-library
# Bundled next to the op with RUNPATH $ORIGIN, the same library is found: both agree it loads.
mkdir -p bundle && cp extra/libcorpusextra.so bundle/
g++ -shared -o bundle/libbundled.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 -Lextra -lcorpusextra -Wl,-rpath,'$ORIGIN'
agree bundle/libbundled.so 2.10.1 loads
# Bundled but without $ORIGIN: the loader does not look there.
g++ -shared -o bundle/libnoorigin.so $objects210 use_extra.o -L"$(sdk_dir 2.10.1)/lib" -l:libtensorflow_framework.so.2 -Lextra -lcorpusextra
agree bundle/libnoorigin.so 2.10.1 fails bundled-without-origin

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
g++ -shared -o needs_future_112.so $objects112 use_future.o newer/libstdc++.so.6 -L"$(sdk_dir 1.12.0)/lib" -ltensorflow_framework
agree needs_future_112.so 1.12.0 fails version-too-new

# --- framework version skew under one soname: built for a newer TF 2.x
# (absl::Status, another abseil release), loaded into TF 2.10.1's .so.2.
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION: the newer SDK (python_tf fixture)
run_opkit 0 build --tf "$TF_VERSION" --no-check --build-dir build-newer
agree "build-newer/tf-$TF_VERSION/libcorpus_op.so" 2.10.1 fails framework-version-skew

echo "check and the real loader agree on all $cases cases" >&2
[ "$cases" -eq 15 ] || fail "expected 15 agreement cases, ran $cases"

# --- policies (no machine here has them, so no load to compare): the ceilings
# are applied and named. The stock runtimes accept the good ops (opkit build's
# compat shim keeps GLIBC_2.32 out of them) ...
run_opkit 0 check "$good112" --tf 1.12
run_opkit 0 check "$good210" --tf 2.10.1 --runtime manylinux2014
# ... and the newer-libstdc++ op is refused by manylinux2014, naming the release.
run_opkit 1 check needs_future_210.so --tf 2.10.1 --runtime manylinux2014
expect_contains "$work/out" 'error \[version-too-new\] needs GLIBCXX_3.4.99 from libstdc\+\+\.so\.6'
expect_contains "$work/out" 'why: the target provides libstdc\+\+\.so\.6 up to GLIBCXX_3\.4\.19 \(GCC 4\.8\.3\)'
