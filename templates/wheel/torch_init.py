"""{{op_name}} (and the other operators of {{name}}), with a library for each torch release it was built for.

The wheel requires no torch distribution: it plugs into the torch installed
beside it, which must be a release it carries a library for (any patch
release of its major.minor; the loader picks the library). Written by opkit.
"""

# The torch releases this wheel carries a library for (<package>/torch-<version>/).
CARRIED_TORCH_VERSIONS = ({{carried}})


def _series(version):
    return ".".join(version.split("+")[0].split(".")[:2])


def _check_torch():
    supported = "%s (or another patch release of %s)" % (
        ", ".join(CARRIED_TORCH_VERSIONS),
        ", ".join(sorted(set(_series(v) + ".*" for v in CARRIED_TORCH_VERSIONS))))
    try:
        import torch
    except ImportError as error:
        raise ImportError("{{name}} {{version}} needs torch %s: %s" % (supported, error))
    running = torch.__version__
    if _series(running) not in [_series(v) for v in CARRIED_TORCH_VERSIONS]:
        raise ImportError("{{name}} {{version}} carries libraries for torch %s; this process runs torch %s"
                          % (supported, running))


_check_torch()
from .{{name}}_ops import *  # noqa: E402,F401,F403
