"""Python wrapper for the {{op_name}} op.

Loads lib{{name}}.so built for the TensorFlow version this process runs:
tf-<version>/ next to this file (as packaged), or ../build/tf-<version>/
(as `opkit build` leaves it). An exact version wins over a major.minor match.
"""
import glob
import os

import tensorflow as tf

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOTS = [os.path.join(_HERE, "lib"), _HERE, os.path.join(_HERE, os.pardir, "build")]
_LIBRARY = "lib{{name}}.so"


def _library_path(version=tf.__version__):
    major_minor = ".".join(version.split(".")[:2])
    for root in _ROOTS:
        exact = os.path.join(root, "tf-" + version, _LIBRARY)
        if os.path.exists(exact):
            return exact
    for root in _ROOTS:
        matches = sorted(glob.glob(os.path.join(root, "tf-" + major_minor + ".*", _LIBRARY)))
        if matches:
            return matches[-1]
    carried = sorted(set(os.path.basename(os.path.dirname(path))[len("tf-"):]
                         for root in _ROOTS for path in glob.glob(os.path.join(root, "tf-*", _LIBRARY))))
    raise ImportError(
        "no %s for TensorFlow %s (this process runs it); libraries here are for TensorFlow %s; "
        "run: opkit build --tf %s" % (_LIBRARY, version, ", ".join(carried) or "no version", version))


_module = tf.load_op_library(_library_path())
{{name}} = _module.{{name}}
