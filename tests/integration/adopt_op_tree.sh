# Adopting an existing op tree (docs/adopting.md), step by
# step on tests/fixtures/acme_ops: three libraries, repository-root includes,
# namespaced op names, string ops with attrs without defaults that need a define
# on TF 1.12 only, and a GPU kernel using gpu_kernel_helper.h. No hand edits.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/acme_ops" acme_ops
cd acme_ops
[ ! -e opkit.yaml ] || fail "the fixture must not carry an opkit.yaml"

# Without --ops, init writes no `ops:`: opkit.lock (`opkit test`) records each op's interface.
run_opkit 0 init --tf 1.12,2.10.1 --dry-run
if grep -q '^ *ops:' "$work/out"; then fail "init wrote ops: without --ops"; fi
expect_contains "$work/out" '^    sources: '
[ ! -e opkit.yaml ] || fail "init --dry-run wrote opkit.yaml"
# --ops: each op's interface as a contract opkit test compares (the steps below need it).
run_opkit 0 init --tf 1.12,2.10.1 --ops
[ -f opkit.yaml ] || fail "opkit init wrote no opkit.yaml"
grep -q '^    ops:' opkit.yaml || fail "init --ops wrote no ops:"
cp "$work/out" "$work/init.out"
for lib in text embed resampler; do expect_contains "$work/init.out" "$lib"; done
expect_contains "$work/init.out" 'Acme>LoadKVEmbed'
expect_contains "$work/init.out" 'guess'
python3 - opkit.yaml <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for output in ("_text_ops.so", "_embed_ops.so", "_resampler_ops.so"):
    assert f"output: {output}" in text, output
assert "resampler_kernels.cu.cc" in text and "device: gpu" in text, text
assert "compat: [tstring]" in text and "tstring=" not in text, text
PY
# It never overwrites an opkit.yaml.
cp opkit.yaml "$work/opkit.yaml.first"
run_opkit 2 init
expect_one_error_line
expect_contains "$work/err" 'opkit\.yaml'
cmp opkit.yaml "$work/opkit.yaml.first" || fail "init changed an existing opkit.yaml"

# Both versions; 1.12 builds what its sources allow (no namespaced op names there).
run_opkit 0 build
expect_contains "$work/out" '^tf-1\.12\.0 +built'
expect_contains "$work/out" '^ +skipped embed '
expect_contains "$work/out" '^ +skipped resampler '
expect_contains "$work/out" '^tf-2\.10\.1 +built'
for lib in _text_ops _embed_ops _resampler_ops; do
  [ -f "build/tf-2.10.1/$lib.so" ] || fail "build/tf-2.10.1/$lib.so missing"
done
[ -f build/tf-1.12.0/_text_ops.so ] || fail "build/tf-1.12.0/_text_ops.so missing"
# The settings are in the build files: the repository-root include, the 1.12-only define.
python3 - <<'PY'
import json, os
root = os.getcwd()
for version, shim in (("1.12.0", True), ("2.10.1", False)):
    commands = json.load(open(f"build/tf-{version}/compile_commands.json"))
    text = [c for c in commands if c["file"].endswith("text_kernels.cc")][0]["arguments"]
    assert "-I" + root in text, text
    # 1.12 has no tstring: the compat header (forced in after the PCH) gives it, qualified uses included.
    header = os.path.join(root, f"build/tf-{version}/opkit/compat/tstring.h")
    forced = [text[i + 1] for i, a in enumerate(text[:-1]) if a == "-include"]
    assert (header in forced) == shim, (version, forced)
    assert not any(a.startswith("-Dtstring") for a in text), text
    if shim:
        assert "typedef std::string tstring;" in open(header).read()
PY
grep -q -- '-I' build/tf-2.10.1/build.ninja || fail "include roots missing from build.ninja"

run_opkit 0 test
expect_contains "$work/out" '^  op     HashStrings\(keys: string\) -> \(buckets: int64\)$'
expect_contains "$work/out" '^  attr   salt: string$'
expect_contains "$work/out" '^  kernel Acme>Resampler on CPU: T in \{double\}$'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 4 ] || fail "expected 4 libraries matched (1 on 1.12, 3 on 2.10.1)"

# --lib selects.
run_opkit 0 build --tf 2.10.1 --lib embed
expect_contains "$work/out" '^tf-2\.10\.1 +up to date .*/_embed_ops\.so$'

# The CUDA SDK beside the CPU one: a version keeps the CPU one, the id the CUDA
# one, each into its own folder; the GPU kernel registers in the CUDA framework.
# (The static CUDA runtime needs glibc 2.34: checked against this machine.)
run_opkit 0 build --tf tensorflow-2.10.1-cuda --runtime host
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built'
python3 - <<'PY'
import json
cpu = json.load(open("build/tf-2.10.1/compile_commands.json"))
cuda = json.load(open("build/tf-2.10.1-cuda/compile_commands.json"))
assert all("tensorflow-2.10.1-cuda" not in " ".join(c["arguments"]) for c in cpu), "a plain version chose the CUDA SDK"
device = [c for c in cuda if c["file"].endswith(".cu.cc")]
assert device and device[0]["arguments"][0].endswith("nvcc"), device
assert any(a.endswith("tf-2.10.1-cuda/opkit/cuda") for a in device[0]["arguments"]), device[0]["arguments"]
PY
[ -f build/tf-2.10.1-cuda/opkit/cuda/third_party/gpus/cuda/include/cuda_fp16.h ] || fail "cuda_fp16.h not mapped"
# gpu/cub/... (TensorFlow's Bazel @cub_archive prefix) resolves to the toolkit's cub.
[ -f build/tf-2.10.1-cuda/opkit/cuda/gpu/cub/device/device_reduce.cuh ] || fail "gpu/cub not mapped"
run_opkit 0 test --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" '^  kernel Acme>Resampler on GPU: T in \{float\}$'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 3 ] || fail "the CUDA build does not match opkit.yaml"

