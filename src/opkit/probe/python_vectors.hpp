#pragma once

#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::probe {

// One output of one test vector, compared in a real TensorFlow.
struct VectorOutcome
{
  int vector = 0;
  std::string output;
  bool ok = false;
  std::string expected; // JSON
  std::string got;      // JSON
};

struct PythonVectorsReport
{
  std::string tf_version;
  std::filesystem::path library;
  std::vector<VectorOutcome> outcomes;
  std::string log; // the script's stderr, shown when it fails to run
  bool ran = false;
  bool ok() const;
};

// `opkit test --python`: with a TensorFlow the local python3 can import (a
// venv opkit makes or reuses, holding the release configs/ names for that
// Python), builds the op for that version (importing its SDK from the venv
// when the store lacks it), loads it with tf.load_op_library and runs it on
// opkit.yaml's test vectors. No vectors is Error(usage).
PythonVectorsReport
test_in_python(const project::Manifest& manifest, const std::filesystem::path& build_root);

// Runs the test vectors in a real TensorFlow of each version spec: the library
// `opkit build` made for that SDK (it must be built and pass its check), loaded
// by a venv with exactly that TensorFlow (probe/tf_venv). One report per version.
std::vector<PythonVectorsReport>
test_in_tf_versions(const project::Manifest& manifest, const std::vector<std::string>& specs,
                    const std::filesystem::path& build_root);

} // namespace opkit::probe
