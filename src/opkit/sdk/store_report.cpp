#include "opkit/sdk/store_report.hpp"

#include "opkit/sdk/store.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

// A part with its folder measured, and each of its entries.
StorePart
measured(std::string name, std::string title, const stdfs::path& path, std::vector<std::string> removed_by)
{
  StorePart part{std::move(name), std::move(title), path, fs::disk_usage(path), std::move(removed_by), {}};
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(path, ec)) {
    std::string item = entry.path().filename().string();
    if (!ends_with(item, ".lock")) { // a lock file beside each venv, probe, portable folder: 0 B
      part.items.push_back({item, fs::disk_usage(entry.path()).bytes});
    }
  }
  std::sort(part.items.begin(), part.items.end(), [](const StoreItem& a, const StoreItem& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
  });
  return part;
}

// What no part names: home's entries and cache/'s, less the parts' own folders.
StorePart
other_part(const stdfs::path& home, const std::vector<StorePart>& parts)
{
  std::set<stdfs::path> claimed = {home / "cache"};
  for (const StorePart& part : parts) {
    claimed.insert(part.path);
  }
  StorePart other{"other", "anything else", home, {}, {"not opkit's: opkit removes none of it"}, {}};
  std::error_code ec;
  for (const stdfs::path& folder : {home, home / "cache"}) {
    for (const auto& entry : stdfs::directory_iterator(folder, ec)) {
      if (claimed.count(entry.path()) == 0) {
        fs::DiskUsage usage = fs::disk_usage(entry.path());
        std::string name = entry.path().lexically_relative(home).string();
        other.items.push_back({name, usage.bytes});
        other.usage.bytes += usage.bytes;
        other.usage.files += usage.files;
      }
    }
  }
  return other;
}

} // namespace

StoreReport
store_report()
{
  StoreReport report;
  report.home = opkit_home();
  const stdfs::path& home = report.home;
  stdfs::path venvs = settings::get("venvs");
  stdfs::path toolchains = settings::get("cuda_toolchains");
  report.parts = {
    measured("sdks", "SDKs", sdk_store_dir(),
             {"opkit sdk remove SDK", "opkit sdk gc (what interrupted imports and removals left)"}),
    measured(
      "pch", "precompiled headers", pch_store_dir(),
      {"opkit sdk remove SDK (its SDK's)", "opkit sdk gc (those of removed SDKs, an older compiler, unfinished)"}),
    measured(
      "portable", "portable archives", home / "portable",
      {fmt::format("rm -r {} (a build for an older target makes what it needs again)", (home / "portable").string())}),
    measured("probes", "load probes", home / "probes",
             {"opkit sdk remove SDK (its SDK's)", "opkit sdk gc (those of removed SDKs)"}),
    measured("venvs", "Python venvs", venvs,
             {fmt::format("rm -r {} (opkit test --python makes a release's again)", (venvs / "NAME").string())}),
    measured("toolchains", "CUDA toolchains", toolchains,
             {fmt::format("rm -r {} (the next CUDA build fetches it again)", (toolchains / "cuda-RELEASE").string())}),
    measured("downloads", "downloads", home / "downloads",
             {"opkit sdk gc (pip's download folders)",
              "opkit sdk gc --downloads (partial downloads, whole wheels kept for a release's venv)"}),
    measured("cpu_findings", "CPU findings", home / "cache" / "cpu",
             {"opkit clean --all (a project's)", "opkit sdk gc (those of libraries no longer there)"}),
    measured("symbol_indexes", "symbol indexes", home / "cache" / "symbols",
             {fmt::format("rm -r {} (the next check indexes the system libraries again)",
                          (home / "cache" / "symbols").string())}),
    measured("locks", "locks", home / "locks", {"nothing needed: empty files"}),
  };
  report.parts.push_back(other_part(home, report.parts));
  for (const StorePart& part : report.parts) {
    report.total_bytes += part.usage.bytes;
  }
  return report;
}

Json
to_json(const StoreReport& report)
{
  Json parts = Json::array();
  for (const StorePart& part : report.parts) {
    Json items = Json::array();
    for (const StoreItem& item : part.items) {
      items.push_back({{"name", item.name}, {"bytes", item.bytes}});
    }
    parts.push_back({{"name", part.name},
                     {"title", part.title},
                     {"path", part.path.string()},
                     {"bytes", part.usage.bytes},
                     {"files", part.usage.files},
                     {"removed_by", part.removed_by},
                     {"items", items}});
  }
  return {{"schema", "opkit.sdk-usage/1"},
          {"home", report.home.string()},
          {"measure", "allocated"},
          {"parts", parts},
          {"total_bytes", report.total_bytes}};
}

} // namespace opkit::sdk
