"""opkit test for {{name}}: runs the Python kernels with numpy alone (no OneFlow).

1. forward() on known values;
2. forward() and backward() honour the shape/dtype rules that
   {{name}}/{{name}}_cpp_def.cpp gives OneFlow (read from its infer functions),
   and return what OneFlow's PyCompute accepts;
3. backward() is the gradient of forward(): compared with central differences
   in float64, fed the way the REGISTER_USER_OP_GRAD in the cpp_def feeds it.
Exit 0 when every check passes, 1 otherwise.
"""
import importlib.util
import inspect
import math
import os
import re
import sys

import numpy as np

ROOT = os.environ.get("OPKIT_PROJECT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "{{name}}"
CPP_DEF = os.path.join(ROOT, MODULE, MODULE + "_cpp_def.cpp")
PY_KERNEL = os.path.join(ROOT, MODULE, MODULE + "_py_kernel.py")

# forward() on known values: (x, expected y). sigmoid(+-ln 3) = 3/4, 1/4 and
# sigmoid(+-ln 9) = 9/10, 1/10. Change these when you change the op.
FORWARD_CASES = [
    ([0.0, math.log(3), -math.log(3), math.log(9), -math.log(9)], [0.5, 0.75, 0.25, 0.9, 0.1]),
    ([40.0, -40.0], [1.0, 4.248354255291589e-18]),
    ([[1.0, -1.0], [2.0, -2.0]], [[0.7310585786300049, 0.2689414213699951], [0.8807970779778823, 0.11920292202211755]]),
    (0.0, 0.5),
]
# Relative tolerance of forward() per dtype; backward() vs central differences.
FORWARD_RTOL = {np.float32: 1e-6, np.float64: 1e-12}
FD_STEP, FD_TOL = 1e-6, 1e-6
# The dtypes PyCompute converts between OneFlow and numpy.
PYCOMPUTE_DTYPES = {np.dtype(t) for t in ("float16", "float32", "float64", "int8", "int32", "int64", "uint8")}

failures = []


def check(ok, what, detail=""):
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else "\n      " + detail))
    if not ok:
        failures.append(what)
    return ok


class ContractError(Exception):
    pass


def parse_cpp_def(path):
    """The ops registered in the cpp_def (inputs, outputs, infer rules) and the grad bindings."""
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    parts = re.split(r'\b(REGISTER_USER_OP(?:_GRAD)?)\("(\w+)"\)', text)
    ops, grads = {}, {}
    for macro, op_type, body in zip(parts[1::3], parts[2::3], parts[3::3]):
        if macro == "REGISTER_USER_OP":
            ops[op_type] = {
                "inputs": re.findall(r'\.Input\("(\w+)"\)', body),
                "outputs": re.findall(r'\.Output\("(\w+)"\)', body),
                # *ctx->Shape4ArgNameAndIndex("y", 0) = *ctx->Shape4ArgNameAndIndex("x", 0);
                "rules": re.findall(
                    r'\*ctx->(?P<k>Shape|Dtype)4ArgNameAndIndex\("(\w+)",\s*0\)\s*=\s*'
                    r'\*ctx->(?P=k)4ArgNameAndIndex\("(\w+)",\s*0\)', body),
            }
        else:
            grad_op = re.search(r'OpTypeName\("(\w+)"\)', body)
            grads[op_type] = {
                "op_type": grad_op.group(1) if grad_op else None,
                # InputBind("y", ctx->FwOp().output("y", 0)): (grad op input, what, forward arg)
                "binds": re.findall(r'InputBind\("(\w+)",\s*ctx->FwOp\(\)\.(input|output_grad|output)\("(\w+)",\s*0\)\)', body),
                # InputGradBind(user_op::OpArg("x", 0), ... .output("dx", 0)): forward input -> grad op output
                "input_grads": re.findall(r'InputGradBind\(user_op::OpArg\("(\w+)",\s*0\).*?\.output\("(\w+)",\s*0\)', body, flags=re.S),
            }
    return ops, grads


