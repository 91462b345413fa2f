#pragma once

#include "opkit/project/manifest.hpp"

#include <map>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::builder {

// How compiles are shared beyond this build: ccache (local or with remote
// storage) and distcc helpers. Decided once per build, as data the plan carries.
struct Sharing
{
  std::vector<std::string> launcher; // put before the compiler: env SETTINGS... ccache | distcc
  // Given to ninja's environment, never written into build.ninja: a remote
  // cache's URL may hold a password, and the build folder is what CI uploads.
  std::map<std::string, std::string> environment;
  bool ccache = false;
  bool distcc = false;
  // Compile against <build dir>/sdk, a link to the SDK, so the commands (and
  // so the cache keys) are the same whatever $OPKIT_HOME is on a machine.
  bool relative_sdk = false;
  // The precompiled header is used only where it cannot defeat sharing: its
  // bytes differ per machine (remote hits) and helpers cannot load it (distcc).
  bool pch = true;
  int remote_slots = 0; // distcc jobs over all helpers
};

// The settings in force: opkit.yaml's, then OPKIT_CACHE, OPKIT_CACHE_REMOTE
// and OPKIT_DISTCC_HOSTS, then --cache/--no-cache.
project::CompileSharing
effective_sharing(const project::CompileSharing& manifest, std::optional<bool> cache_flag);

// Decides the launcher. `ccache`/`distcc`: the programs' paths, empty when not
// installed; Error(missing) when the settings ask for one that is not.
// `base_dir` is the folder under which ccache makes paths relative (the project
// and its build folder).
Sharing
plan_sharing(const project::CompileSharing& settings, const std::string& ccache, const std::string& distcc,
             const std::filesystem::path& base_dir);

// The launcher of one target: ccache writes that target's counters to `stats_log`.
std::vector<std::string>
target_launcher(const Sharing& sharing, const std::filesystem::path& stats_log);

// What ccache's stats log says of one build: one entry per compile.
struct CacheStats
{
  int hits = 0;        // found in a cache ...
  int remote_hits = 0; // ... of which in the remote storage
  int misses = 0;      // compiled, and stored
};

CacheStats
parse_ccache_stats_log(std::string_view text);

} // namespace opkit::builder
