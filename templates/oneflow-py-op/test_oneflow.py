"""Runs {{name}} inside OneFlow, the way OneFlow's own custom-op tests did.

Needs a OneFlow with the Python-kernel API (flow.experimental.custom_op_module,
OneFlow 0.3.x/0.4, e.g. oneflow_cu102 0.3.x from OneFlow's own package index) and
g++: build_load() compiles {{name}}/{{name}}_cpp_def.cpp. Today's OneFlow (0.7 and
later) has no such API, so this cannot run there; see README.md.
Run from this folder: python3 -m unittest test_{{name}}
"""
import os
import unittest

import numpy as np
import oneflow as flow
import oneflow.typing as tp

MODULE_PATH = os.path.dirname(os.path.abspath(__file__))
# Copies ./{{name}}/ into the working directory (when that is elsewhere), compiles the
# op definition into {{name}}/out/{{name}}.so, loads it and registers the Python kernels.
{{name}}_op = flow.experimental.custom_op_module("{{name}}", MODULE_PATH)
{{name}}_op.py_api().cpp_def().py_kernel().build_load()

func_config = flow.FunctionConfig()
func_config.default_data_type(flow.float)


def numpy_sigmoid(x):
    return 1 / (1 + np.exp(-x))


class Test{{op_name}}(unittest.TestCase):
    def test_forward(self):
        flow.clear_default_session()

        @flow.global_function(function_config=func_config)
        def forward_job(x: tp.Numpy.Placeholder((2, 5), dtype=flow.float32)) -> tp.Numpy:
            with flow.scope.placement("cpu", "0:0"):  # Python kernels run on the CPU only
                return {{name}}_op.api.{{name}}_forward(x)

        x = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
        self.assertTrue(np.allclose(forward_job(x), numpy_sigmoid(x), rtol=1e-5, atol=1e-6))

    def test_gradient(self):
        flow.clear_default_session()
        grads = []

        def keep_grad(dv: tp.Numpy):  # the annotation makes OneFlow pass an ndarray
            grads.append(dv)

        @flow.global_function(type="train", function_config=func_config)
        def train_job(x: tp.Numpy.Placeholder((2, 5), dtype=flow.float32)) -> tp.Numpy:
            with flow.scope.placement("cpu", "0:0"):
                # A variable makes the job trainable; its gradient is dx of {{name}}_backward.
                v = flow.get_variable("v", shape=(2, 5), dtype=flow.float32, initializer=flow.zeros_initializer())
                y = {{name}}_op.api.{{name}}_forward(x + v)
                flow.watch_diff(v, keep_grad)
                flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0).minimize(
                    flow.math.reduce_sum(y))
            return y

        x = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
        y = train_job(x)
        self.assertTrue(np.allclose(grads[-1], y * (1 - y), rtol=1e-5, atol=1e-6))


if __name__ == "__main__":
    unittest.main()
