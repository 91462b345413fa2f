// {{op_name}}: a PopART custom op, loaded by PopRT with --custom_library_so_paths.
// LeakyRelu-like: y = x where x >= 0, alpha * x where x < 0 (float attribute alpha, default 0.01).
//
// Build: `opkit build --popart-sdk DIR` (runs `make POPART_SDK=DIR`) -> build/lib{{name}}.so
//
// The op is identified by (domain, type, version) = ("custom.ops", "{{op_name}}", 1). The ONNX node
// must carry the same domain and op_type, and the model must import the domain at that version
// (create_onnx_with_custom_op.py); `opkit test` checks that all files agree with opkit.yaml.

#include <map>
#include <memory>
#include <vector>

#include <poplar/Tensor.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Expr.hpp>

#include <popart/attributes.hpp>
#include <popart/datatype.hpp>
#include <popart/op.hpp>
#include <popart/operatoridentifier.hpp>
#include <popart/opmanager.hpp>
#include <popart/opserialiser.hpp>
#include <popart/popx/opx.hpp>
#include <popart/popx/opxmanager.hpp>
#include <popart/shapeinference.hpp>

// Our own namespace: nothing of this op belongs in PopART's.
namespace {{name}}_op {

// A domain of our own: "ai.graphcore" is reserved for PopART's built-in and grad ops.
const popart::OperatorIdentifier {{op_name}}Id = {"custom.ops", "{{op_name}}", 1};
// The grad op never appears in an ONNX model; PopART makes it through getGradOps() when training.
const popart::OperatorIdentifier {{op_name}}GradId = {"custom.ops", "{{op_name}}Grad", 1};

constexpr float kDefaultAlpha = 0.01f;

class {{op_name}}Op : public popart::Op {
public:
  {{op_name}}Op(const popart::OperatorIdentifier& opid, float alpha, const popart::Op::Settings& settings)
      : popart::Op(opid, settings), alpha_(alpha) {}

  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<{{op_name}}Op>(*this); }

  // Elementwise: y has x's shape and type.
  void setup() final { outInfo(0) = inInfo(0); }

  std::vector<std::unique_ptr<popart::Op>> getGradOps() final;

  // alpha changes what is computed, so it must reach the IR hash (and with it the
  // executable cache) and outlining, or two ops with different alphas would be merged.
  void appendAttributes(popart::OpSerialiserBase& os) const override {
    popart::Op::appendAttributes(os);
    os.appendAttribute("alpha", alpha_);
  }
  void appendOutlineAttributes(popart::OpSerialiserBase& os) const override {
    popart::Op::appendOutlineAttributes(os);
    os.appendAttribute("alpha", alpha_);
  }

  float getSubgraphValue() const final { return getHighSubgraphValue(); }
  bool requiresRandomSeed() const override { return false; }

  float alpha() const { return alpha_; }

private:
  float alpha_;
};

class {{op_name}}GradOp : public popart::Op {
public:
  explicit {{op_name}}GradOp(const {{op_name}}Op& fwd)
      : popart::Op({{op_name}}GradId, fwd.settings), alpha_(fwd.alpha()) {}

  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<{{op_name}}GradOp>(*this); }

  // dx has x's shape and type.
  void setup() final { outInfo(0) = inInfo(0); }

  // Input 0: the gradient of the forward output y; input 1: the forward input x,
  // whose sign picks the slope.
  const std::vector<popart::GradInOutMapper>& gradInputInfo() const final {
    static const std::vector<popart::GradInOutMapper> info = {
        {0, 0, popart::GradOpInType::GradOut}, {1, 0, popart::GradOpInType::In} };
    return info;
  }

  // Output 0 is the gradient of forward input 0.
  const std::map<int, int>& gradOutToNonGradIn() const final {
    static const std::map<int, int> out = { {0, 0} };
    return out;
  }

  void appendAttributes(popart::OpSerialiserBase& os) const override {
    popart::Op::appendAttributes(os);
    os.appendAttribute("alpha", alpha_);
  }
  void appendOutlineAttributes(popart::OpSerialiserBase& os) const override {
    popart::Op::appendOutlineAttributes(os);
    os.appendAttribute("alpha", alpha_);
  }

  float getSubgraphValue() const final { return getHighSubgraphValue(); }
  bool requiresRandomSeed() const override { return false; }

  float alpha() const { return alpha_; }

