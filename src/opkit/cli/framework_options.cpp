#include "opkit/cli/framework_options.hpp"

#include "opkit/cli/commands.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::cli {

void
add_framework_versions(CLI::App* cmd, FrameworkVersions& versions, const std::string& tf_help, const std::string& verb,
                       const std::string& when_none)
{
  for (const std::string& name : project::FrameworkTable::names()) {
    project::FrameworkOptionFacts table = project::FrameworkTable::option_facts(name);
    std::vector<std::string>& values = versions.given[name]; // a map's node stays where it is
    if (name == "tensorflow") {
      offer_command(cmd->add_option("--" + table.short_name, values, tf_help), "sdk list --ids " + name);
      continue;
    }
    offer_command(cmd->add_option("--" + table.short_name, values,
                                  fmt::format("{} versions or SDK ids to {}, e.g. {} ({} projects; default: {})",
                                              table.display_name, verb, join(table.example_versions, ","),
                                              table.display_name, when_none)),
                  "sdk list --ids " + name);
  }
}

std::string
FrameworkVersions::chosen() const
{
  std::string framework;
  for (const auto& [name, values] : given) {
    if (values.empty()) {
      continue;
    }
    if (!framework.empty()) {
      const auto& a = project::FrameworkTable::get(framework);
      const auto& b = project::FrameworkTable::get(name);
      fail(ExitCode::usage, "--{} and --{}: a project builds for one framework; give one of them", a.short_name(),
           b.short_name());
    }
    framework = name;
  }
  return framework;
}

namespace {

bool
all_digits(const std::string& text)
{
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `--tf 1,12`: a comma typed for the dot of 1.12. Two bare numbers in a row,
// the second above every major the table has ranges for (TensorFlow 12 does
// not exist), are one version, not two: Error(usage) naming it.
void
refuse_decimal_comma(const std::vector<std::string>& values, const project::FrameworkTable& table)
{
  std::vector<std::string> examples = table.example_versions();
  std::optional<project::Version> newest = examples.empty() ? std::nullopt : project::parse_version(examples.back());
  if (!newest || newest->parts.empty()) {
    return;
  }
  for (const std::string& value : values) {
    std::vector<std::string> parts = split(value, ',');
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string major = trim(parts[i - 1]);
      std::string minor = trim(parts[i]);
      if (all_digits(major) && all_digits(minor) && minor.size() < 4 && std::stoi(minor) > newest->parts.front()) {
        throw Error(ExitCode::usage,
                    fmt::format("--{} '{}': {} is no {} major version; versions are separated by commas, so '{},{}' "
                                "is two of them",
                                table.short_name(), escape_clipped(value, 100), minor, table.display_name(), major,
                                minor),
                    fmt::format("did you mean --{} {}.{}?", table.short_name(), major, minor));
      }
    }
  }
}

} // namespace

