#include "opkit/sdk/fetch.hpp"

#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/importer.hpp"
#include "opkit/sdk/index.hpp"
#include "opkit/sdk/pip_config.hpp"
#include "opkit/sdk/range_fetch.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/progress.hpp"
#include "opkit/util/strings.hpp"
#include "opkit/util/whole_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <unistd.h>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

// What `tensorflow==V` (or `torch==V`: any framework of configs/frameworks/)
// asks for: an exact version (2.10.1), or a prefix (2.10) naming the newest
// release the index has that starts with it.
struct Requirement
{
  std::string framework; // "tensorflow", "torch"
  project::Version spec;
  bool exact = false;
  std::string variant; // "cpu", "gpu", or "": the framework's own (its CPU build where one is published)
};

Requirement
parse_requirement(const FetchOptions& options)
{
  size_t eq = options.requirement.find("==");
  std::string name = normalize_project(trim(options.requirement.substr(0, eq)));
  std::vector<std::string> frameworks = project::FrameworkTable::names();
  if (eq == std::string::npos || std::find(frameworks.begin(), frameworks.end(), name) == frameworks.end()) {
    fail(ExitCode::usage, "'{}': expected {}==VERSION", options.requirement, join(frameworks, "==VERSION or "));
  }
  std::optional<project::Version> version = project::parse_version(trim(options.requirement.substr(eq + 2)));
  if (!version || version->parts.size() > 3 || (version->parts.size() < 3 && !version->suffix.empty())) {
    fail(ExitCode::usage, "'{}': expected a version or its prefix, e.g. {}==2.10.1 or {}==2.10", options.requirement,
         name, name);
  }
  if (!options.variant.empty() && options.variant != "cpu" && options.variant != "gpu") {
    fail(ExitCode::usage, "--variant {}: expected cpu or gpu", options.variant);
  }
  return Requirement{name, *version, version->parts.size() == 3, options.variant};
}

// One version's SDK: where it is published and the id it gets.
struct Wanted
{
  project::Version version;
  std::string project;
  std::string sdk_id;
  project::FrameworkFlags flags;
};

Wanted
wanted_for(const Requirement& requirement, const project::Version& version)
{
  Wanted wanted{version, "", "", project::FrameworkTable::get(requirement.framework).flags_for(version)};
  bool gpu = requirement.variant == "gpu" || (requirement.variant.empty() && wanted.flags.cpu_distribution.empty());
  if (!gpu && wanted.flags.cpu_distribution.empty()) {
    throw Error(ExitCode::usage,
                fmt::format("{}=={} --variant cpu: no CPU-only build of {} {} is published on a package index "
                            "(configs/frameworks/{}.yaml)",
                            requirement.framework, version.str(), requirement.framework, version.str(),
                            requirement.framework),
                "leave out --variant: the CUDA build's SDK builds CPU ops too");
  }
  wanted.project = gpu ? wanted.flags.gpu_distribution : wanted.flags.cpu_distribution;
  wanted.sdk_id = requirement.framework + "-" + version.str() + (gpu ? "-cuda" : "");
  return wanted;
}

bool
interactive()
{
  return ::isatty(2) != 0 && verbosity() != Verbosity::quiet;
}

HttpOptions
http_options(const std::string& accept)
{
  HttpOptions options;
  options.headers = {"Accept: " + accept};
  options.progress = false;
  options.limits = settings::net_limits();
  return options;
}

std::vector<IndexFile>
list_files(const std::string& index_url, const std::string& project, int retries)
{
  std::string page = index_url + (ends_with(index_url, "/") ? "" : "/") + normalize_project(project) + "/";
  HttpOptions options = http_options("application/vnd.pypi.simple.v1+json, text/html;q=0.1");
  options.retries = retries;
  HttpResult result = http_get(page, options);
  return result.content_type.find("application/vnd.pypi.simple.v1+json") != std::string::npos
           ? parse_simple_json(result.body, page)
           : parse_simple_html(result.body, page);
}

HttpOptions
download_options()
{
  HttpOptions options = http_options("*/*");
  options.progress = interactive();
  return options;
}

// Downloads the whole wheel (resuming) into downloads/<file>, verified against the index's sha256.
stdfs::path
download_wheel(const IndexFile& file, const stdfs::path& dir, FetchResult& result)
{
  stdfs::path partial = dir / (file.filename + ".partial");
  log_info("downloading {} ...", file.filename);
  DownloadResult download = http_download(file.url, partial, download_options());
  result.resumed_from = download.bytes_resumed_from;
  result.requests += download.attempts;
  result.whole_requests = download.attempts;
  result.wire_bytes += download.bytes_received;
  result.wheel_bytes = download.bytes_total;
  if (file.sha256.empty()) {
    log_warning("{}: the index gives no sha256; not verified", file.filename);
  } else {
    std::string actual = sha256_hex_file(partial);
    if (actual != file.sha256) {
      std::error_code ec;
      stdfs::remove(partial, ec);
      fail(ExitCode::failed, "{}: sha256 mismatch: the index says {}, the download is {}; removed it", file.filename,
           file.sha256, actual);
    }
  }
  stdfs::path wheel = dir / file.filename;
  std::error_code ec;
  stdfs::rename(partial, wheel, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", wheel, ec.message());
  }
  return wheel;
}

