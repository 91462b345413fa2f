"""Python API of the {{name}} op.

OneFlow loads this file as the module's `api` namespace:
flow.experimental.custom_op_module("{{name}}", path).py_api(). Lazy (graph) mode
only: call it inside a @flow.global_function job, under
flow.scope.placement("cpu", "0:0") since the kernel is Python.
"""
from typing import Optional

import oneflow as flow


def {{name}}_forward(x, name: Optional[str] = None):
    """y = sigmoid(x), computed by forward() in {{name}}_py_kernel.py.

    The gradient op {{name}}_backward needs no wrapper: autodiff adds it
    through the REGISTER_USER_OP_GRAD in {{name}}_cpp_def.cpp.
    """
    return (
        flow.user_op_builder(name if name is not None else flow.util.unique_str("{{op_name}}_"))
        .Op("{{name}}_forward")
        .Input("x", [x])
        .Output("y")
        .Build()
        .InferAndTryRun()
        .SoleOutputBlob()
    )
