#include "opkit/project/runtime_policy.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::project {

namespace {

const char* k_dir = "configs/runtimes/";
const char* k_versions_file = "configs/runtimes/symbol-versions.yaml";

RuntimePolicy
policy_from_node(Node root, const std::string& name)
{
  yaml::expect_keys(root, {"name", "description", "search_paths", "libraries", "wheel_tags", "cpu"}, name);
  RuntimePolicy policy;
  policy.name = yaml::get_string(root, "name", name);
  policy.description = yaml::get_string(root, "description", name);
  policy.search_paths = yaml::get_string_list(root, "search_paths", name);
  for (const Node& node : root["libraries"]) {
    yaml::expect_keys(node, {"soname", "ceilings", "extra_versions", "optional_package"}, name);
    PolicyLibrary library;
    library.soname = yaml::get_string(node, "soname", name);
    for (const auto& entry : node["ceilings"]) {
      library.ceilings[entry.first.scalar()] = entry.second.scalar();
    }
    library.extra_versions = yaml::get_string_list(node, "extra_versions", name);
    library.optional_package = yaml::get_string_or(node, "optional_package", name, "");
    policy.libraries.push_back(library);
  }
  policy.wheel_tags = yaml::get_string_list(root, "wheel_tags", name);
  policy.cpu = yaml::get_string_or(root, "cpu", name, "");
  return policy;
}

} // namespace

RuntimePolicy
parse_runtime_policy(const std::string& text, const std::string& name)
{
  return policy_from_node(yaml::load(text, name), name);
}

std::vector<std::string>
runtime_policy_names()
{
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_under(k_dir)) {
    std::string base(file.path.substr(std::string_view(k_dir).size()));
    if (file.path != k_versions_file && ends_with(base, ".yaml")) {
      names.push_back(base.substr(0, base.size() - 5));
    }
  }
  return names;
}

RuntimePolicy
load_runtime_policy(const std::string& name)
{
  std::string path = std::string(k_dir) + name + ".yaml";
  if (!find_embedded(path) || path == k_versions_file) {
    fail(ExitCode::usage, "'{}': unknown runtime (known: host, {})", name, join(runtime_policy_names(), ", "));
  }
  return policy_from_node(yaml::load_embedded(path), path);
}

std::optional<std::string>
release_of_version(const std::string& version)
{
  size_t underscore = version.find('_');
  if (underscore == std::string::npos) {
    return std::nullopt;
  }
  std::string family = version.substr(0, underscore);
  std::string number = version.substr(underscore + 1);
  if (family == "GLIBC") {
    return "glibc " + number;
  }
  if (family == "GCC") {
    return "GCC " + number + " (libgcc_s)";
  }
  static const Node table = [] {
    return find_embedded(k_versions_file) ? yaml::load_embedded(k_versions_file) : Node();
  }();
  Node releases = table[family];
  if (releases.is_map() && releases[number].is_scalar()) {
    return releases[number].scalar();
  }
  return std::nullopt;
}

} // namespace opkit::project
