#include "opkit/sdk/store.hpp"

#include "opkit/project/framework_table.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/disk_usage.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <cstdlib>
#include <string_view>

namespace opkit::sdk {

std::filesystem::path
opkit_home()
{
  // Once it is a folder, it is this process's home: a check asks for it once
  // per index it opens, and the settings do not change while opkit runs.
  static std::mutex mutex;
  static std::optional<std::filesystem::path> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (known) {
    return *known;
  }
  // $OPKIT_HOME, config files, else $XDG_CACHE_HOME/opkit or ~/.cache/opkit
  std::filesystem::path home = settings::get("home");
  std::error_code ec;
  auto status = std::filesystem::status(home, ec);
  std::error_code link_ec;
  if (!std::filesystem::exists(status) && std::filesystem::is_symlink(std::filesystem::symlink_status(home, link_ec))) {
    fail(ExitCode::usage,
         "{}: the opkit home (OPKIT_HOME, or `home` in the config) is a symbolic link that leads nowhere ({}); "
         "see `opkit config get home`",
         home, ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "its target is missing");
  }
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
    fail(ExitCode::usage,
         "{}: the opkit home (OPKIT_HOME, or `home` in the config) is not a folder; "
         "see `opkit config get home`",
         home);
  }
  if (std::filesystem::is_directory(status)) {
    known = home;
  }
  return home;
}

std::filesystem::path
sdk_store_dir()
{
  return opkit_home() / "sdks";
}

namespace {

// The SDK whose record is <dir>/sdk.json; nothing when there is none (or it
// went while read). A record opkit did not write is Error(usage).
std::optional<Sdk>
read_sdk_record(const std::filesystem::path& dir)
{
  std::error_code ec;
  std::filesystem::path json_path = dir / "sdk.json";
  if (!std::filesystem::is_regular_file(json_path, ec)) {
    return std::nullopt;
  }
  std::ifstream in(json_path, std::ios::binary);
  if (!in) {
    return std::nullopt; // swapped out or removed while listing: not there any more
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Json json = Json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("id") || !json["id"].is_string()) {
    fail(ExitCode::usage, "{}: not an SDK record opkit wrote (damaged?); `opkit sdk remove` it and import it again",
         json_path);
  }
  try {
    return sdk_from_json(json, dir);
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}: not an SDK record opkit wrote ({}); `opkit sdk remove` it and import it again",
         json_path, e.what());
  }
}

} // namespace

std::vector<Sdk>
list_sdks()
{
  std::vector<Sdk> sdks;
  std::error_code ec;
  std::filesystem::path store = sdk_store_dir();
  std::filesystem::directory_iterator it(store, ec);
  if (ec == std::errc::no_such_file_or_directory) {
    return sdks; // an absent store is an empty one
  }
  if (ec) {
    fail(ec == std::errc::not_a_directory ? ExitCode::usage : ExitCode::system, "{}: cannot list the SDK store: {}",
         store, ec.message());
  }
  for (const auto& entry : it) {
    // Staging folders start with '.', and have no sdk.json until committed anyway.
    if (entry.path().filename().string().front() == '.') {
      continue;
    }
    if (std::optional<Sdk> sdk = read_sdk_record(entry.path())) {
      sdks.push_back(std::move(*sdk));
    }
  }
  std::sort(sdks.begin(), sdks.end(),
            [](const Sdk& a, const Sdk& b) { return a.version == b.version ? a.id < b.id : a.version < b.version; });
  return sdks;
}

std::filesystem::path
store_lock_path()
{
  return opkit_home() / "locks" / "store.lock";
}

Sdk
find_sdk(const std::string& id_or_spec)
{
  if (std::optional<SdkIdParts> id = parse_sdk_id(id_or_spec)) { // an id, of any framework
    return resolve_sdk(id_or_spec, id->framework);
  }
  return resolve_sdk(id_or_spec); // a TensorFlow version spec
}

namespace {

std::filesystem::path
use_lock_path(const std::string& id)
{
  return opkit_home() / "locks" / ("sdk-" + id + ".lock");
}

} // namespace