// Fetches the wheel into downloads/<file>: only the members the SDK keeps,
// with range requests, when the server serves them; else (or to resume an
// interrupted whole download) the whole file.
stdfs::path
fetch_wheel(const IndexFile& file, FetchResult& result)
{
  stdfs::path dir = opkit_home() / "downloads";
  fs::create_dirs(dir);
  std::error_code ec;
  if (stdfs::exists(dir / (file.filename + ".partial"), ec)) {
    log_debug("{}: an interrupted download of the whole wheel is there: resuming it", file.filename);
    return download_wheel(file, dir, result);
  }
  RangeFetch fetch = fetch_wheel_subset(file.url, file.filename, dir / file.filename, download_options());
  result.requests = fetch.requests;
  result.wire_bytes = fetch.wire_bytes;
  if (!fetch.ranged) {
    log_info("{}: the server does not serve byte ranges; downloading the whole wheel", file.filename);
    result.ranges_ignored = true;
    return download_wheel(file, dir, result);
  }
  result.ranged = true;
  result.wheel_bytes = fetch.wheel_bytes;
  return dir / file.filename;
}

// No index configured: let pip find the wheel (its own configuration decides
// where); `pin` is "==2.10.1", or "==2.10.*" for the newest 2.10.
stdfs::path
pip_download(const Wanted& wanted, const std::string& pin, FetchResult& result)
{
  // Before the version is known no lock is held: a folder of this process's own.
  stdfs::path dir =
    opkit_home() / "downloads"
    / (ends_with(pin, ".*") ? fmt::format("pip-{}-{}", wanted.sdk_id, ::getpid()) : "pip-" + wanted.sdk_id);
  std::error_code ec;
  stdfs::remove_all(dir, ec);
  const NetLimits limits = settings::net_limits();
  for (const std::string& python : wanted.flags.wheel_pythons) {
    std::string digits = python.substr(2);
    std::vector<std::string> argv = {"python3",
                                     "-m",
                                     "pip",
                                     "download",
                                     "--quiet",
                                     "--no-deps",
                                     "--only-binary=:all:",
                                     "--timeout", // pip's stall limit: its socket's, per read
                                     fmt::format("{}", rounded(limits.window_s)),
                                     "--python-version",
                                     digits.substr(0, 1) + "." + digits.substr(1),
                                     "--implementation",
                                     "cp",
                                     "--abi",
                                     python + (std::stoi(digits) < 38 ? "m" : "")};
    for (const std::string& platform : pip_platform_tags()) {
      argv.insert(argv.end(), {"--platform", platform});
    }
    argv.insert(argv.end(), {"-d", dir.string(), wanted.project + pin});
    log_info("pip download {}{} for {} ...", wanted.project, pin, python);
    ProcessOptions options;
    options.deadline_s = limits.deadline_s;
    // pip downloads into its temporary folder, then copies the wheel into
    // `dir`: a folder of ours, so the status line can say how much has come.
    stdfs::path pip_tmp = dir.string() + ".pip-tmp";
    fs::create_dirs(pip_tmp);
    options.env_set["TMPDIR"] = pip_tmp.string();
    ProcessResult pip;
    {
      progress::Step step(fmt::format("downloading {}{} for {} with pip", wanted.project, pin, python));
      step.poll([&step, pip_tmp, dir] {
        // Once: while pip copies, the wheel is in both folders (the larger is how far it is).
        auto bytes = static_cast<std::int64_t>(std::max(fs::disk_size(pip_tmp), fs::disk_size(dir)));
        return progress::bytes_text(bytes, 0, 0, step.seconds());
      });
      pip = run_process(argv, options);
    }
    stdfs::remove_all(pip_tmp, ec);
    if (pip.timed_out) {
      stdfs::remove_all(dir, ec); // what pip had begun
      throw past_net_deadline(wanted.project + pin, "pip download", limits);
    }
    if (std::string offline = pip.exit_code == 0 ? "" : network_failure_said(pip.out + pip.err); !offline.empty()) {
      stdfs::remove_all(dir, ec);
      throw network_unreachable(wanted.project + pin, "pip download", offline,
                                "pip's configuration names where it looks (find-links, index-url)");
    }
    if (pip.exit_code == 0) {
      for (const auto& entry : stdfs::directory_iterator(dir)) {
        result.wheel = entry.path().filename().string();
        result.wheel_bytes = stdfs::file_size(entry.path());
        return entry.path();
      }
    }
  }
  stdfs::remove_all(dir, ec);
  throw Error(ExitCode::missing,
              fmt::format("{}{}: pip download found no Linux x86-64 wheel for {} (pip's configuration turns on "
                          "no-index: it reads only its find-links)",
                          wanted.project, pin, join(wanted.flags.wheel_pythons, ",")),
              "pass --index-url, or check pip's find-links");
}

} // namespace

