# PyTorch extensions that are Python modules, adopted unedited:
# - tests/fixtures/fusedkit, shaped like the official C++/CUDA extension
#   example: TORCH_LIBRARY operators and an empty PyInit__C in one source, a
#   setup.py choosing its extension class at run time and naming the module
#   with an f-string (fusedkit._C), a package whose __init__.py imports ._C;
# - tests/fixtures/rowkit, shaped like the C++ extension tutorial: one source
#   including <torch/extension.h> whose functions PYBIND11_MODULE binds, no
#   operator at all (rowkit_cpp.row_norms(x)).
# Each is built per torch release for its venv's CPython (2.5.1: 3.10, 2.8.0:
# 3.11) with that interpreter's headers and file name, imported in the real
# venv by `opkit test` (the dispatcher and the module's functions read
# there), run on values by `opkit test --python` (references computed with
# plain torch in each venv), and fusedkit packed as a wheel per release that
# pip installs and whose own `import fusedkit` works.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
venv25="$OPKIT_VENVS/torch-2.5.1-py3.10"
venv28="$OPKIT_VENVS/torch-2.8.0-py3.11"
[ -x "$venv25/bin/python" ] && [ -x "$venv28/bin/python" ] ||
  fail "no torch venvs: integration.torch_build (fixture python_torch) makes them"
declare -A module_suffix=([2.5.1]=cpython-310-x86_64-linux-gnu.so [2.8.0]=cpython-311-x86_64-linux-gnu.so)
declare -A venv_of=([2.5.1]=$venv25 [2.8.0]=$venv28)

# --- fusedkit: the official example's shape.
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/fusedkit" .
cd fusedkit
run_opkit 0 init --ops --torch 2.5,2.8
expect_contains "$work/out" '^found: op fusedkit::scale_shift \(fusedkit/csrc/fused\.cpp:[0-9]+; fusedkit::scale_shift\(Tensor x, Tensor scale, float shift=0\.\) -> Tensor\)$'
expect_contains "$work/out" '^found: Python module fusedkit\._C'
expect_contains opkit.yaml '^    python_module: fusedkit\._C '
expect_contains opkit.yaml '^    output: _C\.so$'

run_opkit 0 build
for v in 2.5.1 2.8.0; do
  lib="build/torch-$v-cuda/_C.${module_suffix[$v]}"
  [ -f "$lib" ] || fail "no $lib: $(ls build/torch-$v-cuda)"
  nm -D --defined-only "$lib" >"$work/defined"
  expect_contains "$work/defined" ' PyInit__C$'
done
# Python's headers came from the venv's interpreter, not from the system's python3 (3.11 for both).
grep -q 'include/python3\.10' build/torch-2.5.1-cuda/compile_commands.json || fail "2.5.1's module was not built with Python 3.10's headers"
grep -q 'include/python3\.11' build/torch-2.8.0-cuda/compile_commands.json || fail "2.8.0's module was not built with Python 3.11's headers"

