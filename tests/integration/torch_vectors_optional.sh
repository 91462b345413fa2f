# `opkit test --python` on torch ops whose vectors leave arguments out, pass
# null, and check what the op writes into, in both real torch venvs (2.5.1,
# 2.8.0): a project written here with one TORCH_LIBRARY of four ops:
# - scatter_sum, its schema inferred by torch from the C++ function as PyG's
#   are (`Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4`): an optional
#   without a default left out is None (torch: "missing value for argument"),
#   and null is None;
# - scale, with defaults (`float factor=0.5`, `int offset=0`, `bool
#   negate=False`, `int? shift=1`, `Tensor? bias=None`) and a Tensor[]: what a
#   vector leaves out is the schema's default (shift's is 1, not None);
# - fill_ (`Tensor(a!) out ... -> ()`) and add_out (`-> Tensor(a!)`): outputs
#   name the argument written into, compared after the call.
# One expected value is wrong on purpose (a MISMATCH: the comparison can fail),
# and one vector's data cannot be a tensor (reported, no traceback). A null for
# an argument that is not optional, and an output that is neither a result nor
# an argument written into, are one error line at opkit.yaml:line:col.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$OPKIT_HOME-torch"
export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
for v in 2.5.1 2.8.0; do
  [ -f "$OPKIT_HOME/sdks/torch-$v-cuda/sdk.json" ] || fail "no torch $v SDK: the sdks_torch fixture (integration.sdk_add_torch) makes it"
done
[ -x "$OPKIT_VENVS/torch-2.5.1-py3.10/bin/python" ] && [ -x "$OPKIT_VENVS/torch-2.8.0-py3.11/bin/python" ] ||
  fail "no torch venvs: integration.torch_build (fixture python_torch) makes them"

mkdir -p vecs/src
cd vecs
cat >src/vecs.cpp <<'CPP'
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>
#include <vector>

namespace {

// As PyG writes them: torch infers the schema from the C++ function.
at::Tensor
scatter_sum(const at::Tensor& src, const at::Tensor& index, int64_t dim, const std::optional<at::Tensor>& out,
            std::optional<int64_t> dim_size)
{
  int64_t size = dim_size.has_value() ? *dim_size : (index.numel() > 0 ? index.max().item<int64_t>() + 1 : 0);
  at::Tensor result = out.has_value() ? out->clone() : at::zeros({size}, src.options());
  return result.index_add_(dim, index, src);
}

at::Tensor
scale(const at::Tensor& x, at::TensorList extra, double factor, int64_t offset, bool negate,
      std::optional<int64_t> shift, const std::optional<at::Tensor>& bias)
{
  at::Tensor sum = x.to(at::kDouble);
  for (const at::Tensor& t : extra) {
    sum = sum + t;
  }
  at::Tensor result = sum * factor + offset + shift.value_or(0);
  if (negate) {
    result = -result;
  }
  return bias.has_value() ? result + *bias : result;
}

void
fill_(at::Tensor& out, double value)
{
  out.fill_(value);
}

at::Tensor&
add_out(const at::Tensor& x, const at::Tensor& y, at::Tensor& out)
{
  out.copy_(x + y);
  return out;
}

} // namespace

TORCH_LIBRARY(vecs, m)
{
  m.def("scatter_sum", &scatter_sum);
  m.def("scale(Tensor x, Tensor[] extra, float factor=0.5, int offset=0, bool negate=False, int? shift=1, "
        "Tensor? bias=None) -> Tensor");
  m.def("fill_(Tensor(a!) out, float value) -> ()");
  m.def("add_out(Tensor x, Tensor y, *, Tensor(a!) out) -> Tensor(a!)");
}

TORCH_LIBRARY_IMPL(vecs, CPU, m)
{
  m.impl("scale", &scale);
  m.impl("fill_", &fill_);
  m.impl("add_out", &add_out);
}
CPP
cat >opkit.yaml <<'YAML'
name: vecs
version: 0.1.0
template: torch-op
libraries:
  - name: vecs
    sources: [src/vecs.cpp]
    ops:
      - schema: "vecs::scatter_sum(Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4) -> Tensor _0"
        kernels: [CompositeImplicitAutograd]
        tests:
          - name: optionals left out
            inputs: {_0: [1, 2, 3], _1: [0, 0, 2], _2: 0}
            outputs: {_0: [3, 0, 3]}
          - name: null, and a size
            inputs: {_0: [1, 2, 3], _1: [0, 0, 2], _2: 0, _3: null, _4: 4}
            outputs: {_0: [3, 0, 3, 0]}
          - name: into a tensor
            inputs: {_0: [1, 2, 3], _1: [0, 0, 2], _2: 0, _3: [10, 20, 30], _4: null}
            outputs: {_0: [13, 20, 33]}
          - name: wrong on purpose
            inputs: {_0: [1, 2, 3], _1: [0, 0, 2], _2: 0}
            outputs: {_0: [3, 0, 4]}
          - name: not a tensor
            inputs: {_0: [[1, 2], [3]], _1: [0, 0], _2: 0}
            outputs: {_0: [0]}
      - schema: "vecs::scale(Tensor x, Tensor[] extra, float factor=0.5, int offset=0, bool negate=False, int? shift=1, Tensor? bias=None) -> Tensor"
        kernels: [CPU]
        tests:
          - name: defaults
            inputs: {x: [2.0, 4.0], extra: []}
            outputs: {output: [2.0, 3.0]}
          - name: every argument
            inputs: {x: [2.0, 4.0], extra: [[1.0, 1.0], [1.0, 0.0]], factor: 2.0, offset: 1, negate: true, shift: null, bias: [0.25, 0.25]}
            outputs: {output: [-8.75, -10.75]}
      - schema: "vecs::fill_(Tensor(a!) out, float value) -> ()"
        kernels: [CPU]
        tests:
          - name: written into
            inputs: {out: [0.0, 0.0, 0.0], value: 2.5}
            outputs: {out: [2.5, 2.5, 2.5]}
          - name: runs
            inputs: {out: [1.0], value: 0.0}
      - schema: "vecs::add_out(Tensor x, Tensor y, *, Tensor(a!) out) -> Tensor(a!)"
        kernels: [CPU]
        tests:
          - name: result and argument
            inputs: {x: [1, 2], y: [10, 20], out: [0, 0]}
            outputs: {output: [11, 22], out: [11, 22]}
