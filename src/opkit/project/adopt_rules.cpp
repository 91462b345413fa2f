#include "opkit/project/adopt_rules.hpp"

#include "opkit/project/manifest.hpp"
#include "opkit/project/version.hpp"
#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"

#include <algorithm>

namespace opkit::project {

namespace {

const char* const k_dtypes_file = "configs/adopt/cpp_dtypes.yaml";
const char* const k_compat_file = "configs/adopt/compat.yaml";
const char* const k_build_files = "configs/adopt/build_files.yaml";
const char* const k_torch_types = "configs/adopt/torch_cpp_types.yaml";

void
require_dtype(const Node& node, const std::string& dtype)
{
  const std::vector<std::string>& known = known_dtypes();
  if (std::find(known.begin(), known.end(), dtype) == known.end()) {
    fail(ExitCode::system, "{}: unknown dtype '{}'", yaml::where(k_dtypes_file, node), dtype);
  }
}

void
load_dtypes(AdoptRules& rules)
{
  Node root = yaml::load(std::string(require_embedded(k_dtypes_file)), k_dtypes_file);
  for (const auto& entry : root["cpp_types"]) {
    std::string dtype = entry.first.scalar();
    require_dtype(entry.first, dtype);
    for (const std::string& spelling : yaml::get_string_list(root["cpp_types"], dtype.c_str(), k_dtypes_file)) {
      rules.cpp_types[spelling] = dtype;
    }
  }
  for (const auto& entry : root["type_shorthands"]) {
    std::string shorthand = entry.first.scalar();
    rules.type_shorthands[shorthand] = yaml::get_string_list(root["type_shorthands"], shorthand.c_str(), k_dtypes_file);
    for (const std::string& dtype : rules.type_shorthands[shorthand]) {
      require_dtype(entry.second, dtype);
    }
  }
  for (const auto& entry : root["tf_call"]) {
    rules.tf_call[entry.first.scalar()] = entry.second.scalar();
  }
  for (const auto& entry : root["tf_call_groups"]) {
    std::string group = entry.first.scalar();
    rules.tf_call_groups[group] = yaml::get_string_list(root["tf_call_groups"], group.c_str(), k_dtypes_file);
    for (const std::string& name : rules.tf_call_groups[group]) {
      if (rules.tf_call.count(name) == 0) {
        fail(ExitCode::system, "{}: group {} names unknown TF_CALL_{}", yaml::where(k_dtypes_file, entry.second), group,
             name);
      }
    }
  }
}

void
load_compat(AdoptRules& rules)
{
  Node root = yaml::load(std::string(require_embedded(k_compat_file)), k_compat_file);
  for (const Node& node : root["identifiers"]) {
    AdoptRules::IdentifierRule rule{
      yaml::get_string(node, "identifier", k_compat_file), yaml::get_string(node, "tensorflow", k_compat_file),
      yaml::get_string(node, "compat", k_compat_file), yaml::get_string_or(node, "why", k_compat_file, "")};
    if (!parse_version_range(rule.tensorflow)) {
      fail(ExitCode::system, "{}: invalid version range '{}'", yaml::where(k_compat_file, node), rule.tensorflow);
    }
    rules.identifiers.push_back(rule);
  }
  for (const auto& entry : root["shims"]) {
    rules.shims[entry.first.scalar()] = entry.second.scalar();
  }
  for (const AdoptRules::IdentifierRule& rule : rules.identifiers) {
    if (rules.shims.count(rule.compat) == 0) {
      fail(ExitCode::system, "{}: identifier {} names no shim '{}'", k_compat_file, rule.identifier, rule.compat);
    }
  }
  for (const Node& node : root["include_notes"]) {
    rules.include_notes.push_back(
      {yaml::get_string(node, "include", k_compat_file), yaml::get_string(node, "note", k_compat_file)});
  }
  rules.sdk_includes = yaml::get_string_list(root, "sdk_includes", k_compat_file);
  rules.gpu_macros = yaml::get_string_list(root, "gpu_macros", k_compat_file);
}

BuildFileRules
load_build_files()
{
  Node root = yaml::load(std::string(require_embedded(k_build_files)), k_build_files);
  BuildFileRules rules;
  int max_bytes = yaml::get_int(root, "max_bytes", k_build_files);
  if (max_bytes <= 0) {
    fail(ExitCode::system, "{}: max_bytes must be positive", yaml::where(k_build_files, root["max_bytes"]));
  }
  rules.max_bytes = static_cast<size_t>(max_bytes);
  for (auto [key, into] : {std::pair<const char*, size_t*>{"max_sources", &rules.max_sources},
                           std::pair<const char*, size_t*>{"max_values", &rules.max_values}}) {
    int value = yaml::get_int(root, key, k_build_files);
    if (value <= 0) {
      fail(ExitCode::system, "{}: {} must be positive", yaml::where(k_build_files, root[key]), key);
    }
    *into = static_cast<size_t>(value);
  }
  Node bazel = root["bazel"];
  rules.bazel_files = yaml::get_string_list(bazel, "files", k_build_files);
  for (const Node& node : bazel["shared_libraries"]) {
    rules.bazel_shared.push_back({yaml::get_string(node, "rule", k_build_files),
                                  yaml::get_string_or(node, "gpu_sources", k_build_files, ""),
                                  yaml::get_string_or(node, "requires", k_build_files, "")});
  }
  rules.bazel_static = yaml::get_string_list(bazel, "static_libraries", k_build_files);
  rules.bazel_gpu_conditions = yaml::get_string_list(bazel, "gpu_conditions", k_build_files);
  rules.setup_files = yaml::get_string_list(root["setup_py"], "files", k_build_files);
  rules.setup_extensions = yaml::get_string_list(root["setup_py"], "extensions", k_build_files);
  rules.setup_cuda_extensions = yaml::get_string_list(root["setup_py"], "cuda_extensions", k_build_files);
  rules.cmake_files = yaml::get_string_list(root["cmake"], "files", k_build_files);
  rules.make_files = yaml::get_string_list(root["makefile"], "files", k_build_files);
  rules.script_files = yaml::get_string_list(root["compile_scripts"], "files", k_build_files);
  rules.script_compilers = yaml::get_string_list(root["compile_scripts"], "compilers", k_build_files);
  rules.python_loaders = yaml::get_string_list(root, "python_loaders", k_build_files);
  return rules;
}

TorchCppTypes
load_torch_types()
{
  Node root = yaml::load(std::string(require_embedded(k_torch_types)), k_torch_types);
  TorchCppTypes types;
  for (const auto& entry : root["types"]) {
    std::string type = entry.first.scalar();
    for (const std::string& spelling : yaml::get_string_list(root["types"], type.c_str(), k_torch_types)) {
      if (!types.types.emplace(spelling, type).second) {
        fail(ExitCode::system, "{}: {} stands for two schema types", yaml::where(k_torch_types, entry.second),
             spelling);
      }
    }
  }
  types.optional = yaml::get_string_list(root["templates"], "optional", k_torch_types);
  types.list = yaml::get_string_list(root["templates"], "list", k_torch_types);
  types.tuple = yaml::get_string_list(root, "tuple", k_torch_types);
  return types;
}

bool
contains(const std::vector<std::string>& names, const std::string& name)
{
  return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

const BuildFileRules&
build_file_rules()
{
  static const BuildFileRules rules = load_build_files();
  return rules;
}

std::string
AdoptRules::dtype_of(const std::string& cpp_type) const
{
  std::string spelling = cpp_type.rfind("::", 0) == 0 ? cpp_type.substr(2) : cpp_type;
  auto found = cpp_types.find(spelling);
  return found == cpp_types.end() ? "" : found->second;
}

std::string
TorchCppTypes::schema_type(const std::string& cpp_type) const
{
  std::string spelling = cpp_type.rfind("::", 0) == 0 ? cpp_type.substr(2) : cpp_type;
  if (auto found = types.find(spelling); found != types.end()) {
    return found->second;
  }
  size_t open = spelling.find('<');
  if (open == std::string::npos || spelling.back() != '>') {
    return "";
  }
  std::string name = spelling.substr(0, open);
  std::string argument = spelling.substr(open + 1, spelling.size() - open - 2);
  int depth = 0;
  for (char c : argument) {
    depth += c == '<' ? 1 : c == '>' ? -1 : 0;
    if (depth == 0 && c == ',') {
      return ""; // one type argument only (no allocator, no tuple here)
    }
  }
  std::string inner = schema_type(argument);
  if (inner.empty()) {
    return "";
  }
  if (contains(optional, name) && inner.back() != '?') {
    return inner + "?";
  }
  if (contains(list, name) && inner.find('[') == std::string::npos) {
    return inner + "[]";
  }
  return "";
}

const TorchCppTypes&
torch_cpp_types()
{
  static const TorchCppTypes types = load_torch_types();
  return types;
}

const AdoptRules&
adopt_rules()
{
  static const AdoptRules rules = [] {
    AdoptRules parsed;
    load_dtypes(parsed);
    load_compat(parsed);
    return parsed;
  }();
  return rules;
}

} // namespace opkit::project
