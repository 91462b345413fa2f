// CLI11's parse errors turned into opkit's one line, with a suggestion taken
// from the command's own subcommands and options.
#include "opkit/cli/commands.hpp"
#include "opkit/cli/help_format.hpp"
#include "opkit/util/suggest.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace opkit::cli {

namespace {

std::vector<std::string>
visible_commands(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) {
      names.push_back(sub->get_name());
    }
  }
  return names;
}

// The options a command itself declares, as typed: "-j", "--jobs".
std::vector<std::string>
own_options(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty() || !option->nonpositional()) {
      continue;
    }
    for (const std::string& name : option->get_snames()) {
      names.push_back("-" + name);
    }
    for (const std::string& name : option->get_lnames()) {
      names.push_back("--" + name);
    }
  }
  return names;
}

// Its options and its parents' (global flags work after the command).
std::vector<std::string>
visible_options(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const CLI::App* level = &app; level != nullptr; level = level->get_parent()) {
    std::vector<std::string> own = own_options(*level);
    names.insert(names.end(), own.begin(), own.end());
  }
  return names;
}

// The commands under `app` that declare the option `name`: "opkit build --jobs".
std::vector<std::string>
commands_with_option(const CLI::App& app, const std::string& name)
{
  std::vector<std::string> found;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) {
      continue;
    }
    std::vector<std::string> own = own_options(*sub);
    if (std::find(own.begin(), own.end(), name) != own.end()) {
      found.push_back(command_path(*sub) + " " + name);
    }
    std::vector<std::string> deeper = commands_with_option(*sub, name);
    found.insert(found.end(), deeper.begin(), deeper.end());
  }
  return found;
}

// `opkit --jobs 4 build`: an option of the command, given before its name.
std::string
no_such_option(const CLI::App& at, const std::string& name)
{
  std::vector<std::string> own = own_options(at);
  if (at.get_parent() != nullptr && std::find(own.begin(), own.end(), name) != own.end()) {
    return fmt::format("{}: no such option of {} ({} {} exists: put it after {})", name, command_path(*at.get_parent()),
                       command_path(at), name, at.get_name());
  }
  if (std::optional<std::string> guess = nearest(name, visible_options(at))) {
    return fmt::format("{}: no such option of {} (did you mean {}?)", name, command_path(at), *guess);
  }
  std::vector<std::string> owners = commands_with_option(at, name);
  if (!owners.empty()) {
    if (owners.size() > 3) { // --tf is an option of most commands
      owners.resize(3);
      owners.emplace_back("...");
    }
    return fmt::format("{}: no such option of {} ({} {})", name, command_path(at), join(owners, ", "),
                       owners.size() == 1 ? "exists" : "exist");
  }
  return fmt::format("{}: no such option of {} (see {} --help)", name, command_path(at), command_path(at));
}

// The innermost command the parse reached: `opkit sdk add ...` gives add.
const CLI::App&
innermost(const CLI::App& app)
{
  const CLI::App* level = &app;
  while (!level->get_subcommands().empty()) {
    level = level->get_subcommands().back();
  }
  return *level;
}

// The option or positional of `app` (or a parent) CLI11 names as `name`: "--jobs", "source".
const CLI::Option*
find_option(const CLI::App& app, const std::string& name)
{
  for (const CLI::App* level = &app; level != nullptr; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      if (option->get_name() == name || option->check_name(name)) {
        return option;
      }
    }
  }
  return nullptr;
}

