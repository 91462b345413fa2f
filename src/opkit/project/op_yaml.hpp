#pragma once

// Parsing an op's description (opkit.yaml's `op:` and each library's `ops:`).
#include "opkit/project/manifest.hpp"
#include "opkit/project/yaml_util.hpp"

#include <string>

namespace opkit::project {

// One op: name (TensorFlow's grammar), inputs, outputs, attrs, kernels and test
// vectors. Every problem is Error(usage) "name:line:col: cause".
OpSpec
parse_op(const YAML::Node& node, const std::string& name);

} // namespace opkit::project
