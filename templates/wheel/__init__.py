"""The {{op_name}} op, with a library for each TensorFlow version it was built for.

The wheel requires no TensorFlow distribution: it is a plugin for the TensorFlow
installed beside it (tensorflow, tensorflow-cpu, tensorflow-gpu, intel-tensorflow,
...), which must be a version it carries a library for. Written by opkit.
"""

# The TensorFlow versions this wheel carries a library for; any patch release of
# their major.minor loads the library (as the wrapper picks it).
CARRIED_TENSORFLOW_VERSIONS = ({{carried}})


def _series(version):
    return ".".join(version.split(".")[:2])


def _check_tensorflow():
    supported = "%s (or another patch release of %s)" % (
        ", ".join(CARRIED_TENSORFLOW_VERSIONS),
        ", ".join(sorted(set(_series(v) + ".*" for v in CARRIED_TENSORFLOW_VERSIONS))))
    try:
        import tensorflow
    except ImportError as error:
        raise ImportError("{{name}} {{version}} needs TensorFlow %s, from any distribution "
                          "(tensorflow, tensorflow-cpu, ...): %s" % (supported, error))
    running = tensorflow.__version__
    if _series(running) not in [_series(v) for v in CARRIED_TENSORFLOW_VERSIONS]:
        raise ImportError("{{name}} {{version}} carries libraries for TensorFlow %s; this process runs "
                          "TensorFlow %s" % (supported, running))


_check_tensorflow()
from .{{name}}_ops import *  # noqa: E402,F401,F403
