#include "opkit/probe/probe_runtime.hpp"

#include "opkit/elf/elf_file.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/facts.hpp"
#include "opkit/sdk/index.hpp"
#include "opkit/util/archive.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/progress.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <fstream>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

// A runtime library is a few MB (libcupti.so.12: 10 MB); a bigger member is not one.
constexpr int64_t k_max_library_bytes = 256LL << 20;

// Copies the wheel's member named `library` (in any folder) to `dest`; false when it has none.
bool
extract_library(const stdfs::path& wheel, const std::string& library, const stdfs::path& dest)
{
  bool found = false;
  for_each_archive_entry(wheel, [&](ArchiveEntry& entry) {
    if (found || !entry.is_regular || stdfs::path(entry.path).filename() != library) {
      return;
    }
    if (entry.size > k_max_library_bytes) {
      fail(ExitCode::usage, "{}: {} is {} bytes, more than a runtime library's {}", wheel, entry.path, entry.size,
           k_max_library_bytes);
    }
    std::ofstream out(dest, std::ios::binary);
    char buffer[1 << 16];
    for (size_t n = entry.read(buffer, sizeof buffer); n > 0; n = entry.read(buffer, sizeof buffer)) {
      out.write(buffer, static_cast<std::streamsize>(n));
    }
    if (!out) {
      fail(ExitCode::system, "{}: cannot write", dest);
    }
    found = true;
  });
  return found;
}

} // namespace

stdfs::path
ensure_probe_runtime(const sdk::Sdk& sdk, const stdfs::path& probe_dir)
{
  const auto& needs = project::FrameworkTable::get(sdk.framework).probe_runtime();
  if (needs.empty()) {
    return {};
  }
  stdfs::path runtime = probe_dir / "runtime";
  std::error_code ec;
  if (stdfs::is_regular_file(runtime / ".complete", ec)) {
    return runtime;
  }
  std::string metadata = fs::read_file(sdk.root / "dist-info" / "METADATA");
  // Only what the framework library itself needs (its DT_NEEDED): CUDA 12's
  // sonames for torch up to 2.10, CUDA 13's from 2.11.
  std::vector<std::string> needed = elf::read_elf(sdk.lib_dir() / sdk.framework_library).needed;
  stdfs::path staging = probe_dir / "runtime.partial";
  stdfs::remove_all(staging, ec);
  fs::create_dirs(staging / "wheels");
  for (const auto& [library, source] : needs) {
    if (std::find(needed.begin(), needed.end(), library) == needed.end()) {
      continue;
    }
    // "nvidia-cuda-runtime-cu12": a distribution the METADATA pins; "cuda-toolkit[cudart]":
    // the meta-package the METADATA pins with that extra, whose own pins pip follows.
    size_t bracket = source.find('[');
    std::string distribution = source.substr(0, bracket);
    std::string extra =
      bracket == std::string::npos ? std::string() : source.substr(bracket + 1, source.find(']') - bracket - 1);
    std::string version = sdk::pinned_version(metadata, distribution, extra);
    if (version.empty()) {
      throw Error(ExitCode::missing,
                  fmt::format("{}: its wheel's METADATA pins no version of {}, which gives {} (needed to load {})",
                              sdk.id, source, library, sdk.framework_library),
                  "import the framework's wheel again (`opkit sdk add`), with its dist-info");
    }
    std::string requirement = source + "==" + version;
    stdfs::path dir = staging / "wheels" / library;
    ProcessResult pip;
    {
      progress::Step step(fmt::format("downloading {} for {}'s load probe", requirement, sdk.id));
      log_info("{}: pip download {} (once: {} needs its {}) ...", sdk.id, requirement, sdk.framework_library, library);
      // Any Python: these wheels are py3-none; a meta-package's extra brings its pins (so no --no-deps).
      std::vector<std::string> argv = {"python3", "-m", "pip", "download", "--quiet", "--only-binary=:all:"};
      if (extra.empty()) {
        argv.emplace_back("--no-deps");
      }
      for (const std::string& platform : sdk::pip_platform_tags()) {
        argv.insert(argv.end(), {"--platform", platform});
      }
      argv.insert(argv.end(), {"-d", dir.string(), requirement});
      pip = run_process(argv);
    }
    if (std::string offline = pip.exit_code == 0 ? "" : network_failure_said(pip.out + pip.err); !offline.empty()) {
      stdfs::remove_all(staging, ec);
      throw network_unreachable(sdk.id, "pip download " + requirement, offline);
    }
    bool found = false;
    for (const auto& wheel : stdfs::directory_iterator(dir)) {
      found = found || extract_library(wheel.path(), library, staging / library);
    }
    if (!found) {
      stdfs::remove_all(staging, ec);
      fail(ExitCode::missing, "{}: {} holds no {}", sdk.id, requirement, library);
    }
  }
  stdfs::remove_all(staging / "wheels", ec);
  fs::write_file_atomic(staging / ".complete", "");
  stdfs::remove_all(runtime, ec);
  stdfs::rename(staging, runtime, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", runtime, ec.message());
  }
  return runtime;
}

} // namespace opkit::probe
