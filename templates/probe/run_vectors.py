"""opkit test --python: runs an op on the test vectors of opkit.yaml inside a
real TensorFlow and prints one JSON line per output compared.

usage: python run_vectors.py LIBRARY PYTHON_NAME VECTORS_JSON

PYTHON_NAME is the function TensorFlow generates for the op (opkit derives it
as TensorFlow does: LoadKVEmbed -> load_kv_embed, Vendor>Resampler -> vendor_resampler).
"""
import json
import sys

import numpy as np
import tensorflow as tf

# TensorFlow's DataTypeString spellings, as opkit.yaml uses them.
DTYPES = {"float": "float32", "double": "float64", "half": "float16"}


def run(function, vector):
    """The op's outputs for one vector, as numpy arrays: eagerly in TF 2, in a
    graph and a session in TF 1 (whose Python 3.6 and numpy 1.16 this also runs on)."""
    def build():
        args = [tf.constant(np.array(i["value"]), dtype=tf.as_dtype(DTYPES.get(i["dtype"], i["dtype"])))
                for i in vector["inputs"]]
        outputs = function(*args)
        return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]

    if tf.executing_eagerly():
        return [o.numpy() for o in build()]
    with tf.Graph().as_default():
        outputs = build()
        with tf.Session() as session:
            return [np.asarray(o) for o in session.run(outputs)]


def main():
    library, python_name, vectors_path = sys.argv[1:4]
    module = tf.load_op_library(library)
    function = getattr(module, python_name)
    failures = 0
    for index, vector in enumerate(json.load(open(vectors_path))):
        for expected, got in zip(vector["outputs"], run(function, vector)):
            want = np.array(expected["value"])
            ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=0, atol=vector["tolerance"]))
            failures += 0 if ok else 1
            print(json.dumps({"vector": index, "output": expected["name"], "ok": ok,
                              "expected": want.tolist(), "got": got.tolist()}))
    print(json.dumps({"tf_version": tf.__version__, "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
