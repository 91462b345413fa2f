"""opkit test --python for torch: runs one op on its test vectors (opkit.yaml's
tests:) in a real torch, and prints JSON lines: how Python calls the op, then
one line per vector, then the torch release (framework_version).

usage: python run_torch_vectors.py LIBRARY OP_NAME VECTORS_JSON [MODULE]

LIBRARY is loaded with torch.ops.load_library, as an extension's own Python
loads it. OP_NAME is the dispatcher's name (ns::op or ns::op.overload); the op
is called as torch.ops.ns.op(...) with every argument by keyword, as its schema
names them (positionally where they are torch's inferred _0, _1, ...), so arguments a vector leaves out take the schema's defaults; the
optional ones without a default that it leaves out (opkit lists them as the
vector's "pass_none") and its nulls ("none": true) are None. An output marked
"argument" is an argument the op writes into (Tensor(a!)), compared after the
call. With MODULE (opkit.yaml's python_module, "rowkit_cpp"), LIBRARY is that
Python module, imported by its last name, and OP_NAME (<module>::<function>)
one of its own functions (pybind11's m.def), called the same way. The JSON opkit wrote is the truth about the op; whatever goes wrong,
including bad vector data, is a JSON line, never a traceback.
"""
import importlib.machinery
import importlib.util
import json
import math
import re
import sys

import torch

from vectors_json import dumps, special_float


def tensor(value, dtype):
    """A tensor from a vector's value: torch infers the dtype when none is given."""
    return torch.tensor(value, dtype=getattr(torch, dtype)) if dtype else torch.tensor(value)


def argument(item):
    """An input of a vector as the op takes it: a tensor, a list of them (None
    for a null element of a Tensor?[]), a plain value, or None."""
    if item.get("none") or item["value"] is None:
        return None
    if item.get("kind") == "tensor":
        return tensor(item["value"], item["dtype"])
    if item.get("kind") == "tensors":
        return [None if v is None else tensor(v, item["dtype"]) for v in item["value"]]
    if item.get("type", "").startswith("ScalarType") and isinstance(item["value"], str):
        return getattr(torch, item["value"])  # "float32" -> torch.float32
    return item["value"]


def arguments(vector):
    """The op's keyword arguments for a vector: (kwargs, None), or (None, why not)."""
    kwargs = {}
    for item in vector["attrs"] + vector["inputs"]:
        try:
            kwargs[item["name"]] = argument(item)
        except Exception as error:  # torch.tensor on ragged lists, an unknown dtype, ...
            return None, "input %s: %s: %s" % (item.get("name"), type(error).__name__, error_message(error))
    for name in vector.get("pass_none", []):
        kwargs.setdefault(name, None)
    return kwargs, None


