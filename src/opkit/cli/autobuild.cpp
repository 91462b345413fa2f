#include "opkit/cli/autobuild.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/builder/console.hpp"
#include "opkit/builder/outdated.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace stdfs = std::filesystem;

builder::BuildReport
build_on_console(const project::Manifest& manifest, builder::BuildOptions options)
{
  builder::ConsoleStyle style = progress::stderr_style();
  builder::BuildConsole console(style);
  options.observer = &console;
  if (style.color) {
    options.diagnostics_flags = {"-fdiagnostics-color=always"};
  }
  return builder::build_project(manifest, options);
}

void
add_no_build_flag(CLI::App* cmd, bool& no_build)
{
  cmd->add_flag("--no-build", no_build,
                "Do not build what is missing or out of date first; refuse a library not built (exit 3)");
}

namespace {

// What went wrong in one target, on stderr: the check's findings, else the
// build log (its saved file when the build keeps one, else its last lines).
std::string
report_failure(const builder::TargetResult& target)
{
  for (const builder::LibraryResult& library : target.libraries) {
    if (library.check && !library.check->loads) {
      print_check_report(*library.check, stderr);
      return fmt::format("{} will not load", library.library.filename().string());
    }
  }
  // The console has shown the diagnostics; the whole log is kept beside the target.
  return fmt::format("full log: {}", builder::shown_path(target.log_file));
}

} // namespace

void
build_out_of_date(const project::Manifest& manifest, const std::vector<std::string>& specs,
                  const stdfs::path& build_root, const std::vector<std::string>& libraries, bool no_build, bool wait,
                  const builder::HeldBuildFolder* held)
{
  if (no_build) {
    return;
  }
  std::vector<builder::OutdatedTarget> outdated = builder::outdated_targets(manifest, specs, build_root, libraries);
  if (outdated.empty()) {
    return;
  }
  builder::BuildOptions options;
  options.build_root = build_root;
  options.libraries = libraries;
  options.wait = wait;
  options.held = held;
  for (const builder::OutdatedTarget& target : outdated) {
    log_info("building {} first: {}", target.sdk_id, target.reason);
    options.tf_specs.push_back(target.spec);
  }
  builder::BuildReport report = build_on_console(manifest, options);
  std::vector<std::string> failed;
  for (const builder::TargetResult& target : report.targets) {
    if (target.ok) {
      builder::mark_fresh(target.dir);
      log_info("{}: {}", target.sdk_id,
               target.up_to_date ? "up to date" : fmt::format("built ({} compiled)", target.compiled));
      continue;
    }
    failed.push_back(fmt::format("{} ({})", target.sdk_id, report_failure(target)));
  }
  if (!failed.empty()) {
    throw Error(ExitCode::failed, fmt::format("build failed: {}", join(failed, ", ")),
                "fix it and run again; --no-build uses what is built");
  }
}

} // namespace opkit::cli
