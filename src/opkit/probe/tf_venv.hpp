#pragma once

// A virtual environment with one exact TensorFlow release, for running ops on
// values in the version they ship to.
#include "opkit/sdk/sdk.hpp"

#include <filesystem>

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

} // namespace opkit::probe
