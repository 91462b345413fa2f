#pragma once

// A virtual environment with one exact TensorFlow release, for running ops on
// values in the version they ship to.
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <string>

namespace opkit::probe {

// Where the per-version venvs live: $OPKIT_VENVS, else <OPKIT_HOME>/venvs.
std::filesystem::path
tf_venvs_dir();

// The venv with the CPU build of the SDK's TensorFlow version, made once (under
// a lock; a stamp written last marks it complete) with the interpreter and the
// recipe configs/frameworks/tensorflow.yaml gives for that version. Error(missing)
// when the version has no verified recipe or its Python cannot be found; pip's
// own progress shows when stderr is a terminal.
std::filesystem::path
ensure_tf_venv(const sdk::Sdk& sdk);

// The version of TensorFlow installed in a venv, read from its site-packages
// (tensorflow, tensorflow-cpu or tensorflow-gpu's dist-info); "" when none.
std::string
installed_tensorflow(const std::filesystem::path& venv);

} // namespace opkit::probe
