#include "opkit/project/settings_file.hpp"
#include "opkit/util/suggest.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace opkit::project {

namespace {

constexpr std::string_view k_family_suffix = "_X_Y";

const std::vector<std::string> k_types = {"string", "path", "list", "choice", "number"};

// "3_6" in python_3_6: digits, '_', digits.
bool
is_version_suffix(std::string_view text)
{
  size_t underscore = text.find('_');
  auto digits = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), is_ascii_digit);
  };
  return underscore != std::string_view::npos && digits(text.substr(0, underscore))
         && digits(text.substr(underscore + 1));
}

SettingSpec
parse_spec(const Node& node, const std::string& name)
{
  yaml::expect_keys(
    node, {"key", "env", "type", "choices", "max", "default", "unset", "flag", "description", "project"}, name);
  SettingSpec spec;
  spec.key = yaml::get_string(node, "key", name);
  spec.env = yaml::get_string_list(node, "env", name);
  spec.type = yaml::get_string(node, "type", name);
  if (std::find(k_types.begin(), k_types.end(), spec.type) == k_types.end()) {
    fail(ExitCode::system, "{}: setting {}: unknown type '{}'", name, spec.key, spec.type);
  }
  spec.choices = yaml::get_string_list(node, "choices", name);
  std::string max = yaml::get_string_or(node, "max", name, "");
  if (!max.empty() && !parse_positive_number(max, spec.max)) {
    fail(ExitCode::system, "{}: setting {}: max '{}' is not a positive number", name, spec.key, max);
  }
  spec.defaults = yaml::get_string_list(node, "default", name);
  spec.unset = yaml::get_string_or(node, "unset", name, "");
  spec.flag = yaml::get_string_or(node, "flag", name, "");
  spec.description = yaml::get_string(node, "description", name);
  spec.project = yaml::get_bool_or(node, "project", name, false);
  return spec;
}

// A value as text: a scalar, or (for a list) a sequence of scalars joined by spaces.
std::string
value_text(const SettingSpec& spec, const Node& node, const std::string& label, const std::string& name)
{
  if (node.is_scalar()) {
    return node.scalar();
  }
  if (node.is_sequence() && spec.type == "list") {
    std::vector<std::string> items;
    for (const Node& item : node) {
      if (!item.is_scalar()) {
        fail(ExitCode::usage, "{}: {}: each item must be a single value", yaml::where(name, item), label);
      }
      items.push_back(item.scalar());
    }
    return join(items, " ");
  }
  if (node.is_null()) {
    fail(ExitCode::usage, "{}: {} has no value", yaml::where(name, node), label);
  }
  fail(ExitCode::usage, "{}: {} must be {}", yaml::where(name, node), label,
       spec.type == "list" ? "a list or a single value" : "a single value");
}

SettingEntry
parse_entry(const Node& key_node, const Node& value, const std::string& label_prefix, const std::string& name,
            bool project_only)
{
  std::string key = key_node.scalar();
  const SettingSpec* spec = find_setting_spec(key);
  if (spec == nullptr) {
    fail_unknown_setting(yaml::where(name, key_node), key);
  }
  if (project_only && !spec->project) {
    fail(ExitCode::usage,
         "{}: '{}' is a setting of this machine, not of a project (set it in the user config file or ${})",
         yaml::where(name, key_node), key, spec->env.empty() ? "" : spec->env.front());
  }
  std::string label = label_prefix + key;
  SettingEntry entry{key, value_text(*spec, value, label, name), name, key_node.mark().line + 1,
                     key_node.mark().column + 1};
  if (std::string problem = setting_value_problem(*spec, entry.value); !problem.empty()) {
    fail(ExitCode::usage, "{}: {} {}", yaml::where(name, value), label, problem);
  }
  return entry;
}

} // namespace

bool
SettingSpec::family() const
{
  return ends_with(key, k_family_suffix);
}

std::string
SettingEntry::where() const
{
  return line > 0 ? fmt::format("{}:{}:{}", file, line, column) : file;
}

const std::vector<SettingSpec>&
setting_specs()
{
  static const std::vector<SettingSpec> specs = [] {
    const char* name = "configs/settings.yaml";
    std::vector<SettingSpec> parsed;
    for (const Node& node : yaml::load_embedded(name)["settings"]) {
      parsed.push_back(parse_spec(node, name));
    }
    return parsed;
  }();
  return specs;
}

const SettingSpec*
find_setting_spec(const std::string& key)
{
  for (const SettingSpec& spec : setting_specs()) {
    if (spec.key == key) {
      return &spec;
    }
    std::string prefix = spec.key.substr(0, spec.key.size() - k_family_suffix.size() + 1); // "python_"
    if (spec.family() && starts_with(key, prefix) && is_version_suffix(std::string_view(key).substr(prefix.size()))) {
      return &spec;
    }
  }
  return nullptr;
}

