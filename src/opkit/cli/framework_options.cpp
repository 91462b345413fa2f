#include "opkit/cli/framework_options.hpp"

#include "opkit/cli/commands.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

namespace opkit::cli {

void
add_framework_versions(CLI::App* cmd, FrameworkVersions& versions, const std::string& tf_help, const std::string& verb,
                       const std::string& when_none)
{
  for (const std::string& name : project::FrameworkTable::names()) {
    const project::FrameworkTable& table = project::FrameworkTable::get(name);
    std::vector<std::string>& values = versions.given[name]; // a map's node stays where it is
    if (name == "tensorflow") {
      cmd->add_option("--" + table.short_name(), values, tf_help);
      continue;
    }
    cmd->add_option("--" + table.short_name(), values,
                    fmt::format("{} versions or SDK ids to {}, e.g. {} ({} projects; default: {})",
                                table.display_name(), verb, join(table.example_versions(), ","), table.display_name(),
                                when_none));
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
  return found == given.end() ? std::vector<std::string>{}
                              : split_versions(found->second, project::FrameworkTable::get(framework).short_name());
}

void
add_framework_version(CLI::App* cmd, FrameworkVersion& version, const std::string& tf_help, const std::string& what)
{
  std::vector<CLI::Option*> options;
  for (const std::string& name : project::FrameworkTable::names()) {
    const project::FrameworkTable& table = project::FrameworkTable::get(name);
    std::string& value = version.given[name]; // a map's node stays where it is
    std::string help = name == "tensorflow"
                         ? tf_help
                         : fmt::format("The target's {} version (e.g. {}) or SDK id, {}", table.display_name(),
                                       join(table.example_versions(), ", "), what);
    CLI::Option* option = cmd->add_option("--" + table.short_name(), value, help);
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
