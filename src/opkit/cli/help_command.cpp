// `opkit help [COMMAND [SUBCOMMAND]]`: a command's --help, and the man page
// (`opkit help --man`, hidden: the build renders opkit.1 with it).
#include "opkit/cli/command_tree.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/util/error.hpp"

#include <fmt/format.h>

namespace opkit::cli {

void
add_help_command(CLI::App& app, GlobalOptions& /*global*/, int& exit_code)
{
  static std::vector<std::string> words;
  static bool man = false;
  CLI::App* cmd = app.add_subcommand("help", "Show a command's help: opkit help [COMMAND [SUBCOMMAND]]");
  CLI::Option* command = cmd->add_option("command", words, "The command (and subcommand) to describe");
  offer_values(command, [&app] {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      names.push_back(sub->get_name());
    }
    return names;
  });
  cmd->add_flag("--man", man, "Print the man page (roff) made from every command's help")->group("");
  cmd->callback([&app, &exit_code] {
    if (man) {
      fmt::print("{}", man_page(describe_app(app), OPKIT_VERSION));
      exit_code = 0;
      return;
    }
    const CLI::App* target = &app;
    for (const std::string& word : words) {
      const CLI::App* next = nullptr;
      for (const CLI::App* sub : target->get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name() == word && !sub->get_group().empty()) {
          next = sub;
        }
      }
      if (next == nullptr) {
        throw Error(ExitCode::usage, no_such_command(*target, word));
      }
      target = next;
    }
    // What `opkit CMD --help` prints (App::help would follow the parsed `help` itself).
    fmt::print("{}", target->get_formatter()->make_help(target, command_path(*target), CLI::AppFormatMode::Normal));
    exit_code = 0;
  });
}

void
add_completion_command(CLI::App& app, GlobalOptions& /*global*/, int& exit_code)
{
  static std::string shell;
  static const std::vector<std::string> k_shells = {"bash", "zsh", "fish"};
  CLI::App* cmd = app.add_subcommand("completion", "Print the shell completion script: opkit completion bash|zsh|fish");
  CLI::Option* option = cmd->add_option("shell", shell, "bash, zsh or fish")->required();
  offer_values(option, [] { return k_shells; });
  cmd->callback([&app, &exit_code] {
    CommandInfo tree = describe_app(app);
    if (shell == "bash") {
      fmt::print("{}", bash_completion(tree));
    } else if (shell == "zsh") {
      fmt::print("{}", zsh_completion(tree));
    } else if (shell == "fish") {
      fmt::print("{}", fish_completion(tree));
    } else {
      fail(ExitCode::usage, "completion: {}: no such shell (one of: bash, zsh, fish)", shell);
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
