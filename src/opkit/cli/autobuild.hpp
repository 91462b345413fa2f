#pragma once

// `opkit test` and `opkit package` build what is out of date first, as
// `cargo test` does; --no-build refuses instead (the commands' own check).
#include "opkit/builder/builder.hpp"
#include "opkit/project/manifest.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::cli {

// Builds as `opkit build` does on stderr: one progress line, the compiler's
// diagnostics whole and once, coloured on a terminal.
builder::BuildReport
build_on_console(const project::Manifest& manifest, builder::BuildOptions options);

// --no-wait's help: the build folder's lock (builder/folder_lock.hpp).
inline constexpr const char* k_no_wait_help =
  "When another opkit builds in this build folder, fail at once naming it (exit 4) instead of waiting";

// Adds --no-build to a command that uses the built libraries.
void
add_no_build_flag(CLI::App* cmd, bool& no_build);

// Builds the targets of `specs` whose libraries (`libraries`, every one when
// empty) are missing or out of date, with opkit.yaml's settings, progress on
// stderr. A failed build is Error(failed) naming the targets (and their
// build.log). Nothing when `no_build`. `wait`: for the build folder's lock,
// unless the caller holds it (`held`).
void
build_out_of_date(const project::Manifest& manifest, const std::vector<std::string>& specs,
                  const std::filesystem::path& build_root, const std::vector<std::string>& libraries, bool no_build,
                  bool wait = true, const builder::HeldBuildFolder* held = nullptr);

} // namespace opkit::cli
