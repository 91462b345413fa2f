#include "opkit/project/package_rules.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"

namespace opkit::project {

namespace {

Version
parse_config_version(const Node& node, const char* key, const std::string& name)
{
  std::string text = yaml::get_string(node, key, name);
  std::optional<Version> version = parse_version(text);
  if (!version) {
    fail(ExitCode::usage, "{}: {}: '{}' is not a version", name, key, text);
  }
  return *version;
}

} // namespace

const EasyRecRules&
easyrec_rules()
{
  static const EasyRecRules rules = [] {
    const char* name = "configs/packages/easyrec.yaml";
    Node root = yaml::load_embedded(name);
    EasyRecRules parsed;
    for (const Node& node : root["ops_dirs"]) {
      parsed.ops_dirs.push_back({yaml::get_string(node, "tf", name), yaml::get_string(node, "flavor", name),
                                 yaml::get_string(node, "dir", name), yaml::get_string(node, "why", name),
                                 yaml::get_bool_or(node, "default", name, false)});
    }
    parsed.other_why = yaml::get_string(root, "other_why", name);
    parsed.reserved_libraries = yaml::get_string_list(root, "reserved_libraries", name);
    parsed.third_party = yaml::get_string_list(root, "third_party", name);
    parsed.version_pattern = yaml::get_string(root, "version_pattern", name);
    for (const Node& node : root["protobuf"]) {
      parsed.protobuf.push_back({parse_config_version(node, "since", name), parse_config_version(node, "min", name)});
    }
    parsed.protoc_min = parse_config_version(root, "protoc_min", name);
    parsed.protoc_install = yaml::get_string(root, "protoc_install", name);
    for (const Node& node : root["releases"]) {
      parsed.releases.push_back(
        {parse_config_version(node, "since", name), yaml::get_bool_or(node, "components", name, false),
         yaml::get_bool_or(node, "raw_input", name, false), yaml::get_string(node, "route", name)});
    }
    if (parsed.releases.empty()) {
      fail(ExitCode::system, "{}: no releases", name);
    }
    return parsed;
  }();
  return rules;
}

std::optional<OpsDirChoice>
easyrec_ops_dir(const EasyRecRules& rules, const Version& tf, const std::string& flavor)
{
  bool known_flavor = flavor.empty();
  for (const EasyRecRules::OpsDir& rule : rules.ops_dirs) {
    known_flavor = known_flavor || rule.flavor == flavor;
  }
  if (!known_flavor) {
    fail(ExitCode::usage, "'{}': unknown EasyRec flavor (expected pai, stock or deeprec)", flavor);
  }
  bool has_rules = false;
  for (const EasyRecRules::OpsDir& rule : rules.ops_dirs) {
    std::optional<Version> prefix = parse_version(rule.tf);
    if (!prefix || !version_matches(*prefix, tf)) {
      continue;
    }
    has_rules = true;
    if (flavor.empty() ? rule.is_default : rule.flavor == flavor) {
      return OpsDirChoice{rule.dir, rule.flavor, rule.why};
    }
  }
  if (has_rules || (!flavor.empty() && flavor != "stock")) {
    return std::nullopt;
  }
  return OpsDirChoice{std::to_string(tf.parts.at(0)) + "." + std::to_string(tf.parts.size() > 1 ? tf.parts[1] : 0), "",
                      rules.other_why};
}

Version
easyrec_protobuf_min(const EasyRecRules& rules, const Version& tf)
{
  Version min = rules.protobuf.at(0).min;
  for (const EasyRecRules::ProtobufRow& row : rules.protobuf) {
    if (!(tf < row.since)) {
      min = row.min;
    }
  }
  return min;
}

const EasyRecRules::Release&
easyrec_release(const EasyRecRules& rules, const Version& release)
{
  const EasyRecRules::Release* found = &rules.releases.front();
  for (const EasyRecRules::Release& row : rules.releases) {
    if (!(release < row.since)) {
      found = &row;
    }
  }
  if (!found->components) {
    const EasyRecRules::Release* first = nullptr;
    for (const EasyRecRules::Release& row : rules.releases) {
      if (row.components && first == nullptr) {
        first = &row;
      }
    }
    fail(ExitCode::usage, "EasyRec {}: {}; a component backed by a custom op needs EasyRec {} or newer", release.str(),
         found->route, first != nullptr ? first->since.str() : std::string("?"));
  }
  return *found;
}

std::string
easyrec_checkout_version(const std::filesystem::path& dir, const std::string& what_else)
{
  std::filesystem::path file = dir / "easy_rec" / "version.py";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    fail(ExitCode::usage, "{}: not an EasyRec checkout (no easy_rec/version.py); {}", dir, what_else);
  }
  std::string text = fs::read_file(file);
  auto spaces = [&](size_t i) { return text.find_first_not_of(" \t", i); };
  for (size_t at = text.find("__version__"); at != std::string::npos; at = text.find("__version__", at + 1)) {
    size_t i = spaces(at + 11);
    if (i == std::string::npos || text[i] != '=') {
      continue;
    }
    i = spaces(i + 1);
    if (i == std::string::npos || (text[i] != '\'' && text[i] != '"')) {
      continue;
    }
    size_t end = text.find_first_of("'\"\n", i + 1);
    if (end != std::string::npos && text[end] == text[i]) {
      return text.substr(i + 1, end - i - 1);
    }
  }
  fail(ExitCode::usage, "{}: no __version__ = '...' found; {}", file, what_else);
}

} // namespace opkit::project
