# `opkit init` on a torch extension shaped like PyG's (tests/fixtures/segkit:
# several operators in csrc/ across TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT and
# TORCH_LIBRARY_IMPL blocks, an include root, a setup.py listing two
# CppExtensions, one schema init infers from its C++ function as torch does),
# then `opkit build` for torch 2.5.1 and 2.8.0 (the two C++ ABIs), `opkit test` (the
# dispatcher's schemas and kernels against what init declared), and `opkit
# test --python` in both real torch venvs, with expected values computed by
# the same computation written in plain torch, in each of those venvs.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/segkit" .
cd segkit

# Torch sources: --tf is one clear error naming the right flag, and nothing is written.
run_opkit 2 init --tf 2.10
expect_one_error_line
expect_contains "$work/err" '--tf: the sources here register PyTorch ops \(TORCH_LIBRARY\): pass --torch'
[ ! -e opkit.yaml ] || fail "a refused init wrote opkit.yaml"

run_opkit 0 init --ops --torch 2.5,2.8
cp "$work/out" "$work/init.out"
expect_contains "$work/out" '^found: library segment <- setup\.py:[0-9]+ CppExtension "_segment\.so" \(2 sources\)$'
expect_contains "$work/out" '^found: library gather <- setup\.py:[0-9]+ CppExtension "_gather\.so" \(1 source\)$'
expect_contains "$work/out" '^found: include folder csrc \(csrc/cpu/segment_cpu\.cpp:[0-9]+ includes "utils\.h"\)$'
expect_contains "$work/out" '^found: op segkit::segment_sum \(csrc/segment\.cpp:[0-9]+; segkit::segment_sum\(Tensor src, Tensor ptr\) -> Tensor\)$'
expect_contains "$work/out" '^found: op segkit::segment_max \(csrc/segment\.cpp:[0-9]+; segkit::segment_max\(Tensor src, Tensor ptr\) -> \(Tensor out, Tensor arg_out\)\)$'
expect_contains "$work/out" '^found: CPU kernel of segkit::segment_sum \(csrc/cpu/segment_cpu\.cpp:[0-9]+\)$'
expect_contains "$work/out" '^found: op segkit::gather_csr \(csrc/gather\.cpp:[0-9]+; schema inferred from its C\+\+ function: segkit::gather_csr\(Tensor _0, Tensor _1\) -> Tensor _0\)$'
expect_contains "$work/out" '^found: CompositeImplicitAutograd kernel of segkit::gather_csr \(csrc/gather\.cpp:[0-9]+\)$'
expect_contains "$work/out" 'wrote .*/segkit/opkit\.yaml \(2 libraries\); next: opkit build$'
expect_contains opkit.yaml '^template: torch-op$'
expect_contains opkit.yaml '^  torch: \["2\.5", "2\.8"\]$'
expect_contains opkit.yaml '^    output: _segment\.so$'
expect_contains opkit.yaml '^    output: _gather\.so$'
expect_contains opkit.yaml '^      - schema: "segkit::segment_max\(Tensor src, Tensor ptr\) -> \(Tensor out, Tensor arg_out\)"$'
expect_contains opkit.yaml '^      - schema: "segkit::gather_csr\(Tensor _0, Tensor _1\) -> Tensor _0"$'
expect_contains opkit.yaml '^        kernels: \[CompositeImplicitAutograd\]$'
expect_contains opkit.yaml '^        kernels: \[CPU\]$'
expect_contains opkit.yaml '^  include_dirs: \[csrc\]$' # the include root cpu/segment_cpu.cpp's "utils.h" needs

run_opkit 0 build
for v in 2.5.1 2.8.0; do
  for lib in _segment _gather; do
    [ -f "build/torch-$v-cuda/$lib.so" ] || fail "no build/torch-$v-cuda/$lib.so"
  done
done
# Each built with its torch's ABI: 2.5.1's old std::string, 2.8.0's std::__cxx11 one.
nm -D --undefined-only build/torch-2.5.1-cuda/_segment.so >"$work/nm-2.5"
nm -D --undefined-only build/torch-2.8.0-cuda/_segment.so >"$work/nm-2.8"
expect_contains "$work/nm-2.5" '_ZN5torch7LibraryC1ENS0_4KindESs'
expect_contains "$work/nm-2.8" '_ZN5torch7LibraryC1ENS0_4KindENSt7__cxx11'

