# opkit's load probe inside the framework's own Python (the venv of its
# release), for a library that loads only there: it calls the Python C API
# without linking libpython, or needs a library only `import tensorflow`
# (`import torch`) loads. Usage: python load_in_python.py MODULE REPORTER LIBRARY
# Imports the framework as a user's program does, loads the probe's reporter
# (linked with the SDK's framework library, which the loader finds already
# mapped by its soname) RTLD_LOCAL, then the library with ctypes.CDLL's flags,
# as tf.load_op_library and torch.ops.load_library do, and prints the
# reporter's JSON. Exit: 0 loaded, 3 the loader refused the library, 4 the probe
# itself failed (the same as load_probe.c).
import ctypes
import importlib
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: load_in_python.py MODULE REPORTER LIBRARY\n")
        return 2
    module, reporter_path, library = sys.argv[1:]
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
    try:
        ctypes.CDLL(library, mode=flags)
    except OSError as error:
        sys.stdout.write(reporter.opkit_probe_refused(str(error).encode("utf-8", "replace")).decode() + "\n")
        return 3
    sys.stdout.write(reporter.opkit_probe_report().decode("utf-8", "replace") + "\n")
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    os._exit(code)  # no interpreter teardown: a framework's atexit work is not the library's verdict
