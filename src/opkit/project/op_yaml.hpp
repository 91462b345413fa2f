#pragma once

// Parsing an op's description (opkit.yaml's `op:` and each library's `ops:`).
#include "opkit/project/manifest.hpp"
#include "opkit/project/yaml_util.hpp"

#include <string>

namespace opkit::project {

// One op of `framework`: for TensorFlow its name, inputs, outputs, attrs
// (REGISTER_OP's grammar), kernels and test vectors; for torch its schema,
// kernels (dispatch keys) and test vectors. Every problem is Error(usage)
// "name:line:col: cause".
OpSpec
parse_op(const Node& node, const std::string& name, const std::string& framework = "tensorflow");

} // namespace opkit::project
