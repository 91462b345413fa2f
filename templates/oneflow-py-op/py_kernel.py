"""Python kernels of the {{name}} op: y = sigmoid(x) and its gradient.

OneFlow calls forward() for the op type "{{name}}_forward" and backward() for
"{{name}}_backward" (see {{name}}_cpp_def.cpp). Each gets one argument, a list of
numpy arrays in the order of the op's .Input(...) calls, and returns an ndarray
(a list of them when the op has several outputs, in .Output(...) order).
The inputs are views of OneFlow's buffers: never write into them. The result's
dtype must equal the output's exactly (OneFlow checks it, it does not cast).
"""
import numpy as np


def forward(args):
    """y = 1 / (1 + exp(-x))."""
    (x,) = args
    # A 0-d tensor arrives as a numpy scalar, and OneFlow takes back only ndarrays.
    x = np.asarray(x)
    # exp(-log(1 + exp(-x))) is the same value without overflow for large -x.
    y = np.exp(-np.logaddexp(0, -x))
    return np.asarray(y, dtype=x.dtype)


def backward(args):
    """dx = dy * sigmoid'(x) = dy * y * (1 - y), with y the forward output."""
    (y, dy) = args
    y, dy = np.asarray(y), np.asarray(dy)
    dx = dy * y * (1 - y)
    return np.asarray(dx, dtype=dy.dtype)