# The real dispatcher's view: the schemas init read, and the one it inferred
# (named as torch names it), match.
run_opkit 0 test
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/_segment\\.so into the real libtorch_cpu \\($v\\)"
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/_gather\\.so into the real libtorch_cpu \\($v\\)"
done
expect_contains "$work/out" '^  op     segkit::gather_csr\(Tensor _0, Tensor _1\) -> Tensor _0$'
expect_contains "$work/out" '^  kernel segkit::segment_max on CPU$'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 4 ] || fail "_segment.so and _gather.so do not both match opkit.yaml in both versions"

# Test vectors, their expected values computed in plain torch (no segkit) by
# the venv of each version, which must agree; gather_csr's arguments and
# result named as the inferred schema names them.
venv25="$OPKIT_VENVS/torch-2.5.1-py3.10/bin/python"
venv28="$OPKIT_VENVS/torch-2.8.0-py3.11/bin/python"
[ -x "$venv25" ] && [ -x "$venv28" ] || fail "no torch venvs: integration.torch_build (fixture python_torch) makes them"
cat >"$work/reference.py" <<'PY'
"""The vectors, with outputs from plain torch: prints them as JSON."""
import json
import torch

def segment_sum(src, ptr):
    rows = [src[a:b].sum(0).to(src.dtype) for a, b in zip(ptr[:-1].tolist(), ptr[1:].tolist())]
    return torch.stack(rows)

def segment_max(src, ptr):
    out, arg = [], []
    for a, b in zip(ptr[:-1].tolist(), ptr[1:].tolist()):
        if a == b:
            out.append(torch.zeros_like(src[0]))
            arg.append(torch.full_like(src[0], src.size(0), dtype=torch.int64))
        else:
            values, rows = src[a:b].max(0)
            out.append(values)
            arg.append(rows + a)
    return torch.stack(out), torch.stack(arg)

def gather_csr(src, ptr):
    return torch.cat([src[i:i + 1].expand(b - a, *src.shape[1:]) for i, (a, b) in
                      enumerate(zip(ptr[:-1].tolist(), ptr[1:].tolist()))])

src = [[1.5, -2.0], [3.25, 4.0], [-5.0, 6.5], [7.0, 0.5], [2.0, -8.0]]
ptr = [0, 2, 2, 5]
vectors = {
    "segment_sum": [
        {"name": "float rows, an empty segment", "inputs": {"src": src, "ptr": ptr},
         "outputs": {"output": segment_sum(torch.tensor(src), torch.tensor(ptr)).tolist()}},
        {"name": "int32", "inputs": {"src": {"dtype": "int32", "value": [3, 1, 4, 1, 5, 9]}, "ptr": [0, 1, 6]},
         "outputs": {"output": segment_sum(torch.tensor([3, 1, 4, 1, 5, 9], dtype=torch.int32),
                                           torch.tensor([0, 1, 6])).tolist()}},
        {"name": "offsets past the rows", "inputs": {"src": src, "ptr": [0, 7]},
         "error": "ptr must run from 0 to src.size(0)"},
    ],
    "segment_max": [
        {"name": "values and rows", "inputs": {"src": src, "ptr": ptr},
         "outputs": dict(zip(("out", "arg_out"), (t.tolist() for t in segment_max(torch.tensor(src), torch.tensor(ptr)))))},
    ],
    "gather_csr": [
        {"name": "rows repeated", "inputs": {"_0": {"dtype": "float64", "value": [[1, 2], [3, 4]]}, "_1": [0, 3, 4]},
         "outputs": {"_0": gather_csr(torch.tensor([[1, 2], [3, 4]], dtype=torch.float64),
                                          torch.tensor([0, 3, 4])).tolist()}},
    ],
}
print(json.dumps(vectors, sort_keys=True))
PY
"$venv25" "$work/reference.py" >"$work/reference-2.5.1.json" 2>"$work/reference.err" || { cat "$work/reference.err" >&2; fail "plain torch 2.5.1"; }
"$venv28" "$work/reference.py" >"$work/reference-2.8.0.json" 2>"$work/reference.err" || { cat "$work/reference.err" >&2; fail "plain torch 2.8.0"; }
cmp -s "$work/reference-2.5.1.json" "$work/reference-2.8.0.json" || fail "plain torch 2.5.1 and 2.8.0 disagree on the reference values"
python3 - opkit.yaml "$work/reference-2.5.1.json" <<'PY'
"""Adds each op's vectors (JSON is YAML) after its schema and kernels."""
import json, re, sys
path, vectors = sys.argv[1], json.load(open(sys.argv[2]))
def tests(op):
    return ["        tests:"] + ["          - " + json.dumps(v) for v in vectors[op]]