def as_pycompute_arg(array):
    """What PyCompute passes: a read-only view (never written to), a numpy scalar for a 0-d tensor."""
    array = np.array(array)
    array.setflags(write=False)
    return array[()] if array.ndim == 0 else array


def run_kernel(kernel, fn_name, op_type, op, inputs):
    """Calls kernel.<fn_name> as PyCompute does; checks the result against the op's declared rules."""
    try:
        result = getattr(kernel, fn_name)([as_pycompute_arg(inputs[name]) for name in op["inputs"]])
    except Exception as e:  # a kernel that writes into its input fails here, as it would corrupt OneFlow's
        raise ContractError("{}() raised {}: {}".format(fn_name, type(e).__name__, e))
    if isinstance(result, np.ndarray):
        results = [result]
    elif isinstance(result, list):
        results = result
    else:
        raise ContractError("{}() returned a {}: PyCompute takes an ndarray or a list of them".format(
            fn_name, type(result).__name__))
    if len(results) != len(op["outputs"]) or not all(isinstance(r, np.ndarray) for r in results):
        raise ContractError("{}() returned {} arrays; {} declares outputs {}".format(
            fn_name, len(results), op_type, op["outputs"]))
    outputs = dict(zip(op["outputs"], results))
    for name, value in outputs.items():
        if value.dtype not in PYCOMPUTE_DTYPES:
            raise ContractError("{}() output {} has dtype {}, which PyCompute cannot take".format(fn_name, name, value.dtype))
        for kind in ("Shape", "Dtype"):
            sources = [src for k, dst, src in op["rules"] if k == kind and dst == name]
            if len(sources) != 1:
                raise ContractError("{}'s infer function sets the {} of {} {} times, not once".format(
                    op_type, kind.lower(), name, len(sources)))
            expected = inputs[sources[0]]
            got, want = (value.shape, expected.shape) if kind == "Shape" else (value.dtype, expected.dtype)
            if got != want:
                raise ContractError("{}() output {} has {} {}, but the cpp_def infers {} = {} of {} ({})".format(
                    fn_name, name, kind.lower(), got, name, kind.lower(), sources[0], want))
    return outputs


def grad_op_inputs(grad, op, forward_inputs, forward_outputs, output_grads):
    """The grad op's inputs, fed as REGISTER_USER_OP_GRAD binds them."""
    source = {"input": forward_inputs, "output": forward_outputs, "output_grad": output_grads}
    feeds = {name: source[what][arg] for name, what, arg in grad["binds"]}
    missing = [name for name in op["inputs"] if name not in feeds]
    if missing:
        raise ContractError("the grad registration binds no value to input(s) {}".format(missing))
    return feeds