# CXX="ccache g++" compiles through ccache: a second clean build hits.
export CCACHE_DIR="$work/ccache"
OPKIT_CACHE=off CXX="ccache g++" run_opkit 0 build --tf 2.10.1 --lib text --build-dir build-ccache
grep -q '^launcher = .*ccache' build-ccache/tf-2.10.1/build.ninja || fail "no ccache launcher in build.ninja"
rm -rf build-ccache
OPKIT_CACHE=off CXX="ccache g++" run_opkit 0 build --tf 2.10.1 --lib text --build-dir build-ccache
expect_contains "$work/out" 'ccache: [1-9][0-9]* hits? '
ccache -s >"$work/ccache-stats" 2>&1
expect_contains "$work/ccache-stats" 'Hits: +[1-9]'
# A compiler that is really missing: the program looked for is named.
CXX="ccache no-such-g++" run_opkit 3 build --tf 2.10.1 --lib text --build-dir build-missing
expect_one_error_line
expect_contains "$work/err" 'no-such-g\+\+: C\+\+ compiler not found'
[ ! -e build-missing ] || fail "build-missing/ created without a compiler"
unset CCACHE_DIR

# Every library goes into the packages: the EasyRec ops overlay carries all three.
run_opkit 0 package easyrec --tf 2.10.1 --version 0_1_0 -o dist
tar tzf dist/easy_rec_ext_0_1_0_overlay.tar.gz >"$work/members"
for lib in _text_ops _embed_ops _resampler_ops; do
  expect_contains "$work/members" "^easy_rec/python/ops/2\.10/$lib\.so$"
done

# A header listed among the sources is a dependency, never compiled.
sed -i 's#sources: \[acme/text/text_kernels.cc, acme/text/text_ops.cc\]#sources: [acme/text/text_kernels.cc, acme/text/text_ops.cc, acme/common/hash.h]#' opkit.yaml
grep -q 'acme/common/hash.h\]' opkit.yaml || fail "could not list the header"
run_opkit 0 build --tf 2.10.1 --lib text
[ -z "$(find build -name 'hash.h*' -o -name '*.gch' | grep -v '^build/tf-[^/]*/sdk')" ] || fail "a listed header was compiled"
# An unknown --lib: one line naming the libraries there are.
run_opkit 2 build --lib nope
expect_one_error_line
expect_contains "$work/err" '--lib nope: no such library .*\(it has: embed, resampler, text\)'

# The opkit.yaml reference's example (docs/opkit-yaml.md) is valid (it gets as far as looking for the SDK).
mkdir -p "$work/readme" && python3 - "$OPKIT_SOURCE_DIR/docs/opkit-yaml.md" "$work/readme/opkit.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
section = text[text.index("# `opkit.yaml`"):]
start = section.index("```yaml\n") + len("```yaml\n")
open(sys.argv[2], "w").write(section[start:section.index("```", start)])
PY
run_opkit 3 -C "$work/readme" build --tf 0.1
expect_contains "$work/err" 'tensorflow 0\.1: no SDK imported'

# Breaking one kernel's type registration: exit 1, naming it.
sed -i 's/^TF_CALL_double(REGISTER_CPU);$//' acme/resampler/resampler_kernels.cc
run_opkit 0 build --tf 2.10.1 --lib resampler
run_opkit 1 test --tf 2.10.1 --lib resampler
expect_contains "$work/out" 'MISMATCH CPU kernel of Acme>Resampler: opkit\.yaml declares T in \{double, float\}, the library registered T in \{float\}'
# Removing the second op of a library: exit 1, naming it.
python3 - <<'PY'
import re
for path, pattern in (("acme/text/text_ops.cc", r'REGISTER_OP\("JoinStrings"\)[^;]*;'),
                      ("acme/text/text_kernels.cc", r'REGISTER_KERNEL_BUILDER\(Name\("JoinStrings"\)[^;]*;')):
    text = open(path).read()
    new = re.sub(pattern, "", text, flags=re.S)
    assert new != text, path
    open(path, "w").write(new)
PY
run_opkit 0 build --tf 2.10.1 --lib text
run_opkit 1 test --tf 2.10.1 --lib text
expect_contains "$work/out" 'MISMATCH op JoinStrings is not registered by the library'

# An op the library registers but opkit.yaml does not declare is reported too.
cat >>acme/embed/kv_embed_ops.cc <<'CC'
namespace tensorflow {
REGISTER_OP("Acme>Undeclared").Input("x: float").Output("y: float");
}  // namespace tensorflow
CC
run_opkit 0 build --tf 2.10.1 --lib embed
run_opkit 1 test --tf 2.10.1 --lib embed
expect_contains "$work/out" 'MISMATCH op Acme>Undeclared is registered by the library but not declared in opkit\.yaml'
