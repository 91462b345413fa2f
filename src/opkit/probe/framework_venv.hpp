#pragma once

// A virtual environment with one exact framework release (TensorFlow, torch),
// for running ops on values in the version they ship to.
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace opkit::probe {

// Where the per-version venvs live: $OPKIT_VENVS, else <OPKIT_HOME>/venvs.
std::filesystem::path
framework_venvs_dir();

// How a venv for the SDK's release is made, and where that came from: the
// table's python_env for the release's range where it has one (an override:
// the pins an old release needs), else the Python of the wheel the SDK came
// from (its tag cp311 is Python 3.11) with no pins, as pip would choose for
// that Python. Nothing when neither says (an SDK from a folder).
struct VenvRecipe
{
  project::PythonEnvRecipe recipe;
  std::string origin; // "the table, range >=2.10", "the wheel's tag cp311-cp311-manylinux_2_27_x86_64"
};
std::optional<VenvRecipe>
venv_recipe(const sdk::Sdk& sdk, const project::FrameworkFlags& flags);

// The venv with the SDK's framework at the SDK's version (the CPU build where
// PyPI has one: tensorflow-cpu; else the one it has: torch), made once (under
// a lock; a stamp written last marks it complete) as
// <venvs>/<short name>-<version>-py<python>, with the interpreter and the
// recipe configs/frameworks/<framework>.yaml gives for that version.
// Error(missing) when the version has no verified recipe or its Python cannot
// be found; pip's own progress shows when stderr is a terminal.
std::filesystem::path
ensure_framework_venv(const sdk::Sdk& sdk);

// The version of the SDK's framework installed in a venv, read from its
// site-packages (the dist-info of any distribution the table names); "" when none.
std::string
installed_framework(const std::filesystem::path& venv, const sdk::Sdk& sdk);

} // namespace opkit::probe