// CLI11's parse messages in opkit's words: "source is required" -> "missing
// SOURCE", "--jobs: 1 required INT:POSITIVE missing" -> "--jobs needs a value
// (N)", "--cache excludes --no-cache" -> "--cache and --no-cache cannot go together".
std::string
in_opkit_words(const CLI::App& at, const std::string& what)
{
  std::smatch match;
  static const std::regex k_required("^(\\S+) is required$");
  static const std::regex k_missing_value("^(\\S+): [0-9]+ required \\S+ missing$");
  static const std::regex k_excludes("^(\\S+) excludes (\\S+)$");
  static const std::regex k_requires("^(\\S+) requires (\\S+)$");
  static const std::regex k_not_in_set("^(\\S+): (.*) not in \\{(.*)\\}$");
  static const std::regex k_positive("^(\\S+): Value (.*) not in range 0\\.0+ to 17976931348623.*$");
  static const std::regex k_conversion("^Could not convert: (\\S+) = (.*)$");
  if (std::regex_match(what, match, k_required)) {
    const CLI::Option* option = find_option(at, match[1]);
    return option != nullptr && !option->nonpositional() ? "missing " + value_name(*option)
                                                         : "missing " + match[1].str();
  }
  if (std::regex_match(what, match, k_missing_value)) {
    const CLI::Option* option = find_option(at, match[1]);
    return match[1].str() + " needs a value" + (option != nullptr ? " (" + value_name(*option) + ")" : "");
  }
  if (std::regex_match(what, match, k_excludes)) {
    return match[1].str() + " and " + match[2].str() + " cannot go together: give one of them";
  }
  if (std::regex_match(what, match, k_requires)) {
    return match[1].str() + " needs " + match[2].str() + " too";
  }
  if (std::regex_match(what, match, k_not_in_set)) {
    std::string values = match[3].str();
    for (char& c : values) {
      c = c == ',' ? '|' : c;
    }
    return fmt::format("{}: {} is not one of {}", match[1].str(), match[2].str(), values);
  }
  if (std::regex_match(what, match, k_positive)) { // CLI::PositiveNumber's range, spelled out to 300 digits
    return fmt::format("{}: {} is not a positive number", match[1].str(), match[2].str());
  }
  if (std::regex_match(what, match, k_conversion)) {
    return fmt::format("{}: {} is not a number", match[1].str(), match[2].str());
  }
  return what;
}

} // namespace

std::string
command_path(const CLI::App& app)
{
  std::string path = app.get_name();
  for (const CLI::App* level = app.get_parent(); level != nullptr; level = level->get_parent()) {
    path.insert(0, level->get_name() + " ");
  }
  return path;
}

std::string
no_such_command(const CLI::App& parent, const std::string& word)
{
  std::string prefix = command_path(parent) == "opkit" ? "" : command_path(parent).substr(6) + " ";
  std::vector<std::string> commands = visible_commands(parent);
  std::optional<std::string> guess = nearest(word, commands);
  return fmt::format("{}{}: no such command ({})", prefix, word,
                     guess ? fmt::format("did you mean {}{}?", prefix, *guess)
                           : fmt::format("{} commands: {}", command_path(parent), join(commands, ", ")));
}

std::string
usage_error_line(const CLI::App& app, const CLI::ParseError& error)
{
  const CLI::App& at = innermost(app);
  std::vector<std::string> extra = app.remaining(true);
  if (!extra.empty()) {
    const std::string& word = extra.front();
    if (starts_with(word, "-") && word.size() > 1) {
      return no_such_option(at, word.substr(0, word.find('=')));
    }
    if (!visible_commands(at).empty() && at.get_subcommands().empty()) {
      return no_such_command(at, word);
    }
    return fmt::format("{}: unexpected argument '{}' (see {} --help)", command_path(at), word, command_path(at));
  }
  if (at.get_require_subcommand_min() > 0 && at.get_subcommands().empty()) {
    return fmt::format("{}: missing the command, one of: {} (see {} --help)", command_path(at),
                       join(visible_commands(at), ", "), command_path(at));
  }
  std::string what = error.what();
  for (char& c : what) {
    c = c == '\n' ? ' ' : c;
  }
  return fmt::format("{}: {} (see {} --help)", command_path(at), in_opkit_words(at, trim(what)), command_path(at));
}

} // namespace opkit::cli