def main():
    print("{}: Python kernels of {}_forward / {}_backward, numpy {} (OneFlow itself is not run)".format(
        MODULE, MODULE, MODULE, np.__version__))
    spec = importlib.util.spec_from_file_location(MODULE, PY_KERNEL)  # as custom_op_module does
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)

    ops, grads = parse_cpp_def(CPP_DEF)
    fw_type, bw_type = MODULE + "_forward", MODULE + "_backward"
    if not check(sorted(ops) == sorted([fw_type, bw_type]) and fw_type in grads,
                 "cpp_def registers {} and {} and the gradient of {}".format(fw_type, bw_type, fw_type),
                 "found ops {} and gradients for {}".format(sorted(ops), sorted(grads))):
        return
    fw, bw, grad = ops[fw_type], ops[bw_type], grads[fw_type]
    for fn_name in ("forward", "backward"):
        fn = getattr(kernel, fn_name, None)
        check(callable(fn) and len(inspect.signature(fn).parameters) == 1,
              "{}_py_kernel.{}(args) exists and takes one argument".format(MODULE, fn_name))
    if failures:
        return

    # 1. Known values, in each float dtype.
    for dtype, rtol in FORWARD_RTOL.items():
        worst = None
        try:
            for x, expected in FORWARD_CASES:
                x = np.array(x, dtype=dtype)
                y = run_kernel(kernel, "forward", fw_type, fw, {fw["inputs"][0]: x})[fw["outputs"][0]]
                if not np.allclose(y, expected, rtol=rtol, atol=0):
                    worst = "x = {}: forward gave {}, expected {}".format(x.tolist(), y.tolist(), expected)
                    break
            check(worst is None, "forward() known values ({}, rtol {:g})".format(np.dtype(dtype).name, rtol), worst)
        except ContractError as e:
            check(False, "forward() known values ({})".format(np.dtype(dtype).name), str(e))

    # 2. Shape/dtype rules of the cpp_def, for both kernels, incl. 0-d and empty tensors.
    rng = np.random.default_rng(2024)
    shapes = [(), (7,), (2, 3), (2, 0, 3), (1, 2, 3, 4)]
    for dtype in (np.float16, np.float32, np.float64):
        for shape in shapes:
            try:
                xs = {name: rng.uniform(-3, 3, shape).astype(dtype) for name in fw["inputs"]}
                ys = run_kernel(kernel, "forward", fw_type, fw, xs)
                dys = {name: rng.standard_normal(value.shape).astype(value.dtype) for name, value in ys.items()}
                run_kernel(kernel, "backward", bw_type, bw, grad_op_inputs(grad, bw, xs, ys, dys))
                ok, detail = True, ""
            except ContractError as e:
                ok, detail = False, str(e)
            if not ok:
                check(False, "shape/dtype rules of the cpp_def hold for {} {}".format(np.dtype(dtype).name, shape), detail)
                break
        else:
            check(True, "shape/dtype rules of the cpp_def hold for {} ({} shapes, 0-d and empty included)".format(
                np.dtype(dtype).name, len(shapes)))

    # 3. backward() against central differences of forward(), float64, fixed seed.
    rng = np.random.default_rng(0)
    bound = dict(grad["input_grads"])  # forward input -> grad op output
    for shape in [(3, 4), (), (6,)]:
        xs = {name: rng.uniform(-4, 4, shape) for name in fw["inputs"]}
        try:
            ys = run_kernel(kernel, "forward", fw_type, fw, xs)
            dys = {name: rng.standard_normal(value.shape) for name, value in ys.items()}
            dxs = run_kernel(kernel, "backward", bw_type, bw, grad_op_inputs(grad, bw, xs, ys, dys))
        except ContractError as e:
            check(False, "backward() vs finite differences, shape {}".format(shape), str(e))
            continue

        def loss(inputs):  # <forward(x), dy>: its gradient in x is what backward() returns
            outs = run_kernel(kernel, "forward", fw_type, fw, inputs)
            return sum(float(np.sum(outs[name] * dys[name])) for name in fw["outputs"])

        for name in fw["inputs"]:
            if name not in bound:
                check(False, "the grad registration binds a gradient to input {}".format(name))
                continue
            analytic = dxs[bound[name]]
            numeric = np.zeros_like(xs[name])
            for i in np.ndindex(*shape):
                plus, minus = dict(xs), dict(xs)
                plus[name], minus[name] = xs[name].copy(), xs[name].copy()
                plus[name][i] += FD_STEP
                minus[name][i] -= FD_STEP
                numeric[i] = (loss(plus) - loss(minus)) / (2 * FD_STEP)
            error = np.abs(analytic - numeric)
            limit = FD_TOL * (1 + np.abs(numeric))
            detail = ""
            if not np.all(error <= limit):
                i = np.unravel_index(np.argmax(error - limit), error.shape) if error.ndim else ()
                detail = ("backward() does not match the finite-difference gradient of forward(): "
                          "at {}{} backward gives {}={:.9g}, central difference {:.9g} (|diff| {:.3g} > tol {:.3g})".format(
                              name, [int(k) for k in i] if i else "", bound[name], analytic[i], numeric[i], error[i], limit[i]))
            check(not detail, "backward() matches the finite-difference gradient of forward() in {}, shape {} "
                  "(max |diff| {:.2g}, tol {:g})".format(name, shape, float(np.max(error, initial=0)), FD_TOL), detail)


if __name__ == "__main__":
    main()
    print("{} check(s) failed".format(len(failures)) if failures else "all checks passed")
    sys.exit(1 if failures else 0)
