#include "opkit/builder/check_cache.hpp"

#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <fmt/format.h>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

const char* const k_check_cache_schema = "opkit.check-cache/1";

check::CheckReport
report_from_json(const Json& json)
{
  check::CheckReport report;
  report.library = json.at("library").get<std::string>();
  report.target = json.at("target").get<std::string>();
  report.loads = json.at("verdict").get<std::string>() == "loads";
  for (const Json& item : json.at("findings")) {
    check::Finding finding;
    finding.kind = item.at("kind").get<std::string>();
    finding.fatal = item.at("severity").get<std::string>() == "error";
    finding.summary = item.at("summary").get<std::string>();
    finding.diagnosis = item.at("diagnosis").get<std::string>();
    finding.remedy = item.at("remedy").get<std::string>();
    for (const Json& symbol : item.at("symbols")) {
      finding.symbols.push_back({symbol.at("mangled").get<std::string>(),
                                 symbol.at("demangled").get<std::string>(),
                                 symbol.at("version").get<std::string>(),
                                 {}});
    }
    report.findings.push_back(std::move(finding));
  }
  const Json& stats = json.at("stats");
  report.needed = stats.at("needed").get<std::vector<std::string>>();
  report.undefined = stats.at("undefined").get<size_t>();
  report.weak_unresolved = stats.at("weak_unresolved").get<size_t>();
  return report;
}

} // namespace

CheckCacheKey
check_cache_key(const stdfs::path& library, const sdk::Sdk& sdk, const std::string& runtime,
                const stdfs::path& profile_file, const std::string& cpu)
{
  std::string material =
    fmt::format("{}\nlibrary {}\nsdk {} {} {} {}\nruntime {}\nprofile {} {}\nopkit {}\ncpu {}\n", k_check_cache_schema,
                fs::file_stamp(library), sdk.id, sdk.root.string(), fs::file_stamp(sdk.root / "sdk.json"),
                fs::file_stamp(sdk.lib_dir() / sdk.framework_library), runtime, profile_file.string(),
                profile_file.empty() ? "" : fs::file_stamp(profile_file), fs::file_stamp("/proc/self/exe"), cpu);
  if (runtime == "host") {
    material += "host " + fs::file_stamp("/etc/ld.so.cache") + "\n"; // changes when system libraries do
  }
  return {material}; // compared whole: no digest to compute on a no-op build
}

std::optional<check::CheckReport>
load_cached_check(const stdfs::path& file, const CheckCacheKey& key)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(file, ec)) {
    return std::nullopt;
  }
  try {
    Json json = Json::parse(fs::read_file(file));
    if (json.at("schema").get<std::string>() != k_check_cache_schema
        || json.at("key").get<std::string>() != key.value) {
      return std::nullopt;
    }
    return report_from_json(json.at("report"));
  } catch (const std::exception& error) {
    log_debug("check: kept verdict {} unreadable ({}): checked again", file.string(), error.what());
    return std::nullopt; // damaged: check again, and rewrite it
  }
}

void
store_check(const stdfs::path& file, const CheckCacheKey& key, const check::CheckReport& report)
{
  Json json = {{"schema", k_check_cache_schema}, {"key", key.value}, {"report", check::to_json(report)}};
  fs::write_file_atomic(file, json_text(json, 1) + "\n");
}

} // namespace opkit::builder
