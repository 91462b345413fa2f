# `opkit init` takes the libraries and their file names from the repository's
# own build description (docs/adopting.md):
# tests/fixtures/lumen_ops names five libraries in three folders in Bazel BUILD
# files (tf_custom_op_library with a glob, a local cc_library dep, gpu_srcs;
# cc_binary linkshared; custom_op_library) and its Python loaders. Unedited,
# the opkit.yaml it writes builds and tests every library on every version
# its sources allow, and the GPU kernel with the CUDA SDK. These are the
# steps of docs/adopting.md, command for command.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/lumen_ops" lumen_ops
cd lumen_ops
[ ! -e opkit.yaml ] || fail "the fixture must not carry an opkit.yaml"

run_opkit 0 init --tf 1.12,2.10.1
cp "$work/out" "$work/init.out"
# One line per library, saying where it came from.
[ "$(grep -c '^found: library ' "$work/init.out")" -eq 5 ] || fail "expected 5 libraries in the report"
expect_contains "$work/init.out" '^found: library normalize_ops <- lumen/text/BUILD:5 tf_custom_op_library "_normalize_ops\.so" \(3 sources; loaded by lumen/text/text_ops\.py:6\)$'
expect_contains "$work/init.out" '^found: library wordpiece_ops <- lumen/text/BUILD:21 tf_custom_op_library "_wordpiece_ops\.so" \(4 sources; '
expect_contains "$work/init.out" '^found: library resize_ops <- lumen/image/BUILD:6 tf_custom_op_library "_resize_ops\.so" \(3 sources, 1 GPU source; '
expect_contains "$work/init.out" '^found: library blur_ops <- lumen/image/BUILD:21 cc_binary "_blur_ops\.so" \(2 sources; loaded by lumen/image/image_ops\.py:9\)$'
expect_contains "$work/init.out" '^found: library embed_ops <- lumen/embed/BUILD:3 custom_op_library "_embed_ops\.so" '
if grep -q '^guessed: library .* <- folder' "$work/init.out"; then fail "a library came from a folder"; fi
python3 - opkit.yaml <<'PY'
import sys, yaml
manifest = yaml.safe_load(open(sys.argv[1]))
libraries = {lib["name"]: lib for lib in manifest["libraries"]}
assert sorted(libraries) == ["blur_ops", "embed_ops", "normalize_ops", "resize_ops", "wordpiece_ops"], sorted(libraries)
for name, lib in libraries.items():
    assert lib["output"] == "_" + name + ".so", lib
sources = {name: lib["sources"] for name, lib in libraries.items()}
# glob(["wordpiece_*.cc"]) and the :vocab dep, with its own dep on //lumen/common:strings.
assert sources["wordpiece_ops"] == ["lumen/common/strings.cc", "lumen/text/vocab.cc",
                                    "lumen/text/wordpiece_kernels.cc", "lumen/text/wordpiece_ops.cc"], sources
assert sources["normalize_ops"] == ["lumen/common/strings.cc", "lumen/text/normalize_kernels.cc",
                                    "lumen/text/normalize_ops.cc"], sources
assert sources["blur_ops"] == ["lumen/image/blur_kernels.cc", "lumen/image/blur_ops.cc"], sources
# gpu_srcs: a `device: gpu` block of the resize library only.
assert libraries["resize_ops"]["when"] == [{"device": "gpu", "sources": ["lumen/image/resize_kernels.cu.cc"]}], libraries["resize_ops"]
assert all("when" not in lib for name, lib in libraries.items() if name != "resize_ops")
# Namespaced op names: TF 2 only; the plain ones build for 1.12 too.
assert libraries["resize_ops"]["tensorflow"] == ">=2.0" and libraries["embed_ops"]["tensorflow"] == ">=2.0"
assert all("tensorflow" not in libraries[n] for n in ("blur_ops", "normalize_ops", "wordpiece_ops"))
assert manifest["build"]["include_dirs"] == ["."], manifest["build"]
# No ops: unless asked (init --ops): opkit.lock, written by the first test, is the contract.
assert all("ops" not in lib for lib in libraries.values()), libraries
PY
for op in 'BoxBlur' 'Lumen>HashEmbed' 'NormalizeText' 'Lumen>Resize1D' 'WordpieceCount'; do
  expect_contains "$work/init.out" "^found: op $op \\("
done

# Unedited: every library builds and loads, 1.12 the three with plain op names.
run_opkit 0 build
expect_contains "$work/out" '^tf-1\.12\.0 +built'
expect_contains "$work/out" '^ +skipped embed_ops '
expect_contains "$work/out" '^ +skipped resize_ops '
expect_contains "$work/out" '^tf-2\.10\.1 +built'
for lib in _normalize_ops _wordpiece_ops _resize_ops _blur_ops _embed_ops; do
  [ -f "build/tf-2.10.1/$lib.so" ] || fail "build/tf-2.10.1/$lib.so missing"
done
for lib in _normalize_ops _wordpiece_ops _blur_ops; do
  [ -f "build/tf-1.12.0/$lib.so" ] || fail "build/tf-1.12.0/$lib.so missing"
