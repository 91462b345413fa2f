#pragma once

// Libraries that are Python extension modules (opkit.yaml's `python_module:`):
// built once per CPython, as torch.utils.cpp_extension builds one for the
// Python it runs in, with that interpreter's headers and file name.
#include "opkit/builder/plan.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/sdk/interpreter.hpp"
#include "opkit/sdk/sdk.hpp"

#include <string>
#include <vector>

namespace opkit::builder {

// The Python a release's venv has (`opkit test` imports modules there): the
// range's python_env, else the Python of the SDK's wheel tag; "" when neither says.
std::string
release_python(const sdk::Sdk& sdk, const project::FrameworkFlags& flags);

// The CPythons module libraries are built for against `sdk`: `requested`
// (--python 3.10,3.11), else release_python. Error(usage) for a Python the
// release has no wheel for (the range's `wheels.pythons`), or none known.
std::vector<std::string>
module_pythons(const sdk::Sdk& sdk, const std::vector<std::string>& requested);

// Whether any of `libraries` is a Python module.
bool
any_module(const std::vector<const project::LibrarySpec*>& libraries);

// A module library's input (its settings resolved for the SDK) for one
// CPython: objects of its own (obj/<name>-cp310/), the file that Python
// imports (_C.cpython-310-x86_64-linux-gnu.so), Python's headers, the
// framework's module flags and libraries, and the extension's name for the
// framework's per-library defines (TORCH_EXTENSION_NAME=_C). Pure.
LibraryInput
module_input(const LibraryInput& base, const project::LibrarySpec& library, const sdk::PythonBuildFacts& python,
             const project::FrameworkFlags& flags);

} // namespace opkit::builder
