#pragma once

// Where `opkit test` loads a library. The load probe's own process stands for
// the framework's Python (the framework RTLD_LOCAL, as `import tensorflow`
// and `import torch` load it), except for what only that Python holds: the
// interpreter's own symbols (the Python C API, global there) and the
// libraries the import maps that no SDK keeps (_pywrap_tensorflow_internal.so,
// libtorch_python.so). A library that needs either is loaded inside the
// framework's own Python instead: the venv of the SDK's release
// (framework_venv), made once, as `opkit test --python` makes it.
#include "opkit/probe/probe.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <string>

namespace opkit::probe {

// Why `library` loads only in its framework's own Python ("it calls the
// Python C API (PyLong_FromLong) without linking libpython"), or "" when the
// load probe's process is enough. A library that links libpython itself
// brings it along. Reads the library's dynamic section only (elf/).
std::string
needs_framework_python(const sdk::Sdk& sdk, const std::filesystem::path& library);

// The load probe's load, inside the framework's own Python (the release's
// venv: templates/probe/load_in_python.py with the SDK's reporter, `probe`'s
// folder). `reason` is needs_framework_python's, kept in the report. A
// Python module (`module`: the name it is imported by, python_module's last
// part, "_C") is imported so, as its package imports it, and its public
// functions are reported.
ProbeReport
run_probe_in_python(const sdk::Sdk& sdk, const std::filesystem::path& probe, const std::filesystem::path& library,
                    const std::string& reason, const std::string& module = "");

} // namespace opkit::probe
