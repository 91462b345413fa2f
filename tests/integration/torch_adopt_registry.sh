# `opkit init` on a torch extension that registers every operator with
# torch::RegisterOperators, as older PyG extensions do (tests/fixtures/clusterkit:
# `.op("ns::op", &function)` whose schemas init infers from the C++ functions
# as torch does, one with optional Tensor and int arguments; a written-out
# schema; c10::RegisterOperators; an options() form with a CPU kernel; sources
# including <torch/torch.h>, not <torch/extension.h>), then `opkit build` for
# torch 2.5.1 and 2.8.0, `opkit test` (the real dispatcher's schemas and
# dispatch keys match what init declared) and `opkit test --python` in both
# real torch venvs, with expected values computed with plain torch.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/clusterkit" .
cd clusterkit

run_opkit 0 init --ops --torch 2.5,2.8
expect_contains "$work/out" '^found: library pool <- setup\.py:[0-9]+ CppExtension "_pool\.so" \(2 sources\)$'
expect_contains "$work/out" '^found: library graclus <- setup\.py:[0-9]+ CppExtension "_graclus\.so" \(2 sources\)$'
expect_contains "$work/out" '^found: op clusterkit::cluster_pool \(csrc/pool\.cpp:[0-9]+; schema inferred from its C\+\+ function: clusterkit::cluster_pool\(Tensor _0, Tensor _1, int _2, Tensor\? _3, int\? _4\) -> Tensor _0\)$'
expect_contains "$work/out" '^found: op clusterkit::cluster_max \(csrc/pool\.cpp:[0-9]+; clusterkit::cluster_max\(Tensor src, Tensor cluster, int num_clusters\) -> \(Tensor out, Tensor arg_out\)\)$'
expect_contains "$work/out" '^found: op clusterkit::graclus \(csrc/graclus\.cpp:[0-9]+; schema inferred from its C\+\+ function: clusterkit::graclus\(Tensor _0, Tensor _1, Tensor\? _2\) -> Tensor _0\)$'
expect_contains "$work/out" '^found: op clusterkit::grid_cluster \(csrc/graclus\.cpp:[0-9]+; clusterkit::grid_cluster\(Tensor pos, Tensor size\) -> Tensor\)$'
expect_contains "$work/out" '^found: CompositeImplicitAutograd kernel of clusterkit::cluster_pool \(csrc/pool\.cpp:[0-9]+\)$'
expect_contains "$work/out" '^found: CPU kernel of clusterkit::grid_cluster \(csrc/graclus\.cpp:[0-9]+\)$'
if grep -q '^unresolved:' "$work/out"; then
  cat "$work/out" >&2
  fail "init left something unresolved"
fi
expect_contains opkit.yaml '^      - schema: "clusterkit::cluster_pool\(Tensor _0, Tensor _1, int _2, Tensor\? _3, int\? _4\) -> Tensor _0"$'
expect_contains opkit.yaml '^      - schema: "clusterkit::graclus\(Tensor _0, Tensor _1, Tensor\? _2\) -> Tensor _0"$'

run_opkit 0 build
for v in 2.5.1 2.8.0; do
  for lib in _pool _graclus; do
    [ -f "build/torch-$v-cuda/$lib.so" ] || fail "no build/torch-$v-cuda/$lib.so"
  done
done

# The real dispatcher's view, in each version: the inferred schemas are
# torch's own, the catch-all kernels CompositeImplicitAutograd.
run_opkit 0 test
for v in 2.5.1 2.8.0; do
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/_pool\\.so into the real libtorch_cpu \\($v\\)"
  expect_contains "$work/out" "^torch-$v-cuda: loaded .*/_graclus\\.so into the real libtorch_cpu \\($v\\)"
done
expect_contains "$work/out" '^  op     clusterkit::cluster_pool\(Tensor _0, Tensor _1, int _2, Tensor\? _3, int\? _4\) -> Tensor _0$'
expect_contains "$work/out" '^  kernel clusterkit::graclus on CompositeImplicitAutograd$'
expect_contains "$work/out" '^  kernel clusterkit::grid_cluster on CPU$'
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 4 ] || fail "_pool.so and _graclus.so do not both match opkit.yaml in both versions"

# Values in both real torch venvs, against plain torch: the inferred
# schema's optional arguments left out (None: torch's "missing value for
# argument '_3'" otherwise), given as null, and given.
venv25="$OPKIT_VENVS/torch-2.5.1-py3.10/bin/python"
venv28="$OPKIT_VENVS/torch-2.8.0-py3.11/bin/python"
[ -x "$venv25" ] && [ -x "$venv28" ] || fail "no torch venvs: integration.torch_build (fixture python_torch) makes them"
cat >"$work/reference.py" <<'PY'
"""clusterkit's vectors with outputs from plain torch, as JSON."""
import json
import torch

