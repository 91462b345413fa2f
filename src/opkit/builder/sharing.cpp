#include "opkit/builder/sharing.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace opkit::builder {

namespace {

int
slots_of(const std::string& host)
{
  // distcc's "host/limit[,options]"; a host without a limit takes distcc's default of 4.
  size_t slash = host.find('/');
  if (slash == std::string::npos) {
    return 4;
  }
  int slots = std::atoi(host.c_str() + slash + 1);
  return slots > 0 ? slots : 4;
}

// ccache's remote_storage: URLs separated by spaces, each optionally with
// |attribute=value parts. An unknown scheme is refused here, or every compile
// would fail with ccache's own message in the build log.
void
check_cache_remote(const settings::Value& remote)
{
  for (const std::string& entry : split(remote.value, ' ')) {
    std::string url = entry.substr(0, entry.find('|'));
    std::string scheme = url.substr(0, url.find(':'));
    bool known = scheme == "redis" || scheme == "redis+unix" || scheme == "http" || scheme == "file";
    if (!entry.empty() && (!known || url.size() <= scheme.size() + 1 || has_control(entry))) {
      fail(ExitCode::usage,
           "cache_remote '{}' (from {}): not a ccache remote storage URL (redis://host:port, http://host/path, "
           "file:/path)",
           entry, remote.origin());
    }
  }
}

} // namespace

project::CompileSharing
effective_sharing(const project::CompileSharing& manifest, std::optional<bool> cache_flag)
{
  project::CompileSharing result = manifest;
  // The environment, then opkit.yaml (the manifest's own entries), then the user config file.
  settings::Settings resolved = settings::current().with_project(manifest.entries);
  result.cache = resolved.get("cache");
  settings::Value remote = resolved.resolve("cache_remote");
  check_cache_remote(remote);
  result.cache_remote = remote.value;
  result.distcc_hosts.clear();
  for (const std::string& host : split(resolved.get("distcc_hosts"), ' ')) {
    if (!host.empty()) {
      result.distcc_hosts.push_back(host);
    }
  }
  if (cache_flag) {
    result.cache = *cache_flag ? "on" : "off";
  }
  return result;
}

Sharing
plan_sharing(const project::CompileSharing& settings, const std::string& ccache, const std::string& distcc,
             const std::filesystem::path& base_dir)
{
  Sharing sharing;
  bool wants_cache = settings.cache == "on" || (settings.cache == "auto" && !ccache.empty())
                     || (settings.cache != "off" && !settings.cache_remote.empty());
  if (wants_cache && ccache.empty()) {
    throw Error(ExitCode::missing, "ccache: not found in PATH (build.cache is on)",
                "install ccache (scripts/setup.sh installs it), or set build.cache: off");
  }
  if (!settings.distcc_hosts.empty() && distcc.empty()) {
    throw Error(ExitCode::missing, "distcc: not found in PATH (build.distcc_hosts names helpers)",
                "install distcc (scripts/setup.sh installs it), or remove build.distcc_hosts");
  }
  sharing.ccache = wants_cache;
  sharing.distcc = !settings.distcc_hosts.empty();
  for (const std::string& host : settings.distcc_hosts) {
    sharing.remote_slots += slots_of(host);
  }
  sharing.pch = !sharing.distcc && settings.cache_remote.empty();
  sharing.relative_sdk = sharing.ccache && !sharing.pch; // hits meant for other folders and machines
  if (!sharing.ccache && !sharing.distcc) {
    return sharing;
  }
  std::vector<std::string>& launcher = sharing.launcher;
  launcher.push_back("env");
  if (sharing.distcc) {
    launcher.push_back("DISTCC_HOSTS=" + join(settings.distcc_hosts, " "));
  }
  if (sharing.ccache) {
    // Hits that do not depend on the folder or machine: paths under base_dir
    // made relative, the working folder unhashed, the compiler known by its content.
    launcher.push_back("CCACHE_BASEDIR=" + base_dir.string());
    launcher.push_back("CCACHE_NOHASHDIR=1");
    launcher.push_back("CCACHE_COMPILERCHECK=content");
    if (sharing.pch) {
      launcher.push_back("CCACHE_SLOPPINESS=pch_defines,time_macros"); // what ccache needs to cache PCH users
    }
    if (!settings.cache_remote.empty()) {
      sharing.environment["CCACHE_REMOTE_STORAGE"] = settings.cache_remote; // ccache reads where it stores nothing
    }
    if (sharing.distcc) {
      launcher.push_back("CCACHE_PREFIX=" + distcc);
    }
    launcher.push_back(ccache);
  } else {
    launcher.push_back(distcc);
  }
  return sharing;
}

std::vector<std::string>
target_launcher(const Sharing& sharing, const std::filesystem::path& stats_log)
{
  std::vector<std::string> launcher = sharing.launcher;
  if (sharing.ccache) {
    launcher.insert(launcher.end() - 1, "CCACHE_STATSLOG=" + stats_log.string());
  }
  return launcher;
}

CacheStats
parse_ccache_stats_log(std::string_view text)
{
  CacheStats stats;
  bool hit = false;
  bool remote = false;
  bool miss = false;
  auto close_entry = [&] {
    stats.hits += hit ? 1 : 0;
    stats.remote_hits += hit && remote ? 1 : 0;
    stats.misses += !hit && miss ? 1 : 0;
    hit = remote = miss = false;
  };
  for (const std::string& raw : split(text, '\n')) {
    std::string line = trim(raw);
    if (starts_with(line, "#")) {
      close_entry();
    } else if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") {
      hit = true;
    } else if (line == "remote_storage_hit") {
      remote = true;
    } else if (line == "cache_miss") {
      miss = true;
    }
  }
  close_entry();
  return stats;
}

} // namespace opkit::builder
