// `opkit clean [--all]`: the project's build folder, and with --all what opkit
// keeps for the project elsewhere (builder/clean.hpp).
#include "opkit/builder/clean.hpp"
#include "opkit/builder/console.hpp"
#include "opkit/cli/autobuild.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/progress.hpp"

#include <fmt/format.h>

namespace opkit::cli {

void
add_clean_command(CLI::App& app, GlobalOptions& /*global*/, int& exit_code)
{
  static bool all = false;
  static bool no_wait = false;
  static std::string build_dir;
  CLI::App* cmd = app.add_subcommand("clean", "Remove the project's build folder (waits for a build running in it)");
  cmd->add_flag("--all", all,
                "Also remove what opkit keeps for this project elsewhere: its libraries' CPU findings in "
                "$OPKIT_HOME/cache/cpu, those of libraries removed since included (never the SDK store or dist/)");
  cmd->add_option("--build-dir", build_dir, "Build folder, inside the project (default: <project>/build)");
  cmd->add_flag("--no-wait", no_wait, k_no_wait_help);
  cmd->callback([&exit_code] {
    std::optional<std::filesystem::path> root = project::find_project_root(".");
    if (!root) {
      project::load_manifest("."); // its error: no opkit.yaml here or above
    }
    builder::CleanReport report = builder::clean_build_folder(*root, build_dir, all, !no_wait);
    std::string shown = builder::shown_path(report.build_root) + "/";
    if (report.existed) {
      fmt::print("removed {} ({})\n", shown, progress::format_mb(static_cast<double>(report.bytes)));
    } else {
      fmt::print("nothing to remove: no {}\n", shown);
    }
    if (all) {
      fmt::print("removed {} kept CPU finding{} from {}\n", report.kept_findings, report.kept_findings == 1 ? "" : "s",
                 (sdk::opkit_home() / "cache" / "cpu").string());
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