lines, out = open(path).read().splitlines(), []
for i, line in enumerate(lines):
    out.append(line)
    m = re.match(r'^      - schema: "segkit::(\w+)\(', line)
    if m and not (i + 1 < len(lines) and lines[i + 1].startswith("        kernels:")):
        out += tests(m.group(1))
    if line.startswith("        kernels:") and re.match(r'^      - schema: "segkit::(\w+)\(', lines[i - 1]):
        out += tests(re.match(r'^      - schema: "segkit::(\w+)\(', lines[i - 1]).group(1))
open(path, "w").write("\n".join(out) + "\n")
PY
grep -q '"rows repeated"' opkit.yaml || fail "gather_csr's vector not added: $(cat opkit.yaml)"

run_opkit 0 test
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 4 ] || fail "not every library matches opkit.yaml after adding the vectors"
run_opkit 0 test --python
for v in 2.5.1 2.8.0; do
  sed -n "/^torch $v (Python)/,/^  \\(all test vectors match\\|FAILED\\)\$/p" "$work/out" >"$work/one"
  expect_contains "$work/one" '^    segkit::segment_sum \(torch\.ops\.segkit\.segment_sum\) vector 0 "float rows, an empty segment": ok$'
  expect_contains "$work/one" '^    segkit::segment_sum \(torch\.ops\.segkit\.segment_sum\) vector 1 "int32": ok$'
  expect_contains "$work/one" '^    segkit::segment_sum \(torch\.ops\.segkit\.segment_sum\) vector 2 "offsets past the rows": ok$'
  expect_contains "$work/one" '^    segkit::segment_max \(torch\.ops\.segkit\.segment_max\) vector 0 "values and rows": ok$'
  expect_contains "$work/one" '^    segkit::gather_csr \(torch\.ops\.segkit\.gather_csr\) vector 0 "rows repeated": ok$'
  expect_contains "$work/one" '^  all test vectors match$'
done

# A wrong expectation is caught with both values shown (the comparison can fail).
sed -i 's/"out": \[\[3.25, 4.0\]/"out": [[3.25, 4.5]/' opkit.yaml
grep -q '\[\[3.25, 4.5\]' opkit.yaml || fail "the segment_max vector changed: adapt this test"
run_opkit 1 test --python --torch 2.8
expect_contains "$work/out" '^    segkit::segment_max \(torch\.ops\.segkit\.segment_max\) vector 0 "values and rows": MISMATCH$'
expect_contains "$work/out" '^      actual   out = \[\[3\.25,4(\.0)?\],'

# The tree's own package (segkit/, which loads _segment and _gather from beside
# itself): init named it, and `package wheel` packs it, no wrapper, one wheel
# per release holding that release's libraries in segkit/; pip installs each
# beside its torch and the package's own import runs an op.
expect_contains "$work/init.out" '^found: Python package segkit \(segkit/__init__\.py\): `opkit package wheel` packs it with the libraries$'
expect_contains opkit.yaml '^package: segkit '
run_opkit 0 package wheel
for v in 2.5.1:3.10 2.8.0:3.11; do
  version=${v%%:*} venv="$OPKIT_VENVS/torch-${v%%:*}-py${v##*:}"
  wheel=$(ls dist/segkit-0.1.0+torch$version-py3-none-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || fail "no wheel for torch $version: $(ls dist)"
  python3 -m zipfile -l "$wheel" >"$work/members"
  expect_contains "$work/members" '^segkit/_segment\.so '
  expect_contains "$work/members" '^segkit/_gather\.so '
  expect_contains "$work/members" '^segkit/__init__\.py '
  ! grep -q '^test/' "$work/members" || fail "the wheel holds the tree's tests"
  "$venv/bin/pip" install --quiet --no-index --no-deps --target "$work/site-$version" "$wheel" ||
    fail "pip could not install $wheel beside torch $version"
  (cd "$work" && PYTHONPATH="$work/site-$version" "$venv/bin/python" -c '
import torch, segkit
assert segkit.segment_sum(torch.tensor([[1.0], [2.0], [3.0]]), torch.tensor([0, 1, 3])).tolist() == [[1.0], [5.0]]
print("imported", segkit.__file__)') >"$work/imported" 2>&1 || fail "import segkit with torch $version: $(cat "$work/imported")"
  expect_contains "$work/imported" "^imported $work/site-$version/segkit/__init__\\.py$"
done