std::shared_ptr<const fs::FileLock>
use_sdk(const Sdk& sdk)
{
  auto lock = std::make_shared<const fs::FileLock>(use_lock_path(sdk.id), fs::FileLock::Kind::shared);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(sdk.root / "sdk.json", ec)) {
    throw Error(ExitCode::missing, fmt::format("{}: removed from the store as this run began", sdk.id),
                fetch_command(sdk.id));
  }
  return lock;
}

void
remove_sdk(const Sdk& sdk)
{
  fs::FileLock in_use(use_lock_path(sdk.id), fs::FileLock::Kind::exclusive, fs::FileLock::Wait::give_up);
  if (!in_use.held()) {
    fail(ExitCode::failed, "{}: in use by a running opkit build or test; not removed (try again when it ends)", sdk.id);
  }
  fs::FileLock lock(store_lock_path());
  std::error_code ec;
  std::filesystem::path aside = sdk_store_dir() / (".removing." + sdk.id);
  std::filesystem::remove_all(aside, ec);
  std::filesystem::rename(sdk.root, aside, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot remove: {}", sdk.root, ec.message());
  }
  std::filesystem::remove_all(aside, ec);
  std::filesystem::remove_all(opkit_home() / "probes" / sdk.id, ec);
  std::filesystem::remove_all(pch_store_dir() / sdk.id, ec);
}

std::filesystem::path
pch_store_dir()
{
  return opkit_home() / "pch";
}

void
drop_stale_pchs(const std::string& id)
{
  fs::FileLock in_use(use_lock_path(id), fs::FileLock::Kind::exclusive, fs::FileLock::Wait::give_up);
  if (in_use.held()) {
    std::error_code ec;
    std::filesystem::remove_all(pch_store_dir() / id, ec);
  }
}

void
GcReport::drop(const std::filesystem::path& path)
{
  bytes += fs::disk_usage(path).bytes;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  removed.push_back(path.string());
}