run_opkit 0 test
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/_C\\.${module_suffix[$v]//./\\.} into the real libtorch_cpu \\($v\\)"
  expect_contains "$work/out" "^  in torch-$v-cuda's own Python \\(torch-$v-py3\\.1[01]\\): it is the Python module fusedkit\\._C, which Python imports$"
done
expect_contains "$work/out" '^  op     fusedkit::clamped_sum\(Tensor a, Tensor b, float limit\) -> Tensor$'
expect_contains "$work/out" '^  kernel fusedkit::scale_shift on CPU$'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || fail "fusedkit._C does not match opkit.yaml in both releases"

cat >"$work/fused_reference.py" <<'PY'
"""fusedkit's vectors with outputs from plain torch, as JSON."""
import json
import torch

x = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
scale = [2.0, 0.5, -4.0]
a, b = [[0.5, 3.0], [-2.5, 1.0]], [[1.0, 1.5], [-1.0, -0.25]]
vectors = {
    "scale_shift": [
        {"name": "columns scaled, shifted", "inputs": {"x": x, "scale": scale, "shift": 1.5},
         "outputs": {"output": (torch.tensor(x) * torch.tensor(scale) + 1.5).tolist()}},
        {"name": "shift left to its default", "inputs": {"x": x, "scale": scale},
         "outputs": {"output": (torch.tensor(x) * torch.tensor(scale)).tolist()}},
        {"name": "a scale per column", "inputs": {"x": x, "scale": [1.0]},
         "error": "scale must have one value per column of x"},
    ],
    "clamped_sum": [
        {"name": "clamped at 2", "inputs": {"a": a, "b": b, "limit": 2.0},
         "outputs": {"output": torch.clamp(torch.tensor(a) + torch.tensor(b), -2.0, 2.0).tolist()}},
    ],
}
print(json.dumps(vectors, sort_keys=True))
PY
for v in 2.5.1 2.8.0; do
  "${venv_of[$v]}/bin/python" "$work/fused_reference.py" >"$work/fused-$v.json" || fail "plain torch $v"
done
cmp -s "$work/fused-2.5.1.json" "$work/fused-2.8.0.json" || fail "plain torch 2.5.1 and 2.8.0 disagree"
python3 - opkit.yaml "$work/fused-2.5.1.json" <<'PY'
"""Adds each op's vectors (JSON is YAML) after its kernels line."""
import json, re, sys
path, vectors = sys.argv[1], json.load(open(sys.argv[2]))
out, op = [], None
for line in open(path).read().splitlines():
    out.append(line)
    m = re.match(r'^      - schema: "fusedkit::(\w+)\(', line)
    op = m.group(1) if m else op
    if line.startswith("        kernels:") and op in vectors:
        out += ["        tests:"] + ["          - " + json.dumps(v) for v in vectors[op]]
open(path, "w").write("\n".join(out) + "\n")
PY
grep -q 'clamped at 2' opkit.yaml || fail "no vectors added: $(cat opkit.yaml)"
run_opkit 0 test --python
for v in 2.5.1 2.8.0; do
  sed -n "/^torch $v (Python)/,/^  \\(all test vectors match\\|FAILED\\)\$/p" "$work/out" >"$work/one"
  expect_contains "$work/one" '^    fusedkit::scale_shift \(torch\.ops\.fusedkit\.scale_shift\) vector 1 "shift left to its default": ok$'
  expect_contains "$work/one" '^    fusedkit::scale_shift \(torch\.ops\.fusedkit\.scale_shift\) vector 2 "a scale per column": ok$'
  expect_contains "$work/one" '^    fusedkit::clamped_sum \(torch\.ops\.fusedkit\.clamped_sum\) vector 0 "clamped at 2": ok$'
  expect_contains "$work/one" '^  all test vectors match$'
done

# A wheel per release: the package's own files, _C where `from . import _C` finds it, torch==V required.
run_opkit 0 package wheel
for v in 2.5.1 2.8.0; do
  tag=cp3$([ "$v" = 2.5.1 ] && echo 10 || echo 11)
  wheel=$(ls dist/fusedkit-0.1.0+torch$v-$tag-$tag-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || fail "no wheel for torch $v: $(ls dist)"
  python3 -m zipfile -l "$wheel" >"$work/members"
  expect_contains "$work/members" "^fusedkit/_C\\.${module_suffix[$v]//./\\.} "
  expect_contains "$work/members" '^fusedkit/ops\.py '
  unzip -p "$wheel" "fusedkit-0.1.0+torch$v.dist-info/METADATA" >"$work/metadata"
  expect_contains "$work/metadata" "^Requires-Dist: torch==$v$"
  "${venv_of[$v]}/bin/pip" install --quiet --no-index --no-deps --target "$work/site-$v" "$wheel" ||
    fail "pip could not install $wheel beside torch $v"
  # From outside the project, whose own fusedkit/ would be imported first.
  (cd "$work" && PYTHONPATH="$work/site-$v" "${venv_of[$v]}/bin/python" -c '
import torch, fusedkit
out = fusedkit.scale_shift(torch.tensor([[1.0, 2.0]]), torch.tensor([3.0, -1.0]), 0.5)
assert out.tolist() == [[3.5, -1.5]], out
print("imported", fusedkit.__file__)') >"$work/imported" 2>&1 || fail "import fusedkit with torch $v: $(cat "$work/imported")"
  expect_contains "$work/imported" "^imported $work/site-$v/fusedkit/__init__\\.py$"
done
cd ..

# --- rowkit: <torch/extension.h> and PYBIND11_MODULE functions, no operator
# (for 2.8.0 alone: torch/extension.h is the heaviest header a module compiles).
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/rowkit" .
cd rowkit
run_opkit 0 init --ops --torch 2.8
expect_contains "$work/out" '^found: Python module rowkit_cpp \(rowkit\.cpp:[0-9]+: PYBIND11_MODULE\): built per CPython, imported by that name$'
expect_contains "$work/out" '^found: function rowkit_cpp\.row_norms \(rowkit\.cpp:[0-9]+; rowkit_cpp::row_norms\(Tensor _0\) -> Tensor _0\)$'
expect_contains opkit.yaml '^    python_module: rowkit_cpp '
expect_contains opkit.yaml '^      - schema: "rowkit_cpp::normalize_rows\(Tensor _0, float _1\) -> \(Tensor _0, Tensor _1\)"$'
run_opkit 0 build
lib="build/torch-2.8.0-cuda/rowkit_cpp.${module_suffix[2.8.0]}"
[ -f "$lib" ] || fail "no $lib"
readelf -d "$lib" >"$work/dynamic"
expect_contains "$work/dynamic" 'NEEDED.*\[libtorch_python\.so\]'
run_opkit 0 test
expect_contains "$work/out" "^torch-2.8.0-cuda: loaded .*/rowkit_cpp\\.${module_suffix[2.8.0]//./\\.} into the real libtorch_cpu \\(2\\.8\\.0\\)"
expect_contains "$work/out" '^  function normalize_rows$'
expect_contains "$work/out" '^  function row_norms$'
expect_contains "$work/out" '^  matches opkit.yaml$'

# The functions called on values from test --python, positionally (pybind11 without py::arg names takes no
# keywords for _0), references from plain torch in the venv.
"$venv28/bin/python" - >"$work/rows.json" <<'PY' || fail "plain torch 2.8.0"
import json
import torch
x = torch.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
norms = x.pow(2).sum(1).sqrt()
print(json.dumps({
    "row_norms": [{"name": "three rows", "inputs": {"_0": x.tolist()}, "outputs": {"_0": norms.tolist()}},
                  {"name": "not 2-D", "inputs": {"_0": [1.0, 2.0]}, "error": "x must be 2-D"}],
    "normalize_rows": [{"name": "a zero row stays zero", "inputs": {"_0": x.tolist(), "_1": 1e-12},
                        "outputs": {"_0": (x / norms.clamp_min(1e-12).unsqueeze(1)).tolist(), "_1": norms.tolist()}}],
}))
PY
python3 - opkit.yaml "$work/rows.json" <<'PY'
"""Adds each function's vectors (JSON is YAML) after its schema line."""
import json, re, sys
path, vectors = sys.argv[1], json.load(open(sys.argv[2]))
out = []
for line in open(path).read().splitlines():
    out.append(line)
    m = re.match(r'^      - schema: "rowkit_cpp::(\w+)\(', line)
    if m:
        out += ["        tests:"] + ["          - " + json.dumps(v) for v in vectors[m.group(1)]]
open(path, "w").write("\n".join(out) + "\n")
PY
run_opkit 0 test --python
expect_contains "$work/out" '^    rowkit_cpp::row_norms \(rowkit_cpp\.row_norms\) vector 0 "three rows": ok$'
expect_contains "$work/out" '^    rowkit_cpp::row_norms \(rowkit_cpp\.row_norms\) vector 1 "not 2-D": ok$'
expect_contains "$work/out" '^    rowkit_cpp::normalize_rows \(rowkit_cpp\.normalize_rows\) vector 0 "a zero row stays zero": ok$'
expect_contains "$work/out" '^  all test vectors match$'
# A wrong expectation is caught (the comparison can fail).
sed -i 's/"three rows", "inputs": {"_0": \[\[3.0, 4.0\]/"three rows", "inputs": {"_0": [[3.0, 5.0]/' opkit.yaml
grep -q '\[\[3.0, 5.0\]' opkit.yaml || fail "the row_norms vector changed: adapt this test"
run_opkit 1 test --python
expect_contains "$work/out" '^    rowkit_cpp::row_norms \(rowkit_cpp\.row_norms\) vector 0 "three rows": MISMATCH$'
