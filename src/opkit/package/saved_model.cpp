#include "opkit/package/saved_model.hpp"

#include "opkit/check/target.hpp"
#include "opkit/package/package.hpp"
#include "opkit/project/version.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"

#include <algorithm>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

void
check_export_dir(const stdfs::path& dir)
{
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec)) {
    fail(ExitCode::usage, "{}: no such SavedModel folder", dir);
  }
  if (!stdfs::is_regular_file(dir / "saved_model.pb", ec) && !stdfs::is_regular_file(dir / "saved_model.pbtxt", ec)) {
    fail(ExitCode::usage, "{}: not a SavedModel (no saved_model.pb or saved_model.pbtxt)", dir);
  }
}

std::string
newest_target(const project::Manifest& manifest)
{
  if (manifest.tf_versions.empty()) {
    fail(ExitCode::usage, "saved-model: pass --tf (the serving runtime's TensorFlow version)");
  }
  return *std::max_element(
    manifest.tf_versions.begin(), manifest.tf_versions.end(),
    [](const std::string& a, const std::string& b) { return *project::parse_version(a) < *project::parse_version(b); });
}

void
copy_into(const stdfs::path& source, const stdfs::path& dest)
{
  std::error_code ec;
  stdfs::copy_file(source, dest, stdfs::copy_options::overwrite_existing, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot copy to {}: {}", source, dest, ec.message());
  }
}

// The manifest lists everything in assets/, so `opkit package verify EXPORT_DIR/assets` checks it all.
void
write_assets_manifest(const stdfs::path& staged, const std::string& name,
                      const std::vector<std::pair<std::string, Json>>& libraries, SavedModelResult& result)
{
  std::vector<ArchiveMember> members;
  for (const auto& entry : stdfs::recursive_directory_iterator(staged)) {
    std::string relative = entry.path().lexically_relative(staged).generic_string();
    if (entry.is_regular_file() && relative != k_manifest_name) {
      members.push_back({relative, entry.path(), {}, false});
      result.assets.push_back(relative);
    }
  }
  std::sort(result.assets.begin(), result.assets.end());
  Json manifest = make_manifest("saved-model-assets", name, members, libraries);
  fs::write_file_atomic(staged / k_manifest_name, manifest.dump(2) + "\n");
  result.assets.push_back(k_manifest_name);
}

} // namespace

SavedModelResult
package_saved_model(const project::Manifest& manifest, const SavedModelOptions& options)
{
  check_export_dir(options.export_dir);
  for (const stdfs::path& asset : options.assets) {
    std::error_code ec;
    if (!stdfs::is_regular_file(asset, ec)) {
      fail(ExitCode::usage, "{}: no such asset file", asset);
    }
  }
  std::string spec = options.tf_spec.empty() ? newest_target(manifest) : options.tf_spec;
  std::vector<BuiltLibrary> built = collect_built(manifest, {spec}, options.build_root);

  SavedModelResult result;
  for (const BuiltLibrary& library : built) {
    result.check = check::check_library(library.path, check::make_check_target(library.sdk, options.runtime, {}));
    if (!result.check.loads && !options.force) {
      const check::Finding& first = result.check.findings.front();
      throw Error(
        ExitCode::failed,
        fmt::format("{}: would not load in {}: [{}] {}", library.path, result.check.target, first.kind, first.summary),
        "`opkit check` shows every finding; --force adds it anyway");
    }
    if (!result.check.loads) {
      break; // the one --force lets through is the one reported
    }
  }

  result.assets_dir = options.export_dir / "assets";
  fs::StagingDir staging(options.export_dir);
  std::error_code ec;
  if (stdfs::is_directory(result.assets_dir, ec)) {
    stdfs::copy(result.assets_dir, staging.path(), stdfs::copy_options::recursive, ec);
    if (ec) {
      fail(ExitCode::system, "{}: cannot copy: {}", result.assets_dir, ec.message());
    }
  }
  std::vector<std::pair<std::string, Json>> libraries;
  for (const BuiltLibrary& library : built) {
    std::string file = library.path.filename().string();
    copy_into(library.path, staging.path() / file);
    libraries.emplace_back(file, library.facts);
  }
  for (const stdfs::path& asset : options.assets) {
    copy_into(asset, staging.path() / asset.filename());
  }
  write_assets_manifest(staging.path(), manifest.name, libraries, result);
  staging.commit(result.assets_dir, /*replace=*/true);
  return result;
}

} // namespace opkit::package