def plain(value):
    """A result as JSON: a tensor as nested lists, floats as Python floats."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.is_complex():
            return [[z.real, z.imag] for z in value.reshape(-1).tolist()]
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, complex):
        return [value.real, value.imag]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)  # torch.dtype, torch.device, ...: JSON has no such value


def close(a, b, tolerance):
    numbers = (int, float)
    if (isinstance(a, float) or isinstance(b, float)) and isinstance(a, numbers) and isinstance(b, numbers):
        return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= tolerance
    return a == b


def matches(got, want, tolerance):
    if isinstance(got, torch.Tensor):
        got = got.detach().cpu()
        try:
            expected = torch.tensor(want, dtype=got.dtype)
        except (TypeError, ValueError, RuntimeError):
            return False
        if got.shape != expected.shape:
            return False
        if got.is_floating_point() or got.is_complex():
            wide = torch.complex128 if got.is_complex() else torch.float64
            return bool(torch.allclose(got.to(wide), expected.to(wide), rtol=0, atol=tolerance, equal_nan=True))
        return bool(torch.equal(got, expected))
    if isinstance(got, (list, tuple)):
        return isinstance(want, list) and len(got) == len(want) and all(
            matches(g, w, tolerance) for g, w in zip(got, want))
    return close(got, want, tolerance)


def error_message(error):
    """The op's own message (TORCH_CHECK's text), without the C++ trace lines that follow it."""
    message = str(error).strip()
    return message.splitlines()[0] if message else ""


def call(function, kwargs):
    """By keyword, as the schema names the arguments; positionally where the
    names are those torch infers (_0, _1, ...), which a module's function
    (pybind11 without py::arg) does not take by keyword."""
    if kwargs and all(re.match(r"_\d+$", name) for name in kwargs):
        return function(*[kwargs[name] for name in sorted(kwargs, key=lambda n: int(n[1:]))])
    return function(**kwargs)


def check(function, vector):
    """(ok, actual) for one vector."""
    kwargs, problem = arguments(vector)
    if problem:
        return False, {"error": "opkit could not make the vector's %s" % problem}
    try:
        result = call(function, kwargs)
    except Exception as error:  # TORCH_CHECK's c10::Error is RuntimeError; a bad argument TypeError
        message = error_message(error)
        return vector["error"] is not None and vector["error"] in message, {"error": "%s: %s" % (type(error).__name__, message)}
    got = [] if result is None else list(result) if isinstance(result, tuple) else [result]
    if vector["error"] is not None:
        return False, {"outputs": [plain(g) for g in got]}
    results = [o for o in vector["outputs"] if not o.get("argument")]
    written = [(o, kwargs.get(o["name"])) for o in vector["outputs"] if o.get("argument")]
    compared = list(zip(results, got)) + written
    actual = {"outputs": {o["name"]: plain(g) for o, g in compared}}
    ok = len(got) == len(results) and all(matches(g, o["value"], vector["tolerance"]) for o, g in compared)
    return ok, actual


def operator(op_name):
    """torch.ops.ns.op, or its overload for ns::op.overload, and how Python names it."""
    namespace, _, rest = op_name.partition("::")
    name, _, overload = rest.partition(".")
    function = getattr(getattr(torch.ops, namespace), name)
    if overload:
        function = getattr(function, overload)
    return function, "torch.ops.%s.%s" % (namespace, rest)


def module_function(library, module_name, op_name):
    """A Python module's own function (pybind11's m.def): the library imported as the
    module (its last name, as its package imports it), and how Python names the function."""
    name = module_name.rpartition(".")[2]
    loader = importlib.machinery.ExtensionFileLoader(name, library)
    spec = importlib.util.spec_from_file_location(name, library, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    function_name = op_name.partition("::")[2]
    return getattr(module, function_name), "%s.%s" % (module_name, function_name)


def main():
    library, op_name, vectors_path = sys.argv[1:4]
    module_name = sys.argv[4] if len(sys.argv) > 4 else None
    if module_name:
        try:
            function, python_name = module_function(library, module_name, op_name)
        except ImportError as error:
            print(dumps({"error": "import %s: %s" % (module_name, error_message(error))}))
            return 1
        except AttributeError:
            print(dumps({"error": "the module %s has no function %s" % (module_name, op_name.partition("::")[2])}))
            return 1
    else:
        try:
            torch.ops.load_library(library)
        except Exception as error:
            print(dumps({"error": "torch.ops.load_library: %s" % error_message(error)}))
            return 1
        try:
            function, python_name = operator(op_name)
        except (AttributeError, RuntimeError):
            print(dumps({"error": "the library registered no op %s in torch %s" % (op_name, torch.__version__)}))
            return 1
    print(dumps({"python_name": python_name}))
    try:
        with open(vectors_path) as file:
            vectors = json.load(file, object_hook=special_float)
    except (OSError, ValueError) as error:
        print(dumps({"error": "%s: %s" % (vectors_path, error)}))
        return 1
    failures = 0
    for index, vector in enumerate(vectors):
        try:
            ok, actual = check(function, vector)
        except Exception as error:  # a vector opkit's runner did not foresee: that vector fails, not the run
            ok, actual = False, {"error": "opkit's runner: %s: %s" % (type(error).__name__, error_message(error))}
        failures += 0 if ok else 1
        print(dumps({"vector": index, "ok": ok, "actual": actual}))
        sys.stdout.flush()
    # "2.5.1+cu124" -> "2.5.1": PyPI's torch carries its CUDA build in the local version.
    print(dumps({"framework_version": torch.__version__.split("+")[0], "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
