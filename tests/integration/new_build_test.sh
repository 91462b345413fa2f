# The main path: opkit new -> build for TF 1.12 and 2.10.1 -> test loads each
# library into its real libtensorflow_framework; a second build compiles nothing.
source "$(dirname "$0")/common.sh"

run_opkit 0 new zero_out
cd zero_out
for f in opkit.yaml src/zero_out_op.cc src/zero_out_kernels.cc python/zero_out_ops.py tests/test_zero_out.py README.md; do
  [ -f "$f" ] || fail "opkit new did not write $f"
done
expect_contains src/zero_out_op.cc 'REGISTER_OP\("ZeroOut"\)'
expect_contains src/zero_out_op.cc 'SetShapeFn'
python3 -m py_compile python/zero_out_ops.py tests/test_zero_out.py

run_opkit 0 build --tf 1.12,2.10.1 -j 2
# Two sources of the project, plus the compat shim opkit adds (templates/compat/).
expect_contains "$work/out" '^tf-1\.12\.0 +built \(3 compiled\) .*/build/tf-1\.12\.0/libzero_out\.so$'
expect_contains "$work/out" '^tf-2\.10\.1 +built \(3 compiled\) .*/build/tf-2\.10\.1/libzero_out\.so$'

# Each library needs its own version's framework soname.
readelf -d build/tf-1.12.0/libzero_out.so >"$work/dyn112"
readelf -d build/tf-2.10.1/libzero_out.so >"$work/dyn210"
expect_contains "$work/dyn112" 'NEEDED.*\[libtensorflow_framework\.so\]'
expect_contains "$work/dyn210" 'NEEDED.*\[libtensorflow_framework\.so\.2\]'
# build.ninja and compile_commands.json are written per target.
python3 -c "import json,sys; c=json.load(open('build/tf-2.10.1/compile_commands.json')); \
a=c[0]['arguments']; assert '-std=c++17' in a and '-D_GLIBCXX_USE_CXX11_ABI=1' in a and '-DEIGEN_MAX_ALIGN_BYTES=64' in a, a"
python3 -c "import json,sys; c=json.load(open('build/tf-1.12.0/compile_commands.json')); \
a=c[0]['arguments']; assert '-std=c++11' in a and '-D_GLIBCXX_USE_CXX11_ABI=0' in a, a"
# Each fits the runtime its TF version's wheel assumes: the libstdc++ members
# above its ceiling linked in, hidden, after the framework library, so what the
# framework exports binds to it (docs/portable-builds.md).
expect_contains build/tf-1.12.0/build.ninja 'link_flags = -shared -L\S*/sdks/tensorflow-1\.12\.0/lib -ltensorflow_framework \S+/portable/\S+/libstdc\+\+_opkit_nonshared\.a -Wl,--exclude-libs,libstdc\+\+_opkit_nonshared\.a -Wl,--gc-sections$'
expect_contains build/tf-2.10.1/build.ninja 'link_flags = -shared -L\S*/sdks/tensorflow-2\.10\.1/lib -l:libtensorflow_framework\.so\.2 \S+/portable/\S+/libstdc\+\+_opkit_nonshared\.a '
# The decision is kept with the target, keyed by what it depends on.
expect_contains build/tf-2.10.1/opkit-portable.json '"key": ".*runtime \\nprofile  \\nsdk tensorflow-2\.10\.1 '

# Nothing changed: nothing is recompiled, and the libraries are untouched.
before=$(stat -c %Y.%N build/tf-*/libzero_out.so build/tf-*/build.ninja | md5sum)
run_opkit 0 build --tf 1.12,2.10.1
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
expect_contains "$work/out" '^tf-2\.10\.1 +up to date '
after=$(stat -c %Y.%N build/tf-*/libzero_out.so build/tf-*/build.ninja | md5sum)
[ "$before" = "$after" ] || fail "a no-op build touched outputs"
# A no-op build decides nothing again: it reads the kept decision (a summary
# changed in it shows through), and an unreadable one is decided again.
sed -i 's/"summary": "libstdc/"summary": "KEPT libstdc/' build/tf-2.10.1/opkit-portable.json
run_opkit 0 build -v --tf 2.10.1
expect_contains "$work/out" '^ +portable: KEPT libstdc'
echo garbage >build/tf-2.10.1/opkit-portable.json
run_opkit 0 build -v --tf 2.10.1
expect_contains "$work/out" '^ +portable: libstdc'
expect_contains build/tf-2.10.1/opkit-portable.json '"summary": "libstdc'

