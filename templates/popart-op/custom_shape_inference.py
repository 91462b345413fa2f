"""PopRT shape inference for the {{op_name}} custom op (domain custom.ops, version 1).

PopRT imports this file when run with --custom_shape_inference custom_shape_inference.py
(a comma-separated list of such files) and calls the ShapeFunc registered for an op type
on each node of that type whose output it cannot infer itself: ONNX has no schema for a
custom op. {{op_name}} is elementwise, so y gets x's shape and dtype.

This is the PopRT >= 1.1 API; PopRT 1.0.2 had `register` in poprt.passes.shape_inference.
"""
from typing import Tuple

import onnx
import onnx.helper
import onnx.shape_inference

from poprt.passes import ShapeFunc, get_dtype, get_shape, register_shape_func


@register_shape_func(["{{op_name}}"])
class {{op_name}}ShapeFunc(ShapeFunc):
    """y = x where x >= 0, alpha * x where x < 0: same shape and dtype as x."""

    def __call__(self, model: onnx.ModelProto, node: onnx.NodeProto) -> Tuple[onnx.ModelProto, bool]:
        graph = model.graph
        x, y = node.input[0], node.output[0]
        if get_shape(graph, y) and get_dtype(graph, y):
            return model, True
        dtype, shape = get_dtype(graph, x), get_shape(graph, x)
        # A 0 is an unknown dimension: report "not inferred" and let PopRT retry once it
        # knows more (e.g. with --input_shape x=8,8).
        if not dtype or not shape or 0 in shape:
            return model, False
        model = self.update_value_info(model, onnx.helper.make_tensor_value_info(y, dtype, shape))
        # Carry the new information on to the nodes that consume y.
        return onnx.shape_inference.infer_shapes(model), True