std::vector<std::string>
FrameworkVersions::for_framework(const std::string& framework) const
{
  std::string other = chosen();
  if (!other.empty() && other != framework) {
    const auto& wanted = project::FrameworkTable::get(framework);
    const auto& named = project::FrameworkTable::get(other);
    throw Error(ExitCode::usage,
                fmt::format("--{}: this project's template is for {}; it builds no {} versions", named.short_name(),
                            wanted.display_name(), named.display_name()),
                fmt::format("give its versions with --{}", wanted.short_name()));
  }
  auto found = given.find(framework);
  if (found == given.end()) {
    return {};
  }
  const project::FrameworkTable& table = project::FrameworkTable::get(framework);
  refuse_decimal_comma(found->second, table);
  std::vector<std::string> specs = split_versions(found->second, table.short_name());
  std::vector<std::string> versions;
  std::vector<VersionClause> clauses;
  for (const std::string& spec : specs) {
    if (std::optional<VersionClause> clause = parse_version_clause(spec, table.short_name())) {
      clauses.push_back(*clause);
    } else {
      versions.push_back(spec);
    }
  }
  if (clauses.empty()) {
    return versions;
  }
  // A range (its clauses, all of them): every SDK of the store in it, oldest first.
  std::vector<sdk::Sdk> in_range;
  std::vector<std::string> imported;
  for (const sdk::Sdk& sdk : sdk::list_sdks()) {
    if (sdk.framework != framework) {
      continue;
    }
    imported.push_back(sdk.version.str());
    if (std::all_of(clauses.begin(), clauses.end(), [&sdk](const VersionClause& c) { return c.admits(sdk.version); })) {
      in_range.push_back(sdk);
    }
  }
  std::sort(in_range.begin(), in_range.end(), [](const sdk::Sdk& a, const sdk::Sdk& b) {
    return a.version < b.version || (a.version == b.version && a.id < b.id);
  });
  std::vector<std::string> range_text;
  for (const VersionClause& clause : clauses) {
    range_text.push_back(clause.text);
  }
  if (in_range.empty()) {
    throw Error(ExitCode::missing,
                fmt::format("--{} '{}': no imported {} SDK in the range (imported: {})", table.short_name(),
                            join(range_text, ","), table.display_name(),
                            imported.empty() ? "none" : join(imported, ", ")),
                fmt::format("fetch one: opkit sdk fetch {}==VERSION", framework));
  }
  for (const sdk::Sdk& sdk : in_range) {
    if (std::find(versions.begin(), versions.end(), sdk.id) == versions.end()) {
      versions.push_back(sdk.id);
    }
  }
  return versions;
}

namespace {

// The version without its release's trailing zeros: PEP 440's 2.16 is 2.16.0.
project::Version
without_trailing_zeros(project::Version v)
{
  while (v.parts.size() > 1 && v.parts.back() == 0) {
    v.parts.pop_back();
  }
  return v;
}

} // namespace

bool
VersionClause::admits(const project::Version& given) const
{
  project::Version v = without_trailing_zeros(given);
  project::Version bound = without_trailing_zeros(version);
  if (op == ">=") {
    return !(v < bound);
  }
  if (op == "<=") {
    return !(bound < v);
  }
  if (op == ">") {
    return bound < v;
  }
  if (op == "<") {
    return v < bound;
  }
  return !(v == bound); // "!="
}

std::optional<VersionClause>
parse_version_clause(const std::string& spec, const std::string& flag)
{
  for (const char* op : {">=", "<=", "!=", ">", "<"}) {
    if (!starts_with(spec, op)) {
      continue;
    }
    std::string rest = trim(spec.substr(std::string(op).size()));
    std::optional<project::Version> version = project::parse_version(rest);
    if (!version) {
      fail(ExitCode::usage, "--{} '{}': expected a version after {}, e.g. {}2.16", flag, escape_clipped(spec, 100), op,
           op);
    }
    return VersionClause{op, *version, spec};
  }
  return std::nullopt;
}

void
add_framework_version(CLI::App* cmd, FrameworkVersion& version, const std::string& tf_help, const std::string& what)
{
  std::vector<CLI::Option*> options;
  for (const std::string& name : project::FrameworkTable::names()) {
    project::FrameworkOptionFacts table = project::FrameworkTable::option_facts(name);
    std::string& value = version.given[name]; // a map's node stays where it is
    std::string help = name == "tensorflow" ? tf_help
                                            : fmt::format("The target's {} version (e.g. {}) or SDK id, {}",
                                                          table.display_name, join(table.example_versions, ", "), what);
    CLI::Option* option = cmd->add_option("--" + table.short_name, value, help);
    offer_command(option, "sdk list --ids " + name);
    for (CLI::Option* other : options) {
      option->excludes(other);
    }
    options.push_back(option);
  }
}

std::pair<std::string, std::string>
FrameworkVersion::chosen() const
{
  for (const auto& [name, value] : given) {
    if (!value.empty()) {
      return {name, value};
    }
  }
  return {};
}

} // namespace opkit::cli
