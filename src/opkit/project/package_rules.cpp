#include "opkit/project/package_rules.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"

namespace opkit::project {

const EasyRecRules&
easyrec_rules()
{
  static const EasyRecRules rules = [] {
    const char* name = "configs/packages/easyrec.yaml";
    YAML::Node root = yaml::load_embedded(name);
    EasyRecRules parsed;
    for (const YAML::Node& node : root["ops_dirs"]) {
      parsed.ops_dirs.push_back({yaml::get_string(node, "tf", name), yaml::get_string_or(node, "flavor", name, ""),
                                 yaml::get_string(node, "dir", name)});
    }
    parsed.reserved_libraries = yaml::get_string_list(root, "reserved_libraries", name);
    parsed.third_party = yaml::get_string_list(root, "third_party", name);
    return parsed;
  }();
  return rules;
}

std::string
easyrec_ops_dir(const EasyRecRules& rules, const Version& tf, const std::string& flavor)
{
  bool known_flavor = flavor.empty();
  for (const EasyRecRules::OpsDir& rule : rules.ops_dirs) {
    known_flavor = known_flavor || rule.flavor == flavor;
  }
  if (!known_flavor) {
    fail(ExitCode::usage, "'{}': unknown EasyRec flavor (expected pai or deeprec)", flavor);
  }
  for (const EasyRecRules::OpsDir& rule : rules.ops_dirs) {
    std::optional<Version> prefix = parse_version(rule.tf);
    if (prefix && version_matches(*prefix, tf) && rule.flavor == flavor) {
      return rule.dir;
    }
  }
  if (!flavor.empty()) {
    fail(ExitCode::usage, "flavor '{}' does not apply to TensorFlow {}", flavor, tf.str());
  }
  return std::to_string(tf.parts.at(0)) + "." + std::to_string(tf.parts.size() > 1 ? tf.parts[1] : 0);
}

} // namespace opkit::project
