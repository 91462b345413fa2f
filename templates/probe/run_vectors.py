"""opkit test --python: runs one op on its test vectors (opkit.yaml's tests:)
inside a real TensorFlow, and prints JSON lines: the Python function TensorFlow
generated for the op, then one line per vector, then the TensorFlow version
(framework_version).

usage: python run_vectors.py LIBRARY OP_NAME VECTORS_JSON

The function is looked up in the module tf.load_op_library returns: the one
TensorFlow's own wrapper generator made for OP_NAME (opkit never derives the
name). Runs on TF 1.x (a graph and a session; Python 3.6, numpy 1.16) and 2.x
(eagerly).
"""
import json
import re
import sys

import numpy as np
import tensorflow as tf

from vectors_json import dumps, special_float

# TensorFlow's DataTypeString spellings, as opkit.yaml uses them.
DTYPES = {"float": "float32", "double": "float64", "half": "float16"}


def tf_dtype(name):
    return tf.as_dtype(DTYPES.get(name, name))


def wrapper_for(module, op_name):
    """The function TensorFlow generated for op_name: a public, lower-case name
    whose code builds that op (its CamelCase raw-op alias and its eager fallback
    are left out). Decorators (dispatch) are looked through."""
    found = []
    for attr in sorted(dir(module)):
        function = getattr(module, attr)
        if not attr[:1].islower() or attr.endswith("_eager_fallback") or not callable(function):
            continue
        inner = function
        while hasattr(inner, "__wrapped__"):
            inner = inner.__wrapped__
        code = getattr(inner, "__code__", None)
        if code is not None and op_name in code.co_consts:
            found.append(attr)
    return found


def tensor(value):
    if value["dtype"] == "string":
        return tf.constant(value["value"], dtype=tf.string)
    dtype = tf_dtype(value["dtype"])
    return tf.constant(np.array(value["value"], dtype=dtype.as_numpy_dtype), dtype=dtype)


def attr_value(attr):
    if attr["type"] == "type":
        return tf_dtype(attr["value"])
    if attr["type"] == "list(type)":
        return [tf_dtype(v) for v in attr["value"]]
    return attr["value"]


def takes(function, name):
    """Whether the generated wrapper has a parameter `name` (it has none for a
    type attr TensorFlow infers from the inputs)."""
    inner = function
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    code = getattr(inner, "__code__", None)
    if code is None:
        return True
    return name in code.co_varnames[:code.co_argcount + getattr(code, "co_kwonlyargcount", 0)]


def split_attrs(function, vector):
    """The attrs passed to the wrapper, and the type attrs it infers itself,
    which a vector may set all the same: those are checked against the op
    TensorFlow builds from the inputs."""
    given, inferred = {}, {}
    for attr in vector["attrs"]:
        inferred_type = attr["type"] in ("type", "list(type)") and not takes(function, attr["name"])
        (inferred if inferred_type else given)[attr["name"]] = attr_value(attr)
    return given, inferred


def check_inferred(function, vector, given, inferred):
    """Raises TypeError when TensorFlow infers a type attr other than the one the vector sets."""
    if not inferred:
        return
    with tf.Graph().as_default():
        outputs = function(*[tensor(i) for i in vector["inputs"]], **given)
        first = outputs[0] if isinstance(outputs, (list, tuple)) and outputs else outputs
        op = getattr(first, "op", first)
        for name, want in sorted(inferred.items()):
            got = op.get_attr(name)
            if got != want:
                shown = lambda v: [t.name for t in v] if isinstance(v, list) else v.name
                raise TypeError("attr %s is %s as TensorFlow infers it from the inputs, not %s as the vector sets it"
                                % (name, shown(got), shown(want)))


def run(function, vector):
    """The op's outputs for one vector, as numpy values."""
    given, inferred = split_attrs(function, vector)
    check_inferred(function, vector, given, inferred)

    def build():
        args = [tensor(i) for i in vector["inputs"]]
        outputs = function(*args, **given)
        return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

    if tf.executing_eagerly():
        return [np.asarray(o.numpy()) for o in build()]
    with tf.Graph().as_default():
        outputs = build()
        with tf.Session() as session:
            return [np.asarray(o) for o in session.run(outputs)]


def plain(value):
    """A numpy value as JSON: strings decoded, numbers as Python numbers."""
    if value.dtype.kind in "OSU":
        decode = np.vectorize(lambda s: s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s), otypes=[object])
        return decode(value).tolist()
    if value.dtype.kind == "f":
        return value.astype(np.float64).tolist()
    return value.tolist()


def matches(got, want, tolerance):
    if got.dtype.kind in "OSU":
        return np.shape(want) == got.shape and plain(got) == want
    want = np.array(want)
    if got.shape != want.shape:
        return False
    if got.dtype.kind in "fc":
        return bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=tolerance, equal_nan=True))
    return bool(np.array_equal(got, want))


def error_message(error):
    """The op's own message: without TF 2's eager decorations ({{function_node ...}},
    [Op:Name]) or TF 1's graph trace (the node lines that follow it)."""
    message = (getattr(error, "message", None) or str(error)).strip()
    message = message.splitlines()[0] if message else ""
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    return re.sub(r"\s*\[Op:[^\]]*\]$", "", message)


def check(function, vector):
    """(ok, actual) for one vector."""
    try:
        got = run(function, vector)
    except Exception as error:  # the op rejected the input (tf.errors.*), or Python did (bad attr)
        message = error_message(error)
        return vector["error"] is not None and vector["error"] in message, {"error": "%s: %s" % (type(error).__name__, message)}
    if vector["error"] is not None:
        return False, {"outputs": [plain(g) for g in got]}
    actual = {"outputs": {o["name"]: plain(g) for o, g in zip(vector["outputs"], got)}}
    ok = len(got) == len(vector["outputs"]) and all(
        matches(g, o["value"], vector["tolerance"]) for o, g in zip(vector["outputs"], got))
    return ok, actual


def main():
    library, op_name, vectors_path = sys.argv[1:4]
    module = tf.load_op_library(library)
    names = wrapper_for(module, op_name)
    if len(names) != 1:
        print(dumps({"error": "TensorFlow generated %s Python function for op %s (%s)"
                          % ("no" if not names else "more than one", op_name, ", ".join(names) or "none")}))
        return 1
    print(dumps({"python_name": names[0]}))
    function = getattr(module, names[0])
    failures = 0
    for index, vector in enumerate(json.load(open(vectors_path), object_hook=special_float)):
        ok, actual = check(function, vector)
        failures += 0 if ok else 1
        print(dumps({"vector": index, "ok": ok, "actual": actual}))
        sys.stdout.flush()
    print(dumps({"framework_version": tf.__version__, "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