std::string
configured_index_url(const std::string& flag)
{
  return index_url_setting(flag).value;
}

settings::Value
index_url_setting(const std::string& flag)
{
  // --index-url, $OPKIT_INDEX_URL, $PIP_INDEX_URL, opkit.yaml, the config file, then pip's configuration files.
  return with_pip_index_url(settings::current().resolve("index_url", flag, "--index-url"), PipEnvironment::real());
}

namespace {

// A fetch's result for an SDK the store has: nothing downloaded.
FetchResult
present_result(const Sdk& sdk)
{
  FetchResult result;
  result.sdk = sdk;
  result.already_present = true;
  result.sdk_bytes = fs::disk_size(sdk.root);
  return result;
}

// The SDK of the store with that id, as a result; nothing when it is not there.
std::optional<FetchResult>
already_present(const std::string& sdk_id)
{
  for (const Sdk& sdk : list_sdks()) {
    if (sdk.id == sdk_id) {
      return present_result(sdk);
    }
  }
  return std::nullopt;
}

// Imports the fetched wheel (kept only as long as that takes).
void
import_wheel(const stdfs::path& wheel, FetchResult& result)
{
  // pip download's own folder (downloads/pip-<id>), which goes whatever happens: never left empty.
  stdfs::path downloads = opkit_home() / "downloads";
  stdfs::path pip_folder = wheel.parent_path() == downloads ? stdfs::path() : wheel.parent_path();
  std::error_code ec;
  try {
    result.sdk = import_sdk(wheel, /*process_libraries=*/false); // the same SDK as a ranged fetch's
  } catch (...) {
    stdfs::remove(wheel, ec); // a wheel that does not import is of no use to a later fetch
    stdfs::remove_all(pip_folder, ec);
    throw;
  }
  result.sdk_bytes = fs::disk_size(result.sdk.root);
  if (result.ranged) {
    stdfs::remove(wheel, ec); // the SDK's members alone: of no use to anything else
    return;
  }
  // A whole wheel stays in downloads/ for the release's venv (downloaded_wheel),
  // which would otherwise download it again.
  if (!pip_folder.empty()) {
    stdfs::rename(wheel, downloads / wheel.filename(), ec);
    stdfs::remove_all(pip_folder, ec);
  }
}

// The newest SDK of the store a prefix requirement names, of the variant it asks for.
std::optional<Sdk>
newest_imported(const Requirement& requirement, const Wanted& wanted)
{
  bool cuda = ends_with(wanted.sdk_id, "-cuda");
  std::optional<Sdk> newest;
  for (const Sdk& sdk : list_sdks()) {
    std::optional<SdkIdParts> parts = parse_sdk_id(sdk.id);
    if (parts && parts->framework == requirement.framework && parts->cuda == cuda
        && requirement_names(requirement.spec, sdk.version) && (!newest || newest->version < sdk.version)) {
      newest = sdk;
    }
  }
  return newest;
}

[[noreturn]] void
no_such_version(const FetchOptions& options, const Requirement& requirement,
                const std::vector<project::Version>& versions, const std::string& source)
{
  std::vector<std::string> nearest = nearest_versions(versions, requirement.spec);
  fail(ExitCode::usage, "{}: no such version on {} (versions: {})", trim(options.requirement), source,
       nearest.empty() ? "none" : join(nearest, ", "));
}

// The version a requirement names on the index: the newest it names that has
// a wheel with the tags of its range (pip's choice), and that wheel.
std::pair<Wanted, IndexFile>
choose_version(const FetchOptions& options, const Requirement& requirement, const std::vector<IndexFile>& files,
               const std::string& project, const std::string& source)
{
  std::vector<project::Version> versions = listed_versions(files, project);
  std::vector<project::Version> named;
  std::copy_if(versions.begin(), versions.end(), std::back_inserter(named),
               [&](const project::Version& v) { return requirement_names(requirement.spec, v); });
  if (named.empty()) {
    no_such_version(options, requirement, versions, source);
  }
  for (auto it = named.rbegin(); it != named.rend(); ++it) {
    Wanted wanted = wanted_for(requirement, *it);
    std::optional<IndexFile> file = pick_wheel(files, project, it->str(), wanted.flags.wheel_pythons);
    if (file) {
      log_debug("{}: {} {} is the newest with a wheel that fits", trim(options.requirement), project, it->str());
      std::optional<WheelName> name = parse_wheel_name(file->filename);
      std::optional<WheelPlatform> platform = name ? wheel_platform(*name) : std::nullopt;
      if (platform) {
        log_info("{} {}: taking its {} wheel ({})", project, it->str(), platform->tag,
                 platform->glibc_text().empty() ? "it states no glibc"
                                                : "the oldest glibc it is published for, " + platform->glibc_text());
      }
      return {wanted, *file};
    }
  }
  Wanted newest = wanted_for(requirement, named.back());
  throw Error(ExitCode::missing,
              fmt::format("{} {}: no Linux x86-64 CPython wheel on {}", project, newest.version.str(), source),
              "check the version, or the index");
}

} // namespace

