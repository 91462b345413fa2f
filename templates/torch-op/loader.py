"""Loads the {{name}} operators into the running torch.

Finds lib{{name}}.so built for this process's torch release: torch-<version>/
next to this file (as `opkit package wheel` packs it), or
../build/torch-<version>-cuda/ (as `opkit build` leaves it: PyPI's torch is
the CUDA build); else one built for another patch release of its major.minor. The library registers torch.ops.{{name}}.*.
"""
import glob
import os

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOTS = [os.path.join(_HERE, "lib"), _HERE, os.path.join(_HERE, os.pardir, "build")]
_LIBRARY = "lib{{name}}.so"


def _library_path(version=torch.__version__):
    release = version.split("+")[0]  # "2.8.0+cu128" -> "2.8.0"
    for root in _ROOTS:
        for folder in ("torch-" + release, "torch-" + release + "-cuda"):
            path = os.path.join(root, folder, _LIBRARY)
            if os.path.exists(path):
                return path
    # Another patch release of the same major.minor keeps its C++ API: a
    # library built for 2.5.1 loads into 2.5.0.
    series = ".".join(release.split(".")[:2])
    for root in _ROOTS:
        found = sorted(glob.glob(os.path.join(root, "torch-" + series + ".*", _LIBRARY)))
        if found:
            return found[-1]
    built = sorted(set(os.path.basename(os.path.dirname(path))
                       for root in _ROOTS for path in glob.glob(os.path.join(root, "torch-*", _LIBRARY))))
    raise ImportError(
        "no %s for torch %s (this process runs it); built here: %s; run: opkit build --torch %s"
        % (_LIBRARY, release, ", ".join(built) or "none", release))


torch.ops.load_library(_library_path())


def zero_out(x):
    """Keeps the first element of x and zeroes the rest (differentiable)."""
    return torch.ops.{{name}}.zero_out(x)
