// The {{op_name}} op: its interface and shape function. The kernels are in
// {{name}}_kernels.cc.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace {{name}} {

REGISTER_OP("{{op_name}}")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .Attr("T: {int32, float}")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      // Status() is OK in every TF version opkit supports (Status::OK() is gone in newer ones).
      return ::tensorflow::Status();
    })
    .Doc(R"doc(
Keeps the first element of `to_zero` and sets every other element to zero.
)doc");

}  // namespace {{name}}
