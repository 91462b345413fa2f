// The {{name}} op for OneFlow's Python-kernel custom ops (OneFlow 0.3/0.4,
// flow.experimental.custom_op_module): y = sigmoid(x) and its gradient.
// This file only describes the ops; the computation is forward() and backward()
// in {{name}}_py_kernel.py. OneFlow finds those through the op type names:
// "<module>_forward" and "<module>_backward", the module being the folder name.
#include "oneflow/core/framework/framework.h"

namespace oneflow {

namespace {

REGISTER_USER_OP("{{name}}_forward")
    .Input("x")
    .Output("y")
    // Routes the op to the Python kernel (registered for device "cpu", sub-tag "py").
    .Attr<std::string>("device_sub_tag", "py")
    .SetTensorDescInferFn([](user_op::InferContext* ctx) -> Maybe<void> {
      // Floating-point x only (IsFloatingDataType); the kernel returns x's dtype.
      CHECK_OR_RETURN(IsFloatingDataType(*ctx->Dtype4ArgNameAndIndex("x", 0)));
      *ctx->Shape4ArgNameAndIndex("y", 0) = *ctx->Shape4ArgNameAndIndex("x", 0);
      *ctx->Dtype4ArgNameAndIndex("y", 0) = *ctx->Dtype4ArgNameAndIndex("x", 0);
      return Maybe<void>::Ok();
    })
    .SetGetSbpFn([](user_op::SbpContext* ctx) -> Maybe<void> {
      // Elementwise: x and y may be split along any axis.
      const user_op::TensorDesc& x = ctx->LogicalTensorDesc4InputArgNameAndIndex("x", 0);
      FOR_RANGE(int64_t, i, 0, x.shape().NumAxes()) {
        ctx->NewBuilder().Split(user_op::OpArg("x", 0), i).Split(user_op::OpArg("y", 0), i).Build();
      }
      return Maybe<void>::Ok();
    });

// The gradient op. sigmoid'(x) = y * (1 - y) needs only the forward output, so
// it takes y (not x) and dy, the gradient arriving at y.
REGISTER_USER_OP("{{name}}_backward")
    .Input("y")
    .Input("dy")
    .Output("dx")
    .Attr<std::string>("device_sub_tag", "py")
    .SetTensorDescInferFn([](user_op::InferContext* ctx) -> Maybe<void> {
      CHECK_OR_RETURN(*ctx->Shape4ArgNameAndIndex("dy", 0) == *ctx->Shape4ArgNameAndIndex("y", 0));
      *ctx->Shape4ArgNameAndIndex("dx", 0) = *ctx->Shape4ArgNameAndIndex("dy", 0);
      *ctx->Dtype4ArgNameAndIndex("dx", 0) = *ctx->Dtype4ArgNameAndIndex("dy", 0);
      return Maybe<void>::Ok();
    })
    .SetGetSbpFn([](user_op::SbpContext* ctx) -> Maybe<void> {
      const user_op::TensorDesc& y = ctx->LogicalTensorDesc4InputArgNameAndIndex("y", 0);
      FOR_RANGE(int64_t, i, 0, y.shape().NumAxes()) {
        ctx->NewBuilder()
            .Split(user_op::OpArg("y", 0), i)
            .Split(user_op::OpArg("dy", 0), i)
            .Split(user_op::OpArg("dx", 0), i)
            .Build();
      }
      return Maybe<void>::Ok();
    });

// Autodiff: the gradient of {{name}}_forward's input x is the dx of a
// {{name}}_backward op fed with the forward output y and y's gradient.
REGISTER_USER_OP_GRAD("{{name}}_forward")
    .SetBackwardOpConfGenFn([](user_op::BackwardOpConfContext* ctx) {
      const std::string grad_op_name = ctx->FwOp().op_name() + "_grad";
      ctx->DefineOp(grad_op_name, [ctx](user_op::BackwardOpBuilder& builder) {
        return builder.OpTypeName("{{name}}_backward")
            .InputBind("y", ctx->FwOp().output("y", 0))
            .InputBind("dy", ctx->FwOp().output_grad("y", 0))
            .Output("dx")
            .Build();
      });
      // Captured by value: nothing here outlives this function by reference.
      ctx->FwOp().InputGradBind(user_op::OpArg("x", 0), [ctx, grad_op_name]() -> const std::string& {
        return ctx->GetOp(grad_op_name).output("dx", 0);
      });
    });

}  // namespace

}  // namespace oneflow