void
fail_unknown_setting(const std::string& subject, const std::string& key)
{
  std::string best;
  size_t best_distance = std::string::npos;
  std::vector<std::string> keys;
  for (const SettingSpec& spec : setting_specs()) {
    keys.push_back(spec.key);
    if (size_t d = edit_distance(key, spec.key); d < best_distance) {
      best = spec.key;
      best_distance = d;
    }
  }
  if (best_distance > std::max<size_t>(2, key.size() / 2)) {
    best.clear(); // not a near miss
  }
  std::string hint =
    best.empty() ? fmt::format("known settings: {}", join(keys, ", ")) : fmt::format("did you mean '{}'?", best);
  fail(ExitCode::usage, "{}: unknown setting '{}' ({})", subject, key, hint);
}

std::string
setting_value_problem(const SettingSpec& spec, const std::string& value)
{
  if (spec.type == "number") {
    double number = 0;
    if (!parse_positive_number(value, number)) {
      return fmt::format("must be a positive number, got '{}'", escape_clipped(value, 60));
    }
    return spec.max <= 0 || number <= spec.max
             ? ""
             : fmt::format("must be at most {}, got '{}'", spec.max, escape_clipped(value, 60));
  }
  if (spec.type != "choice" || std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end()) {
    return "";
  }
  std::vector<std::string> head(spec.choices.begin(), spec.choices.end() - 1);
  return fmt::format("must be {} or {}, got '{}'", join(head, ", "), spec.choices.back(), value);
}

std::vector<SettingEntry>
parse_settings_file(const std::string& text, const std::string& name)
{
  Node doc = yaml::load(text, name);
  std::vector<SettingEntry> entries;
  if (doc.is_null() || !doc.is_defined()) {
    return entries; // an empty file
  }
  if (!doc.is_map()) {
    fail(ExitCode::usage, "{}: expected a mapping of settings (key: value)", yaml::where(name, doc));
  }
  for (const auto& item : doc) {
    entries.push_back(parse_entry(item.first, item.second, "", name, false));
  }
  return entries;
}

std::vector<SettingEntry>
parse_project_settings(const Node& doc, const std::string& name)
{
  std::vector<SettingEntry> entries;
  if (!doc.is_map()) {
    return entries;
  }
  if (Node section = doc["settings"]; section.is_defined() && !section.is_null()) {
    if (!section.is_map()) {
      fail(ExitCode::usage, "{}: settings: expected a mapping (key: value)", yaml::where(name, section));
    }
    for (const auto& item : section) {
      entries.push_back(parse_entry(item.first, item.second, "settings.", name, true));
    }
  }
  if (Node build = doc["build"]; build.is_defined() && build.is_map()) {
    for (const auto& item : build) {
      std::string key = item.first.scalar();
      if (key != "cache" && key != "cache_remote" && key != "distcc_hosts") {
        continue;
      }
      auto same = std::find_if(entries.begin(), entries.end(), [&](const SettingEntry& e) { return e.key == key; });
      if (same != entries.end()) {
        fail(ExitCode::usage, "{}: build.{} is also set as settings.{} at line {}: keep one",
             yaml::where(name, item.first), key, key, same->line);
      }
      entries.push_back(parse_entry(item.first, item.second, "build.", name, true));
    }
  }
  return entries;
}

std::vector<SettingEntry>
read_project_settings(const std::string& text, const std::string& name)
{
  return parse_project_settings(yaml::load(text, name), name);
}

std::string
set_setting_in_text(const std::string& text, const std::string& name, const std::string& key, const std::string& value)
{
  const SettingSpec* spec = find_setting_spec(key);
  if (spec == nullptr || (key == spec->key && spec->family())) {
    fail_unknown_setting("opkit config set", key);
  }
  parse_settings_file(text, name); // the file as it is must be good
  std::string escaped;
  for (char c : value) {
    escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  std::string line = fmt::format("{}: \"{}\"", key, escaped);
  std::vector<std::string> lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) {
    lines.pop_back();
  }
  std::optional<size_t> first;
  Node doc = yaml::load(text, name);
  if (doc.is_map()) {
    for (const auto& item : doc) {
      if (item.first.scalar() == key) {
        first = item.first.mark().line;
      }
    }
  }
  if (first) {
    // The key's lines: its own and the indented (or blank, or comment) ones under it.
    size_t end = *first + 1;
    while (end < lines.size() && (lines[end].empty() || lines[end][0] == ' ' || lines[end][0] == '\t')) {
      ++end;
    }
    while (end > *first + 1 && trim(lines[end - 1]).empty()) {
      --end; // blank lines before the next key stay
    }
    lines.erase(lines.begin() + static_cast<long>(*first), lines.begin() + static_cast<long>(end));
    lines.insert(lines.begin() + static_cast<long>(*first), line);
  } else {
    lines.push_back(line);
  }
  std::string result = join(lines, "\n") + "\n";
  parse_settings_file(result, name); // the value checked as the file will hold it
  return result;
}

} // namespace opkit::project
