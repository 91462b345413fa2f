#pragma once

// CLI11 is used only inside cli/. Each command file adds its subcommand to the
// app; its callback stores the command's exit code in `exit_code`.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace opkit::check {
struct CheckReport;
}

namespace opkit::cli {

struct GlobalOptions
{
  bool json = false; // --json on commands that support it
};

void
add_sdk_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_new_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_init_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_build_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_test_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_check_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_profile_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_package_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_publish_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_clean_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_help_command(CLI::App& app, GlobalOptions& global, int& exit_code);
void
add_completion_command(CLI::App& app, GlobalOptions& global, int& exit_code);

// The values an option (or positional) takes from a fixed set, offered by the
// shell completions (command_tree.cpp); computed only when a script is made.
void
offer_values(CLI::Option* option, std::function<std::vector<std::string>()> values);

// The values an option (or positional) takes from what is there when the shell
// completes it, printed by opkit itself, a line each: `opkit_args` are its
// arguments ("sdk list --ids tensorflow"), as git and cargo call themselves.
void
offer_command(CLI::Option* option, const std::string& opkit_args);

// The app as plain data, for the help, man page and completion renderers.
struct CommandInfo;
CommandInfo
describe_app(const CLI::App& app);

// "opkit sdk add": the command and its parents.
std::string
command_path(const CLI::App& app);

// A CLI11 parse error as opkit's one error line (without "opkit: error: "):
// an unknown command or option with the nearest one ("did you mean build?"),
// a missing command with the list of commands (usage_errors.cpp).
std::string
usage_error_line(const CLI::App& app, const CLI::ParseError& error);

// "sdk lst: no such command (did you mean sdk list?)".
std::string
no_such_command(const CLI::App& parent, const std::string& word);

void
add_config_command(CLI::App& app, GlobalOptions& global, int& exit_code);

// Prints a check report as text (build and check share it).
void
print_check_report(const check::CheckReport& report, std::FILE* out);

// The runtimes --runtime takes: host and the policies in configs/runtimes.
std::vector<std::string>
runtime_names();

// The CPU baselines' names (configs/cpu/baselines.yaml), for --cpu's completion.
std::vector<std::string>
cpu_baseline_names();

// Splits "1.12,2.10.1" (and repeated --tf flags) into specs; `flag` ("tf",
// "torch") names the option in errors.
std::vector<std::string>
split_versions(const std::vector<std::string>& values, const std::string& flag = "tf");

} // namespace opkit::cli
