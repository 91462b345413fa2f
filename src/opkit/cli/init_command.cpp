#include "opkit/adopt/adopt.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

void
add_init_command(CLI::App& app, GlobalOptions& /*global*/, int& exit_code)
{
  static std::string dir = ".";
  static adopt::AdoptOptions options;
  static FrameworkVersions versions;
  static bool dry_run = false;
  CLI::App* cmd = app.add_subcommand("init", "Write opkit.yaml for an existing op source tree (never overwrites one)");
  cmd->add_option("dir", dir, "The source tree (default: the current folder, or -C DIR)");
  cmd->add_option("--name", options.name, "The project's name (default: the folder's, in snake_case)");
  add_framework_versions(cmd, versions, "The TensorFlow versions to target, e.g. 1.12,2.10.1 (default: none written)",
                         "target", "none written");
  CLI::Option* folder = cmd->add_flag("--lib-per-folder", options.per_folder,
                                      "One library per folder of op sources, whatever the build files say");
  cmd->add_option("--single-library", options.single_library, "One library of every op source, named NAME")
    ->option_text("NAME")
    ->excludes(folder);
  cmd->add_flag("--ops", options.write_ops,
                "Also write each op's interface (ops:) as a contract; without it, opkit test's opkit.lock records it");
  cmd->add_flag("--dry-run", dry_run, "Print opkit.yaml to stdout (the findings to stderr) instead of writing it");
  cmd->callback([&exit_code] {
    options.versions_framework = versions.chosen();
    options.target_versions = options.versions_framework.empty() ? std::vector<std::string>{}
                                                                 : versions.for_framework(options.versions_framework);
    adopt::InitResult result = adopt::init_project(dir, options, dry_run);
    std::FILE* report = dry_run ? stderr : stdout;
    // The findings quote the tree's sources: printed escaped, one line each.
    for (const std::string& line : result.adoption.report) {
      fmt::print(report, "{}\n", escape_text(line));
    }
    if (dry_run) {
      std::fflush(stderr);
      fmt::print("{}", result.text);
    } else {
      size_t count = result.adoption.libraries.size();
      std::string flag = project::FrameworkTable::get(result.adoption.framework).short_name();
      fmt::print("wrote {} ({} librar{}); next: opkit build{}\n", result.manifest, count, count == 1 ? "y" : "ies",
                 options.target_versions.empty() ? " --" + flag + " VERSIONS" : "");
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
