#pragma once

// CLI11 is used only inside cli/. Each command file adds its subcommand to the
// app; its callback stores the command's exit code in `exit_code`.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

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
add_config_command(CLI::App& app, GlobalOptions& global, int& exit_code);

// Prints a check report as text (build and check share it).
void
print_check_report(const check::CheckReport& report, std::FILE* out);

// Splits "1.12,2.10.1" (and repeated --tf flags) into specs.
std::vector<std::string>
split_versions(const std::vector<std::string>& values);

} // namespace opkit::cli
