#include "opkit/cli/autobuild.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/build/console.hpp"
#include "opkit/build/outdated.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace stdfs = std::filesystem;

build::BuildReport
build_on_console(const project::Manifest& manifest, build::BuildOptions options)
{
  build::ConsoleStyle style = progress::stderr_style();
  build::BuildConsole console(style);
  options.observer = &console;
  if (style.color) {
    options.diagnostics_flags = {"-fdiagnostics-color=always"};
  }
  return build::build_project(manifest, options);
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
report_failure(const build::TargetResult& target)
{
  for (const build::LibraryResult& library : target.libraries) {
    if (library.check && !library.check->loads) {
      print_check_report(*library.check, stderr);
      return fmt::format("{} will not load", library.library.filename().string());
    }
  }
  // The console has shown the diagnostics; the whole log is kept beside the target.
  return fmt::format("full log: {}", build::shown_path(target.log_file));
}

} // namespace

void
build_out_of_date(const project::Manifest& manifest, const std::vector<std::string>& specs,
                  const stdfs::path& build_root, const std::vector<std::string>& libraries, bool no_build, bool wait)
{
  if (no_build) {
    return;
  }
  std::vector<build::OutdatedTarget> outdated = build::outdated_targets(manifest, specs, build_root, libraries);
  if (outdated.empty()) {
    return;
  }
  build::BuildOptions options;
  options.build_root = build_root;
  options.libraries = libraries;
  options.wait = wait;
  for (const build::OutdatedTarget& target : outdated) {
    log_info("building {} first: {}", target.sdk_id, target.reason);
    options.tf_specs.push_back(target.spec);
  }
  build::BuildReport report = build_on_console(manifest, options);
  std::vector<std::string> failed;
  for (const build::TargetResult& target : report.targets) {
    if (target.ok) {
      build::mark_fresh(target.dir);
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
