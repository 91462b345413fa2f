#include "opkit/builder/outdated.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/process.hpp"

#include <algorithm>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

// Why the target needs a build, or "" when it is up to date.
std::string
stale_reason(const project::Manifest& manifest, const stdfs::path& dir,
             const std::vector<const project::LibrarySpec*>& libraries, const sdk::Sdk& sdk)
{
  std::error_code ec;
  if (std::none_of(libraries.begin(), libraries.end(), [&sdk](const project::LibrarySpec* library) {
        return library->builds_for(sdk.version, sdk.cuda.is_cuda_build);
      })) {
    return ""; // nothing to build for this version: `opkit build` skips it
  }
  for (const project::LibrarySpec* library : libraries) {
    // A Python module's files are named per CPython: ninja's dry run below sees a missing one.
    if (library->builds_for(sdk.version, sdk.cuda.is_cuda_build) && library->python_module.empty()
        && !stdfs::is_regular_file(dir / library->output, ec)) {
      return "not built yet";
    }
  }
  stdfs::path ninja_file = dir / "build.ninja";
  if (!stdfs::is_regular_file(ninja_file, ec)) {
    return "not built yet";
  }
  stdfs::file_time_type yaml = stdfs::last_write_time(manifest.root / "opkit.yaml", ec);
  if (!ec && yaml > stdfs::last_write_time(ninja_file, ec)) {
    return "opkit.yaml changed";
  }
  // Target files name their paths from the build folder, where the one ninja runs (run_build).
  ProcessResult dry =
    run_process({"ninja", "-C", dir.parent_path().string(), "-f", (dir.filename() / "build.ninja").string(), "-n"});
  if (dry.exit_code != 0 || dry.out.find("ninja: no work to do.") == std::string::npos) {
    return "sources changed";
  }
  return "";
}

} // namespace

std::vector<OutdatedTarget>
outdated_targets(const project::Manifest& manifest, const std::vector<std::string>& specs,
                 const stdfs::path& build_root, const std::vector<std::string>& selected)
{
  std::vector<const project::LibrarySpec*> libraries = manifest.select_libraries(selected);
  stdfs::path root = project::build_root(manifest.root, build_root);
  std::vector<OutdatedTarget> outdated;
  for (const std::string& spec : specs.empty() ? manifest.target_versions : specs) {
    sdk::Sdk sdk = sdk::resolve_sdk(spec, manifest.framework);
    std::string reason = stale_reason(manifest, target_dir(root, sdk), libraries, sdk);
    if (!reason.empty()) {
      outdated.push_back({spec, sdk.id, reason});
    }
  }
  return outdated;
}

void
mark_fresh(const stdfs::path& target_dir)
{
  std::error_code ec;
  stdfs::last_write_time(target_dir / "build.ninja", stdfs::file_time_type::clock::now(), ec);
}

} // namespace opkit::builder
