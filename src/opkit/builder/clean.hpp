#pragma once

// `opkit clean`: the project's build folder goes, under its lock
// (folder_lock.hpp): a build running in it is waited for, or with `wait` false
// refused naming it. With `all`, also what opkit keeps for the project outside
// it: the CPU findings of its libraries in $OPKIT_HOME/cache/cpu. Nothing else
// is the project's alone: the SDK store, precompiled headers, probes, venvs and
// portable members are shared by every project (`opkit sdk gc`), and dist/ holds
// what the project shipped.
#include <cstdint>
#include <filesystem>

namespace opkit::builder {

struct CleanReport
{
  std::filesystem::path build_root; // absolute
  bool existed = false;
  uint64_t bytes = 0;       // what the build folder held
  size_t kept_findings = 0; // with `all`: kept CPU findings removed
};

// Removes `build_root` (empty: <project_root>/build). A folder that is not
// strictly inside the project (after symlinks), or is the project itself, is
// Error(usage): opkit never removes anything outside the project.
CleanReport
clean_build_folder(const std::filesystem::path& project_root, const std::filesystem::path& build_root, bool all,
                   bool wait);

} // namespace opkit::builder