done
run_opkit 0 test
[ "$(grep -c '^tensorflow-[0-9.]*: loaded ' "$work/out")" -eq 8 ] || fail "expected 8 libraries loaded (3 on 1.12, 5 on 2.10.1)"
# init wrote no ops: (none asked for): the first test records every interface in opkit.lock, the next compares.
if grep -q '^  matches opkit.yaml$' "$work/out"; then fail "a library with no ops: cannot match opkit.yaml"; fi
[ -f opkit.lock ] || fail "opkit test wrote no opkit.lock"
run_opkit 0 test --no-build
[ "$(grep -c '^  matches opkit\.lock$' "$work/out")" -eq 8 ] || fail "expected 8 libraries matching opkit.lock"
expect_contains "$work/out" '^  kernel Lumen>Resize1D on CPU: T in \{double\}$'
expect_contains "$work/out" '^  op     WordpieceCount\(words: string\) -> \(counts: int32\)$'

# The CUDA SDK: resize_ops' gpu_srcs compile (nvcc) into that library only, and
# its GPU kernel registers.
run_opkit 0 build --tf tensorflow-2.10.1-cuda --lib resize_ops
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built'
python3 - <<'PY'
import json
commands = json.load(open("build/tf-2.10.1-cuda/compile_commands.json"))
device = [c for c in commands if c["file"].endswith("resize_kernels.cu.cc")]
assert device and device[0]["arguments"][0].endswith("nvcc"), device
assert not any("blur" in c["file"] for c in commands), "the blur library was built with --lib resize_ops"
assert "/cuda-11.8/" in device[0]["arguments"][0], device
PY
# Built by TF 2.10.1's own CUDA major (11.8) and fitted to TF 2.10's stock
# runtime, it asks no newer driver than TF: the default check has no finding.
resize=$(ls build/tf-2.10.1-cuda/*.so | grep resize)
run_opkit 0 check "$resize" --tf tensorflow-2.10.1-cuda --json
python3 -c "import json; r=json.load(open('$work/out')); assert r['verdict']=='loads' and r['findings']==[], r"
"$OPKIT_CUDA_TOOLCHAINS/cuda-11.8/usr/bin/cuobjdump" -ptx "$resize" >"$work/ptx"
expect_contains "$work/ptx" '^\.version 7\.[0-9]$'
run_opkit 0 test --tf tensorflow-2.10.1-cuda --lib resize_ops
expect_contains "$work/out" '^  kernel Lumen>Resize1D on GPU: T in \{float\}$'
if grep -q 'CHANGED\|MISMATCH' "$work/out"; then fail "the CUDA build's interface differs"; fi

# --lib-per-folder reads the folders only: the two image libraries become one,
# whose GPU source would be compiled with the CPU-only blur op.
run_opkit 0 init --dry-run --lib-per-folder
expect_contains "$work/err" '^guessed: library image <- folder lumen/image \(--lib-per-folder; 4 sources, 1 GPU source\)$'
[ "$(grep -c '^  - name: ' "$work/out")" -eq 3 ] || fail "expected 3 folder libraries"

# init --ops on the same tree: every attr as its REGISTER_OP states it (a
# string enum and its default, defaults, minimums); opkit test passes on init's
# own output, unedited, for all five libraries.
mkdir -p "$work/with-ops" && cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/lumen_ops/." "$work/with-ops/"
run_opkit 0 -C "$work/with-ops" init --tf 1.12,2.10.1 --ops
python3 - "$work/with-ops/opkit.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
for attr in ('"form: {\\"nfc\\", \\"none\\"} = \\"none\\""', '"lower: bool = true"', '"max_chars: int = 4"',
             '"width: int >= 1"', '"dim: int >= 1"'):
    assert "- " + attr in text, (attr, text)
PY
run_opkit 0 -C "$work/with-ops" test
[ "$(grep -c '^  matches opkit\.yaml$' "$work/out")" -eq 8 ] || fail "init --ops output does not pass opkit test"

# Build files opkit cannot read are notes, never a failure: binary bytes, a
# file over the size limit, an unbalanced rule, a rule whose srcs are not a list.
mkdir -p junk/bin junk/big junk/broken
printf 'tf_custom_op_library(name = "\0\1\2.so")\n' >junk/bin/BUILD
head -c 1100000 /dev/zero | tr '\0' '#' >junk/big/CMakeLists.txt
printf 'tf_custom_op_library(\n  name = "_broken_ops.so",\n  srcs = select({":cuda": ["a.cc"]}) + [\n' >junk/broken/BUILD
run_opkit 0 init --dry-run
expect_contains "$work/err" '^note: junk/bin/BUILD: not text \(NUL bytes\) \(not read\)$'
expect_contains "$work/err" '^note: junk/big/CMakeLists\.txt: larger than opkit reads \(not read\)$'
expect_contains "$work/err" '^note: junk/broken/BUILD:3: srcs of "_broken_ops\.so" is not a list of names opkit reads'
[ "$(grep -c '^found: library ' "$work/err")" -eq 5 ] || fail "the unreadable build files changed the libraries"
