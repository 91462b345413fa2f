# Adopting a research repository's op tree as it is (issue 48's shape):
# tests/fixtures/research_ops has three op folders under tf_ops/, one named
# with a leading digit, each with a *_compile.sh calling nvcc and g++ by hand
# and a Python loader naming tf_<name>_so.so; two folders hold GPU kernels only,
# one a benchmark with its own main() beside the op. No hand edits to what
# init writes, but the value tests a user adds.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/research_ops" research_ops
cd research_ops
[ ! -e opkit.yaml ] || fail "the fixture must not carry an opkit.yaml"

run_opkit 0 init --tf 1.12,2.10.1 --ops
cat "$work/out" "$work/err" >"$work/init.out"
expect_contains "$work/init.out" 'tf_ops/sampling/tf_sampling_compile.sh:[0-9]+ g\+\+ call "tf_sampling_so.so"'
expect_contains "$work/init.out" 'guessed: library tf_sampling is built by CUDA SDKs alone'
expect_contains "$work/init.out" 'guessed: library tf_grouping is built by CUDA SDKs alone'
python3 - opkit.yaml <<'PY'
import re, sys
text = open(sys.argv[1]).read()
libraries = re.findall(r"^  - name: (\S+)\n    output: (\S+)\n((?:    .*\n)*)", text, re.M)
found = {name: (output, body) for name, output, body in libraries}
assert set(found) == {"tf_interpolate", "tf_sampling", "tf_grouping"}, found
for name in found:
    assert found[name][0] == name + "_so.so", found[name]  # the loaders' file names
for name in ("tf_sampling", "tf_grouping"):
    assert "device: gpu" in found[name][1], found[name]
    assert re.search(r"sources: \[tf_ops/\w+/tf_\w+_g\.cu\]", found[name][1]), found[name]
assert "device: gpu" not in found["tf_interpolate"][1]
# Attrs as the registry states them: the enum and its default, the minimum.
assert '- "metric: {\\"squared\\", \\"euclidean\\"} = \\"squared\\""' in text, text
assert '- "npoint: int >= 1"' in text, text
# The benchmark beside the op (its own main(), the op's functions again) is left out.
assert "interpolate.cpp" not in text.replace("tf_interpolate.cpp", ""), text
PY

# A folder named with a leading digit, read without a build file, is named validly.
mkdir -p "$work/by-folder" && cp -r tf_ops "$work/by-folder/" && rm "$work/by-folder"/tf_ops/*/*.sh "$work/by-folder"/tf_ops/*/*.py
run_opkit 0 -C "$work/by-folder" init --tf 2.10.1 --dry-run
cat "$work/out" "$work/err" >"$work/folders.out"
expect_contains "$work/folders.out" "note: folder tf_ops/3d_interpolation: '3d_interpolation' is no valid library name \(it must start with a letter\); named 'interpolation_3d'"
expect_contains "$work/folders.out" 'interpolate\.cpp:[0-9]+: a program \(int main\) that registers no op: left out'
expect_contains "$work/out" '^  - name: interpolation_3d$'

# The value test a user adds to init's output.
python3 - opkit.yaml <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "      - name: NearestDistance\n"
at = text.index(anchor)
kernels = text.index("          - device: CPU\n", at) + len("          - device: CPU\n")
tests = ("        tests:\n"
         "          - inputs: {xyz1: {dtype: float, value: [[[0, 0, 0], [1, 1, 1]]]},\n"
         "                     xyz2: {dtype: float, value: [[[1, 0, 0], [3, 1, 1]]]}}\n"
         "            outputs: {dist: [[1.0, 2.0]]}\n"
         "          - attrs: {metric: euclidean}\n"
         "            inputs: {xyz1: {dtype: float, value: [[[0, 0, 0]]]}, xyz2: {dtype: float, value: [[[3, 4, 0]]]}}\n"
         "            outputs: {dist: [[5.0]]}\n")
open(path, "w").write(text[:kernels] + tests + text[kernels:])
PY

# CPU builds make the CPU library and skip the GPU-only ones, saying why.
run_opkit 0 build
for version in 1.12.0 2.10.1; do
  expect_contains "$work/out" "^tf-${version//./\\.} +built"
  [ -f "build/tf-$version/tf_interpolate_so.so" ] || fail "build/tf-$version/tf_interpolate_so.so missing"
  [ ! -e "build/tf-$version/tf_sampling_so.so" ] || fail "a CPU build made the GPU-only library"
done
[ "$(grep -c 'skipped tf_sampling (GPU kernels only: built by CUDA SDKs)' "$work/out")" -eq 2 ] ||
  fail "tf_sampling is not skipped with its reason on both versions"
run_opkit 0 test
expect_contains "$work/out" 'NearestDistance'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "expected tf_interpolate matched on 1.12 and 2.10.1"
run_opkit 0 test --python
[ "$(grep -c '^    NearestDistance (nearest_distance) vector [01]: ok$' "$work/out")" -eq 4 ] ||
  fail "the value tests did not pass on 1.12 and 2.10.1"

# The CUDA build of 2.10.1 compiles every .cu with nvcc and registers every GPU kernel.
run_opkit 0 build --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" '^tf-2\.10\.1-cuda +built'
python3 - <<'PY'
import json
commands = json.load(open("build/tf-2.10.1-cuda/compile_commands.json"))
device = sorted(c["file"].rsplit("/", 1)[1] for c in commands if c["arguments"][0].endswith("nvcc"))
assert device == ["tf_grouping_g.cu", "tf_sampling_g.cu"], device
PY
for lib in tf_interpolate_so tf_sampling_so tf_grouping_so; do
  [ -f "build/tf-2.10.1-cuda/$lib.so" ] || fail "build/tf-2.10.1-cuda/$lib.so missing"
done
run_opkit 0 test --tf tensorflow-2.10.1-cuda
expect_contains "$work/out" '^  kernel FarthestSample on GPU'
expect_contains "$work/out" '^  kernel BallCount on GPU'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 3 ] || fail "the CUDA build does not match opkit.yaml"
# A prebuilt copy in the tree (a release's library, as EasyRec keeps them)
# whose strings hold every op a folder's sources register names that library.
mkdir -p "$work/by-folder/releases/2.10"
cp build/tf-2.10.1/tf_interpolate_so.so "$work/by-folder/releases/2.10/libnearest_distance.so"
run_opkit 0 -C "$work/by-folder" init --tf 2.10.1 --dry-run
cat "$work/out" "$work/err" >"$work/prebuilt.out"
expect_contains "$work/prebuilt.out" 'guessed: library interpolation_3d is nearest_distance, builds libnearest_distance\.so \(releases/2\.10/libnearest_distance\.so in the tree'
expect_contains "$work/out" '^  - name: nearest_distance$'
echo "PASS: adopt_research_ops"