private:
  float alpha_;
};

std::vector<std::unique_ptr<popart::Op>> {{op_name}}Op::getGradOps() {
  std::vector<std::unique_ptr<popart::Op>> grads;
  grads.push_back(std::make_unique<{{op_name}}GradOp>(*this));
  return grads;
}

namespace pe = popops::expr;

class {{op_name}}Opx : public popart::popx::Opx {
public:
  {{op_name}}Opx(popart::Op* op, popart::popx::Devicex* devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<{{op_name}}Op>(op, { {{op_name}}Id });
  }

  void grow(poplar::program::Sequence& prog) const final {
    float alpha = getOp<{{op_name}}Op>().alpha();
    // x < 0 ? alpha * x : x. Out of place: x is also an input of the grad op, and an
    // op that is not declared inplace must leave its inputs untouched.
    auto expression = pe::Select(pe::Mul(pe::Const(alpha), pe::_1), pe::_1, pe::Lt(pe::_1, pe::Const(0.0f)));
    poplar::Tensor y = popops::map(graph(), expression, {getInTensor(0)}, prog, debugContext("{{op_name}}"));
    setOutTensor(0, y);
  }
};

class {{op_name}}GradOpx : public popart::popx::Opx {
public:
  {{op_name}}GradOpx(popart::Op* op, popart::popx::Devicex* devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<{{op_name}}GradOp>(op, { {{op_name}}GradId });
  }

  void grow(poplar::program::Sequence& prog) const final {
    float alpha = getOp<{{op_name}}GradOp>().alpha();
    // dx = dy * (x < 0 ? alpha : 1); _1 is dy (grad input 0), _2 is x (grad input 1).
    auto expression =
        pe::Mul(pe::_1, pe::Select(pe::Const(alpha), pe::Const(1.0f), pe::Lt(pe::_2, pe::Const(0.0f))));
    poplar::Tensor dx =
        popops::map(graph(), expression, {getInTensor(0), getInTensor(1)}, prog, debugContext("{{op_name}}Grad"));
    setOutTensor(0, dx);
  }
};

// Registration runs when PopRT/PopART loads the library (static initialisers).
namespace {

using popart::DataType;
using popart::OpDefinition;

// The tensor types the op accepts (opkit.yaml: attr T, allowed [half, float]).
const OpDefinition::DataTypes T = {DataType::FLOAT16, DataType::FLOAT};

// Only the forward op gets an OpCreator; isPublic = true lets ONNX models and
// builder.customOp create it. The grad op is made by getGradOps().
popart::OpCreator<{{op_name}}Op> opCreator(
    popart::OpDefinitions({ { {{op_name}}Id,
                              OpDefinition(OpDefinition::Inputs({ {"x", T} }),
                                           OpDefinition::Outputs({ {"y", T} }),
                                           OpDefinition::Attributes({ {"alpha", {"*"} } })) } }),
    [](const popart::OpCreatorInfo& info) -> std::unique_ptr<popart::Op> {
      float alpha = info.attributes.getAttribute<popart::Attributes::Float>("alpha", kDefaultAlpha);
      return std::make_unique<{{op_name}}Op>(info.opid, alpha, info.settings);
    },
    true);

popart::popx::OpxCreator<{{op_name}}Opx> opxCreator({ {{op_name}}Id });
popart::popx::OpxCreator<{{op_name}}GradOpx> gradOpxCreator({ {{op_name}}GradId });

// Output shapes for PopART's Builder (builder.customOp); PopRT uses custom_shape_inference.py.
popart::RegisterShapeInferenceFunction shapeInference(
    {{op_name}}Id, [](popart::ShapeInferenceContext& ctx) { ctx.outInfo(0) = ctx.inInfo(0); });

} // namespace
} // namespace {{name}}_op