GcReport
collect_garbage(bool downloads)
{
  fs::FileLock lock(store_lock_path());
  GcReport report;
  std::vector<std::string> live;
  for (const Sdk& sdk : list_sdks()) {
    live.push_back(sdk.id);
  }
  auto drop = [&report](const std::filesystem::path& path) { report.drop(path); };
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sdk_store_dir(), ec)) {
    std::string name = entry.path().filename().string();
    // Leftovers of killed imports and removals; a live import's staging is locked, and kept.
    bool staging = starts_with(name, ".opkit-partial.");
    if ((staging && !fs::is_staging_in_use(entry.path())) || starts_with(name, ".removing.")
        || starts_with(name, ".opkit-old.") || name.find(".old.") != std::string::npos) {
      drop(entry.path());
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(opkit_home() / "probes", ec)) {
    if (entry.is_directory() && std::find(live.begin(), live.end(), entry.path().filename().string()) == live.end()) {
      drop(entry.path());
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(opkit_home() / "downloads", ec)) {
    std::string name = entry.path().filename().string();
    if (starts_with(name, "pip-") || (downloads && (ends_with(name, ".partial") || ends_with(name, ".whl")))) {
      drop(entry.path());
    }
  }
  return report;
}

namespace {

std::string
fetch_hint(const std::string& id_or_spec, const std::string& framework)
{
  std::string command = fetch_command(id_or_spec, framework);
  return command.empty()
           ? fmt::format("`opkit sdk fetch {}==VERSION{}` fetches one; `opkit sdk add WHEEL` imports a wheel you have",
                         framework, framework == "tensorflow" ? " [--variant gpu]" : "")
           : fmt::format("fetch it with `{}`, or import a wheel you have with `opkit sdk add WHEEL`", command);
}

} // namespace

std::string
fetch_command(const std::string& id_or_spec, const std::string& framework)
{
  std::optional<SdkIdParts> id = parse_sdk_id(id_or_spec); // an id ("torch-2.8.0-cuda"), or a version spec
  std::string named = id ? id->framework : framework;
  bool cuda = id && id->cuda;
  std::optional<project::Version> version = project::parse_version(id ? id->version : id_or_spec);
  if (!version || version->parts.size() > 3) {
    return {};
  }
  // The CUDA build needs --variant gpu only where a CPU build is published too (not torch's on PyPI).
  bool cpu_published = true;
  try {
    cpu_published = !project::FrameworkTable::get(named).flags_for(*version).cpu_distribution.empty();
  } catch (const Error&) {
    cpu_published = true; // a version older than the table: the plain command says what fetch knows
  }
  return fmt::format("opkit sdk fetch {}=={}{}", named, version->str(), cuda && cpu_published ? " --variant gpu" : "");
}

Sdk
resolve_sdk(const std::string& spec, const std::string& framework)
{
  // The common case read alone: an exact version (2.10.1), whose CPU build is
  // <framework>-2.10.1, or an id, each a folder of the store by that name.
  std::optional<project::Version> exact = project::parse_version(spec);
  bool full_version = exact && exact->parts.size() == 3 && exact->suffix.empty();
  if (full_version || is_valid_sdk_id(spec)) {
    std::string id = full_version ? framework + "-" + spec : spec;
    if (is_valid_sdk_id(id)) {
      if (std::optional<Sdk> sdk = read_sdk_record(sdk_store_dir() / id)) {
        bool fits = full_version ? sdk->framework == framework && sdk->version == *exact && !sdk->cuda.is_cuda_build
                                 : sdk->id == spec && sdk->framework == framework;
        if (fits) {
          return *sdk;
        }
      }
    }
  }
  std::vector<Sdk> sdks = list_sdks();
  if (starts_with(spec, "tensorflow-") || is_valid_sdk_id(spec)) { // an id, of any framework
    for (const Sdk& sdk : sdks) {
      if (sdk.id == spec && sdk.framework != framework) {
        fail(ExitCode::usage, "{}: a {} SDK, where a {} one is wanted", spec, sdk.framework, framework);
      }
      if (sdk.id == spec) {
        return sdk;
      }
    }
    std::vector<std::string> ids;
    ids.reserve(sdks.size());
    for (const Sdk& sdk : sdks) {
      ids.push_back(sdk.id);
    }
    throw Error(ExitCode::missing,
                fmt::format("{}: no SDK of that id in {} (it has: {})", spec, sdk_store_dir(),
                            ids.empty() ? "none" : join(ids, ", ")),
                fetch_hint(spec, framework));
  }
  std::optional<project::Version> wanted = project::parse_version(spec);
  const std::string& display = project::FrameworkTable::get(framework).display_name();
  if (!wanted && (spec.empty() || !std::isdigit(static_cast<unsigned char>(spec[0])))) {
    // Not a version at all (`sdk info nonexistent-sdk`): most likely a mistyped id.
    std::vector<std::string> ids;
    for (const Sdk& sdk : sdks) {
      ids.push_back(sdk.id);
    }
    fail(ExitCode::usage, "'{}': neither an SDK id ({}-2.10.1) nor a {} version (2.10); the store has: {}", spec,
         framework, display, ids.empty() ? "none" : join(ids, ", "));
  }
  if (!wanted) {
    fail(ExitCode::usage,
         "'{}': invalid {} version (expected e.g. 2.10.1 or 2.10, or an SDK id such as {}-2.10.1-cuda)", spec, display,
         framework);
  }
  // The newest matching version; of one version, the CPU build (a plain version
  // never turns into the CUDA one because it was imported too), then the plainest id.
  auto better = [](const Sdk& a, const Sdk& b) {
    if (!(a.version == b.version)) {
      return b.version < a.version;
    }
    if (a.cuda.is_cuda_build != b.cuda.is_cuda_build) {
      return !a.cuda.is_cuda_build;
    }
    return a.id < b.id;
  };
  const Sdk* best = nullptr;
  for (const Sdk& sdk : sdks) {
    // A version names an SDK of the framework asked for; another's only by its id.
    if (sdk.framework == framework && project::version_matches(*wanted, sdk.version)
        && (best == nullptr || better(sdk, *best))) {
      best = &sdk;
    }
  }
  if (best == nullptr) {
    throw Error(ExitCode::missing, fmt::format("{} {}: no SDK imported in {}", framework, spec, sdk_store_dir()),
                fetch_hint(spec, framework));
  }
  return *best;
}

} // namespace opkit::sdk