FetchResult
fetch_sdk(const FetchOptions& options)
{
  Requirement requirement = parse_requirement(options);
  settings::Value index_setting = index_url_setting(options.index_url);
  const std::string& index = index_setting.value;
  if (!index.empty()) {
    log_debug("index {}: {}", http_display_url(index), index_setting.origin());
  }
  Wanted wanted = wanted_for(requirement, requirement.spec); // a prefix's: where its versions are published
  // One fetch of an SDK at a time: the later ones find it in the store.
  std::optional<fs::FileLock> lock;
  auto lock_and_find = [&lock](const Wanted& version) {
    if (!lock) {
      lock.emplace(opkit_home() / "locks" / ("fetch-" + version.sdk_id + ".lock"));
    }
    return already_present(version.sdk_id);
  };
  if (requirement.exact) { // known without asking the index: a fetch of an SDK the store has costs nothing
    if (std::optional<FetchResult> present = lock_and_find(wanted)) {
      return *present;
    }
  }
  FetchResult result;
  stdfs::path wheel;
  if (index.empty()) {
    result.source = "pip download";
    wheel = pip_download(wanted, "==" + requirement.spec.str() + (requirement.exact ? "" : ".*"), result);
    if (!requirement.exact) {
      std::optional<WheelName> name = parse_wheel_name(result.wheel);
      std::optional<project::Version> version = name ? project::parse_version(name->version) : std::nullopt;
      if (!version) {
        fail(ExitCode::failed, "{}: pip downloaded a wheel whose version opkit cannot read", result.wheel);
      }
      wanted = wanted_for(requirement, *version);
      if (std::optional<FetchResult> present = lock_and_find(wanted)) {
        std::error_code ec;
        stdfs::remove_all(wheel.parent_path(), ec);
        return *present;
      }
    }
  } else {
    result.source = http_display_url(index);
    // A prefix the store already has a release of: the index decides which is
    // newest, but a network that does not reach it leaves the imported one.
    std::optional<Sdk> imported = requirement.exact ? std::nullopt : newest_imported(requirement, wanted);
    std::vector<IndexFile> files;
    try {
      files = list_files(index, wanted.project, imported ? 1 : HttpOptions().retries);
    } catch (const NetworkError& e) {
      if (!imported) {
        throw;
      }
      log_warning("{} (the index: {}); using the imported {}, the newest {} in the store", trim(options.requirement),
                  e.what(), imported->id, requirement.spec.str());
      FetchResult offline = present_result(*imported);
      offline.source = result.source;
      offline.offline = true;
      return offline;
    }
    auto [chosen, file] = choose_version(options, requirement, files, wanted.project, result.source);
    wanted = chosen;
    if (std::optional<FetchResult> present = lock_and_find(wanted)) {
      return *present;
    }
    result.wheel = file.filename;
    wheel = fetch_wheel(file, result);
  }
  import_wheel(wheel, result);
  return result;
}

std::optional<stdfs::path>
downloaded_wheel(const std::string& distribution, const std::string& version, const std::string& python)
{
  std::string tag = "cp" + python.substr(0, python.find('.')) + python.substr(python.find('.') + 1);
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(opkit_home() / "downloads", ec)) {
    std::optional<WheelName> name = parse_wheel_name(entry.path().filename().string());
    if (name && name->project == normalize_project(distribution) && name->version == version
        && std::find(name->pythons.begin(), name->pythons.end(), tag) != name->pythons.end()
        && entry.is_regular_file(ec) && !entry.is_symlink(ec)) {
      return entry.path();
    }
  }
  return std::nullopt;
}

} // namespace opkit::sdk
