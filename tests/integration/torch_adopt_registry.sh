# `opkit init` on a torch extension that registers every operator with
# torch::RegisterOperators, as older PyG extensions do (tests/fixtures/clusterkit:
# `.op("ns::op", &function)` whose schemas init infers from the C++ functions
# as torch does, one with optional Tensor and int arguments; a written-out
# schema; c10::RegisterOperators; an options() form with a CPU kernel; sources
# including <torch/torch.h>, not <torch/extension.h>), then `opkit build` for
# torch 2.5.1 and 2.8.0 and `opkit test`: the real dispatcher's schemas and
# dispatch keys match what init declared.
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

# A wrong declaration is caught: the comparison can fail.
sed -i 's/int? _4) -> Tensor _0"/int _4) -> Tensor _0"/' opkit.yaml
grep -q 'int _4) -> Tensor _0"' opkit.yaml || fail "cluster_pool's schema changed: adapt this test"
run_opkit 1 test --torch 2.8
expect_contains "$work/out" '^  does not match opkit\.yaml$'
