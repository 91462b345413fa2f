// The {{op_name}} op: its interface and shape function. The kernel is in
// {{name}}_kernels.cc.
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace {{name}} {

REGISTER_OP("{{op_name}}")
    .Input("query: string")
    .Input("doc: string")
    .Output("ratio: float")
    .Attr("separator: string = ' '")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle shape;
      TF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &shape));
      c->set_output(0, shape);
      // Status() is OK in every TF version opkit supports (Status::OK() is gone in newer ones).
      return ::tensorflow::Status();
    })
    .Doc(R"doc(
For each pair of texts, the share of `query`'s terms that `doc` also holds: the
number of query terms (split at `separator`, empty terms skipped) found among
doc's terms, divided by the number of query terms; 0 for a query with no terms.
A term repeated in the query counts each time.
)doc");

}  // namespace {{name}}
