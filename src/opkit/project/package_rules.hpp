#pragma once

#include "opkit/project/version.hpp"

#include <string>
#include <vector>

namespace opkit::project {

// configs/packages/easyrec.yaml: where EasyRec looks for op libraries.
struct EasyRecRules
{
  struct OpsDir
  {
    std::string tf;     // "1.12": matches 1.12.*
    std::string flavor; // "" (stock), "pai", "deeprec"
    std::string dir;
  };
  std::vector<OpsDir> ops_dirs;
  std::vector<std::string> reserved_libraries;
  std::vector<std::string> third_party;
};

// The embedded rules.
const EasyRecRules&
easyrec_rules();

// easy_rec/python/ops/<dir> for a TF version and flavor: the first matching
// rule, else major.minor. An unknown flavor is Error(usage).
std::string
easyrec_ops_dir(const EasyRecRules& rules, const Version& tf, const std::string& flavor);

} // namespace opkit::project
