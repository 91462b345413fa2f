#include "opkit/builder/clean.hpp"

#include "opkit/builder/folder_lock.hpp"
#include "opkit/cpu/verdict.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"

#include <memory>
#include <system_error>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

// Whether `inner` is strictly inside `outer`, both with their symlinks resolved.
bool
strictly_inside(const stdfs::path& inner, const stdfs::path& outer)
{
  std::error_code ec;
  stdfs::path relative = stdfs::weakly_canonical(inner, ec).lexically_relative(stdfs::weakly_canonical(outer, ec));
  return !ec && !relative.empty() && relative != "." && *relative.begin() != "..";
}

// With --all: the CPU findings kept in $OPKIT_HOME/cache/cpu for the libraries
// of `build_root`, those still there and those removed since they were checked.
size_t
remove_kept_findings(const stdfs::path& build_root)
{
  size_t removed = 0;
  for (const stdfs::path& folder : cpu::kept_findings_folders(
         [&](const std::optional<stdfs::path>& library) { return library && strictly_inside(*library, build_root); })) {
    std::error_code removing;
    removed += stdfs::remove_all(folder, removing) > 0 ? 1 : 0;
  }
  return removed;
}

} // namespace

CleanReport
clean_build_folder(const stdfs::path& project_root, const stdfs::path& build_root, bool all, bool wait)
{
  CleanReport report;
  report.build_root = project::build_root(project_root, build_root);
  if (!strictly_inside(report.build_root, project_root)) {
    fail(ExitCode::usage, "{}: not a folder inside the project {}: opkit clean removes nothing outside it",
         report.build_root, project_root);
  }
  std::error_code ec;
  if (stdfs::is_symlink(report.build_root, ec)) {
    fs::refuse_link(report.build_root, "build folder",
                    "remove the link itself: opkit clean deletes nothing it leads to");
  }
  if (!stdfs::is_directory(stdfs::symlink_status(report.build_root, ec))) {
    return report; // nothing built yet (or already clean)
  }
  report.existed = true;
  // Held while the folder goes: a build waiting for it takes it again on the
  // lock file it finds afterwards (lock_build_folder). Links planted in the
  // folder go as links (remove_all never follows one).
  std::unique_ptr<HeldBuildFolder> lock = lock_build_folder(report.build_root, wait, PlantedLinks::remove);
  report.bytes = fs::disk_size(report.build_root);
  if (all) {
    report.kept_findings = remove_kept_findings(report.build_root);
  }
  stdfs::path lock_file = report.build_root / ".opkit-build.lock";
  for (const stdfs::directory_entry& entry : stdfs::directory_iterator(report.build_root)) {
    if (entry.path() != lock_file) {
      stdfs::remove_all(entry.path(), ec);
      if (ec) {
        fail(ExitCode::system, "{}: cannot remove: {}", entry.path(), ec.message());
      }
    }
  }
  stdfs::remove(lock_file, ec);
  stdfs::remove(report.build_root, ec); // a build that started meanwhile keeps it
  return report;
}

} // namespace opkit::builder
