#pragma once

// Finding the Python interpreter a TensorFlow version's wheels need (3.6 for
// TF 1.12, 3.10 for 2.10.1), for the venvs `opkit test --python` makes.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// Where to look, as data (the process's environment, PATH and pyenv's root by default).
struct InterpreterSearch
{
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::vector<std::filesystem::path> path; // PATH's folders
  std::filesystem::path pyenv_root;        // $PYENV_ROOT, else ~/.pyenv
  // Whether a candidate really is that Python (a pyenv shim for an inactive
  // version is on PATH but fails): runs it, by default.
  std::function<bool(const std::filesystem::path&, const std::string&)> is_version;

  static InterpreterSearch from_environment();
};

// The variable that names an interpreter for a Python version: OPKIT_PYTHON_3_6.
std::string
interpreter_variable(const std::string& python_version);

// The interpreter for a Python version ("3.6"): $OPKIT_PYTHON_3_6 (which must
// exist), else python3.6 on PATH, else the newest <pyenv root>/versions/3.6.*.
// Nothing found: Error(missing) naming the version, what needs it, the
// variable to set and how to install one.
std::filesystem::path
find_interpreter(const std::string& python_version, const std::string& needed_by,
                 const InterpreterSearch& search = InterpreterSearch::from_environment());

// What a C extension module for one CPython is built with, asked of that
// interpreter itself (sysconfig): the folder holding Python.h and the file
// name suffix its import finds (".cpython-310-x86_64-linux-gnu.so").
struct PythonBuildFacts
{
  std::string version; // "3.10"
  std::filesystem::path interpreter;
  std::filesystem::path include_dir;
  std::string ext_suffix;
};

// The facts of find_interpreter(version)'s interpreter, asked once per process.
// No interpreter, or one without its headers: Error(missing) with the install step.
const PythonBuildFacts&
python_build_facts(const std::string& python_version, const std::string& needed_by);

// The CPython wheel tag of a version: "3.10" -> "cp310".
std::string
cpython_tag(const std::string& python_version);

} // namespace opkit::sdk
