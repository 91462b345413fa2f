#include "opkit/cli/command_tree.hpp"

#include "opkit/cli/commands.hpp"
#include "opkit/cli/help_format.hpp"
#include "opkit/util/strings.hpp"

#include <map>

namespace opkit::cli {

namespace {

std::map<const CLI::Option*, std::function<std::vector<std::string>()>>&
offered_values()
{
  static std::map<const CLI::Option*, std::function<std::vector<std::string>()>> values;
  return values;
}

std::map<const CLI::Option*, std::string>&
offered_commands()
{
  static std::map<const CLI::Option*, std::string> commands;
  return commands;
}

OptionInfo
describe_option(const CLI::Option& option)
{
  OptionInfo info;
  if (option.nonpositional()) {
    for (const std::string& name : option.get_snames()) {
      info.names.push_back("-" + name);
    }
    for (const std::string& name : option.get_lnames()) {
      info.names.push_back("--" + name);
    }
  } else {
    info.names.push_back(option.get_name(true));
  }
  info.value_name = value_name(option);
  info.description = option.get_description();
  info.repeatable = option.get_items_expected_max() > 1;
  auto command = offered_commands().find(&option);
  if (command != offered_commands().end()) {
    info.values_command = command->second;
  }
  auto found = offered_values().find(&option);
  if (found != offered_values().end()) {
    info.values = found->second();
  }
  // A CLI::IsMember check shows its set in the type: "INT:{0,1}".
  std::string type = option.get_type_name();
  size_t set = type.find(":{");
  if (set != std::string::npos && type.back() == '}' && info.values.empty()) {
    info.values = split(type.substr(set + 2, type.size() - set - 3), ',');
  }
  return info;
}

CommandInfo
describe(const CLI::App& app, const std::string& parent_path)
{
  CommandInfo info;
  info.name = app.get_name();
  info.path = parent_path.empty() ? app.get_name() : parent_path + " " + app.get_name();
  info.description = app.get_description();
  info.needs_command = app.get_require_subcommand_min() > 0;
  info.examples = examples(info.path);
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) {
      continue; // hidden
    }
    (option->nonpositional() ? info.options : info.positionals).push_back(describe_option(*option));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) {
      info.commands.push_back(describe(*sub, info.path));
    }
  }
  return info;
}

} // namespace

void
offer_values(CLI::Option* option, std::function<std::vector<std::string>()> values)
{
  offered_values()[option] = std::move(values);
}

void
offer_command(CLI::Option* option, const std::string& opkit_args)
{
  offered_commands()[option] = opkit_args;
}

CommandInfo
describe_app(const CLI::App& app)
{
  return describe(app, "");
}

const CommandInfo*
CommandInfo::find(const std::string& wanted) const
{
  for (const CommandInfo& command : commands) {
    if (command.name == wanted) {
      return &command;
    }
  }
  return nullptr;
}

std::vector<std::string>
CommandInfo::option_names() const
{
  std::vector<std::string> names;
  for (const OptionInfo& option : options) {
    names.insert(names.end(), option.names.begin(), option.names.end());
  }
  return names;
}

std::vector<std::string>
CommandInfo::command_names() const
{
  std::vector<std::string> names;
  for (const CommandInfo& command : commands) {
    names.push_back(command.name);
  }
  return names;
}

} // namespace opkit::cli