targets:
  torch: ["2.5", "2.8"]
YAML

run_opkit 0 build
# The dispatcher holds what opkit.yaml declares (alias annotations, the inferred schema).
run_opkit 0 test
[ "$(grep -c '^  matches opkit.yaml$' "$work/out")" -eq 2 ] || { cat "$work/out" >&2; fail "not matched in both versions"; }

run_opkit 1 test --python
! grep -q Traceback "$work/out" "$work/err" || fail "the runner printed a traceback"
for v in 2.5.1 2.8.0; do
  sed -n "/^torch $v (Python)/,/^  \\(all test vectors match\\|FAILED\\)\$/p" "$work/out" >"$work/one"
  for n in 0 1 2; do
    expect_contains "$work/one" "^    vecs::scatter_sum \\(torch\\.ops\\.vecs\\.scatter_sum\\) vector $n \"[^\"]*\": ok$"
  done
  expect_contains "$work/one" '^    vecs::scatter_sum \(torch\.ops\.vecs\.scatter_sum\) vector 3 "wrong on purpose": MISMATCH$'
  expect_contains "$work/one" '^      expected _0 = \[3,0,4\]$'
  expect_contains "$work/one" '^      actual   _0 = \[3,0,3\]$'
  expect_contains "$work/one" '^    vecs::scatter_sum \(torch\.ops\.vecs\.scatter_sum\) vector 4 "not a tensor": MISMATCH$'
  expect_contains "$work/one" "^      actual   error opkit could not make the vector's input _0: ValueError: "
  expect_contains "$work/one" '^    vecs::scale \(torch\.ops\.vecs\.scale\) vector 0 "defaults": ok$'
  expect_contains "$work/one" '^    vecs::scale \(torch\.ops\.vecs\.scale\) vector 1 "every argument": ok$'
  expect_contains "$work/one" '^    vecs::fill_ \(torch\.ops\.vecs\.fill_\) vector 0 "written into": ok$'
  expect_contains "$work/one" '^    vecs::fill_ \(torch\.ops\.vecs\.fill_\) vector 1 "runs": ok$'
  expect_contains "$work/one" '^    vecs::add_out \(torch\.ops\.vecs\.add_out\) vector 0 "result and argument": ok$'
  expect_contains "$work/one" '^  FAILED$'
  ! grep -q PROBLEM "$work/one" || fail "torch $v: a problem: $(cat "$work/one")"
done
run_opkit 1 test --python --json
expect_json_schema opkit.test-python-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert not report["ok"] and not report["problems"], report
failed = sorted((r["version"], r["op"], r["vector"]) for r in report["records"] if not r["ok"])
assert failed == [(v, "vecs::scatter_sum", i) for v in ("2.5.1", "2.8.0") for i in (3, 4)], failed
fill = [r for r in report["records"] if r["op"] == "vecs::fill_" and r["vector"] == 0]
assert [r["actual"] for r in fill] == [{"outputs": {"out": [2.5, 2.5, 2.5]}}] * 2, fill
add = [r for r in report["records"] if r["op"] == "vecs::add_out"]
assert [r["actual"] for r in add] == [{"outputs": {"output": [11, 22], "out": [11, 22]}}] * 2, add
PY

# Refused when opkit.yaml is read, before anything runs: one line, where it is.
cp opkit.yaml "$work/opkit.yaml.good"
sed -i 's/inputs: {x: \[2.0, 4.0\], extra: \[\]}/inputs: {x: [2.0, 4.0], extra: [], offset: null}/' opkit.yaml
grep -q 'offset: null' opkit.yaml || fail "the vector to make wrong is not in opkit.yaml"
run_opkit 2 test --python
expect_one_error_line
expect_contains "$work/err" "opkit\\.yaml:[0-9]+:[0-9]+: input 'offset' is null \\(None\\), but the op's argument 'offset' is int, not optional"
cp "$work/opkit.yaml.good" opkit.yaml
sed -i 's/outputs: {out: \[2.5, 2.5, 2.5\]}/outputs: {out: [2.5, 2.5, 2.5], value: 2.5}/' opkit.yaml
grep -q 'value: 2.5}' opkit.yaml || fail "the vector to make wrong is not in opkit.yaml"
run_opkit 2 test --python
expect_one_error_line
expect_contains "$work/err" "opkit\\.yaml:[0-9]+:[0-9]+: 'value' is an argument the op does not write into"
cp "$work/opkit.yaml.good" opkit.yaml
