# opkit's load probe inside the framework's own Python (the venv of its
# release), for a library that loads only there: it calls the Python C API
# without linking libpython, or needs a library only `import tensorflow`
# (`import torch`) loads, or is a Python extension module.
# Usage: python load_in_python.py MODULE REPORTER LIBRARY [EXTENSION_NAME]
# Imports the framework as a user's program does, loads the probe's reporter
# (linked with the SDK's framework library, which the loader finds already
# mapped by its soname) RTLD_LOCAL, then the library with ctypes.CDLL's flags,
# as tf.load_op_library and torch.ops.load_library do, and given
# EXTENSION_NAME, imports it as Python imports an extension module of that
# name (where it defines PyInit_<name>), and prints the reporter's JSON (with the module's public functions,
# for a module). Exit: 0 loaded, 3 the loader refused the library, 4 the probe
# itself failed (the same as load_probe.c).
import ctypes
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys


def import_extension(name, path):
    """Imports the file as the extension module `name`, as a package's `from . import _C` does;
    returns its public functions."""
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return sorted(n for n in vars(module) if not n.startswith("_") and callable(getattr(module, n)))


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: load_in_python.py MODULE REPORTER LIBRARY [EXTENSION_NAME]\n")
        return 2
    module, reporter_path, library = sys.argv[1:4]
    extension = sys.argv[4] if len(sys.argv) == 5 else None
    try:
        importlib.import_module(module)
    except Exception as error:  # the venv is broken: the probe cannot stand for the framework
        sys.stderr.write("load_in_python: cannot import %s: %s\n" % (module, error))
        return 4
    flags = os.RTLD_NOW | os.RTLD_LOCAL
    try:
        reporter = ctypes.CDLL(reporter_path, mode=flags)
    except OSError as error:
        sys.stderr.write("load_in_python: cannot load %s: %s\n" % (reporter_path, error))
        return 4
    reporter.opkit_probe_report.restype = ctypes.c_char_p
    reporter.opkit_probe_refused.restype = ctypes.c_char_p
    reporter.opkit_probe_refused.argtypes = [ctypes.c_char_p]
    reporter.opkit_probe_snapshot()
    functions = None
    try:
        loaded = ctypes.CDLL(library, mode=flags)
        # A module that defines PyInit_<name> is imported too (a library built as a
        # module without one, torch/extension.h with TORCH_LIBRARY alone, is not).
        if extension and hasattr(loaded, "PyInit_" + extension):
            functions = import_extension(extension, library)
    except (OSError, ImportError) as error:
        sys.stdout.write(reporter.opkit_probe_refused(str(error).encode("utf-8", "replace")).decode() + "\n")
        return 3
    report = reporter.opkit_probe_report().decode("utf-8", "replace")
    if functions is not None:
        report = json.loads(report)
        report["functions"] = functions
        report = json.dumps(report)
    sys.stdout.write(report + "\n")
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    os._exit(code)  # no interpreter teardown: a framework's atexit work is not the library's verdict
