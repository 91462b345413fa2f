#pragma once

#include "opkit/project/manifest.hpp"
#include "opkit/project/template_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::probe {

// The Python opkit uses: $OPKIT_PYTHON, else python3.
std::string
local_python();

// A virtual environment with exactly these PyPI requirements, made once and
// shared: <OPKIT_HOME>/venvs/py-<hash of the requirements>. Concurrent callers
// wait on a lock; an interrupted one is redone. Error(missing) naming the
// install step when python3 -m venv or pip fails.
std::filesystem::path
ensure_venv(const std::vector<std::string>& requirements);

struct PythonTestResult
{
  std::string script;
  std::filesystem::path python;
  int exit_code = -1;
  std::string output; // stdout and stderr of the script
  bool ok() const { return exit_code == 0; }
};

// Runs the template's test script (from template.yaml, rendered for this
// project) with the venv's python, from the project root.
PythonTestResult
run_python_test(const project::Manifest& manifest, const project::TemplateSpec& spec);

} // namespace opkit::probe