src = [[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 4.0]]
cluster = [1, 0, 1, 1]
def pool(src, cluster, num):
    return torch.zeros(num, *torch.tensor(src).shape[1:]).index_add_(0, torch.tensor(cluster), torch.tensor(src))
out = [[10.0, 10.0], [0.0, 0.0], [1.0, 1.0]]
with_out = torch.tensor(out).index_add_(0, torch.tensor(cluster), torch.tensor(src))
best = [torch.tensor(src)[[i for i, c in enumerate(cluster) if c == k]].max(0) for k in (0, 1)]
print(json.dumps({
    "cluster_pool": [
        {"name": "optionals left out", "inputs": {"_0": src, "_1": cluster, "_2": 0},
         "outputs": {"_0": pool(src, cluster, 2).tolist()}},
        {"name": "a cluster count given, out null", "inputs": {"_0": src, "_1": cluster, "_2": 0, "_3": None, "_4": 3},
         "outputs": {"_0": pool(src, cluster, 3).tolist()}},
        {"name": "added into out", "inputs": {"_0": src, "_1": cluster, "_2": 0, "_3": out},
         "outputs": {"_0": with_out.tolist()}},
        {"name": "one id short", "inputs": {"_0": src, "_1": [0, 1], "_2": 0},
         "error": "cluster needs one id per slice of src along dim"},
    ],
    "cluster_max": [
        {"name": "rows and their winners", "inputs": {"src": src, "cluster": cluster, "num_clusters": 2},
         "outputs": {"out": [b.values.tolist() for b in best],
                     "arg_out": [[[i for i, c in enumerate(cluster) if c == k][j] for j in b.indices.tolist()]
                                 for k, b in zip((0, 1), best)]}},
    ],
}, sort_keys=True))
PY
"$venv25" "$work/reference.py" >"$work/reference-2.5.1.json" || fail "plain torch 2.5.1"
"$venv28" "$work/reference.py" >"$work/reference-2.8.0.json" || fail "plain torch 2.8.0"
cmp -s "$work/reference-2.5.1.json" "$work/reference-2.8.0.json" || fail "plain torch 2.5.1 and 2.8.0 disagree"
python3 - opkit.yaml "$work/reference-2.5.1.json" <<'PY'
"""Adds each op's vectors (JSON is YAML) after its kernels line."""
import json, re, sys
path, vectors = sys.argv[1], json.load(open(sys.argv[2]))
out, op = [], None
for line in open(path).read().splitlines():
    out.append(line)
    m = re.match(r'^      - schema: "clusterkit::(\w+)\(', line)
    op = m.group(1) if m else op
    if line.startswith("        kernels:") and op in vectors:
        out += ["        tests:"] + ["          - " + json.dumps(v) for v in vectors[op]]
open(path, "w").write("\n".join(out) + "\n")
PY
grep -q '"optionals left out"' opkit.yaml || fail "no vectors added: $(cat opkit.yaml)"
run_opkit 0 test --python
for v in 2.5.1 2.8.0; do
  sed -n "/^torch $v (Python)/,/^  \\(all test vectors match\\|FAILED\\)\$/p" "$work/out" >"$work/one"
  expect_contains "$work/one" '^    clusterkit::cluster_pool \(torch\.ops\.clusterkit\.cluster_pool\) vector 0 "optionals left out": ok$'
  expect_contains "$work/one" '^    clusterkit::cluster_pool \(torch\.ops\.clusterkit\.cluster_pool\) vector 1 "a cluster count given, out null": ok$'
  expect_contains "$work/one" '^    clusterkit::cluster_pool \(torch\.ops\.clusterkit\.cluster_pool\) vector 2 "added into out": ok$'
  expect_contains "$work/one" '^    clusterkit::cluster_pool \(torch\.ops\.clusterkit\.cluster_pool\) vector 3 "one id short": ok$'
  expect_contains "$work/one" '^    clusterkit::cluster_max \(torch\.ops\.clusterkit\.cluster_max\) vector 0 "rows and their winners": ok$'
  expect_contains "$work/one" '^  all test vectors match$'
done

# A wrong declaration is caught: the comparison can fail.
sed -i 's/int? _4) -> Tensor _0"/int _4) -> Tensor _0"/' opkit.yaml
grep -q 'int _4) -> Tensor _0"' opkit.yaml || fail "cluster_pool's schema changed: adapt this test"
run_opkit 1 test --torch 2.8
expect_contains "$work/out" '^  does not match opkit\.yaml$'