# A source change recompiles just that file.
echo "// touched" >>src/zero_out_kernels.cc
run_opkit 0 build --tf 2.10
expect_contains "$work/out" '^tf-2\.10\.1 +built \(1 compiled\)'

# A version range takes every imported SDK in it, oldest first (the store
# holds 1.12.0, 1.15.5, 2.10.1 and its CUDA build, 2.15.1); one with none in it
# is exit 3, naming the range and what is imported.
run_opkit 0 sdk list --json
python3 - "$work/out" >"$work/in_range" <<'PY'
import json, sys
sdks = json.load(open(sys.argv[1]))
def key(s):
    return tuple(int(p) for p in s["version"].split("."))
def admitted(v):
    return (1, 13) <= v[:2] and v < (2, 11)
print(" ".join(s["id"] for s in sorted((s for s in sdks if s["framework"] == "tensorflow" and admitted(key(s))),
                                         key=lambda s: (key(s), s["id"]))))
PY
grep -q 'tensorflow-1\.15\.5 tensorflow-2\.10\.1' "$work/in_range" || fail "the store lacks the SDKs of the range: $(cat "$work/in_range")"
run_opkit 0 build --tf '>=1.13,<2.11' --dry-run --json
python3 - "$work/out" "$(cat "$work/in_range")" <<'PY'
import json, sys
report, expected = json.load(open(sys.argv[1])), sys.argv[2].split()
got = [t["sdk"] for t in report["targets"]]
assert got == expected, (got, expected)
assert report["dry_run"] and all(t["status"] == "planned" for t in report["targets"]), report["targets"]
PY
run_opkit 3 build --tf '>=3'
expect_contains "$work/err" "^opkit: error: --tf '>=3': no imported TensorFlow SDK in the range \(imported: .*1\.12\.0.*\)"

# The probe loads each library into its real framework and reads TF's registries.
run_opkit 0 test --tf 1.12,2.10.1
for v in 1.12.0 2.10.1; do
  expect_contains "$work/out" "^tensorflow-$v: loaded .*libzero_out\.so into the real libtensorflow_framework \($v\)"
done
[ "$(grep -c '^  op     ZeroOut(to_zero: T) -> (zeroed: T)$' "$work/out")" -eq 2 ] || fail "op not shown twice"
[ "$(grep -c '^  kernel ZeroOut on CPU: T in {float}$' "$work/out")" -eq 2 ] || fail "float CPU kernel not shown twice"
[ "$(grep -c '^  kernel ZeroOut on CPU: T in {int32}$' "$work/out")" -eq 2 ] || fail "int32 CPU kernel not shown twice"
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "not matched twice"

run_opkit 0 test --json
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["ok"] is True
assert [t["version"] for t in report["targets"]] == ["1.12.0", "2.10.1"]
for target in report["targets"]:
    probe = target["probe"]
    assert probe["loaded"] and probe["tf_version"] == target["version"], probe
    (op,) = probe["ops"]
    assert op["name"] == "ZeroOut"
    assert op["attrs"] == [{"name": "T", "type": "type", "allowed": ["int32", "float"], "spec": "T: {int32, float}"}], op["attrs"]
    assert op["stateful"] is False and op["inputs"][0]["spec"] == "to_zero: T", op
    assert sorted((k["device"], k["constraints"][0]["allowed"][0]) for k in probe["kernels"]) == [
        ("CPU", "float"), ("CPU", "int32")], probe["kernels"]
PY

# opkit test compares with opkit.yaml, kernels by their type constraints: declare a type not registered.
sed -i 's/      constraints: {T: \[int32, float\]}/      constraints: {T: [int32, float, double]}/' opkit.yaml
run_opkit 1 test --tf 2.10.1
expect_contains "$work/out" '^  MISMATCH CPU kernel of ZeroOut: opkit\.yaml declares T in \{double, float, int32\}, the library registered T in \{float, int32\}$'
