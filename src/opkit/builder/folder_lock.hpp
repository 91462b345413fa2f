#pragma once

// Builds of one build folder take turns. Ninja keeps one log and one deps
// file per build folder (.ninja_log, .ninja_deps, for every target in it), and
// a link replaces its library in place: two ninjas in one folder would race
// on both. So `opkit build` (and `opkit test` and `opkit package`, from the
// build they run first to their last use of the libraries) holds the folder's
// lock; a second one waits, saying for whom, or with --no-wait fails at once
// naming the holder. `opkit clean` (clean.hpp) deletes the lock file while it
// holds it; a waiter then locks the file it finds at the path anew.
//
// The build folder is opkit's alone, but a repository can commit anything
// into it, symbolic links included, and git keeps them. The folder is opened
// without following a link, the lock in it likewise (util/folder), and once
// the lock is held no link may be under it but the CUDA include map opkit
// and the SDK link opkit makes itself (<target>/opkit/cuda/..., <target>/sdk):
// a planted one is refused, naming it, before ninja, a compiler or opkit
// writes through it (those two opkit replaces with its own when they differ).
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"

#include <filesystem>
#include <memory>

namespace opkit::builder {

// The build folder, opened, with its lock held while this lives.
class HeldBuildFolder
{
public:
  HeldBuildFolder(fs::Folder folder, std::unique_ptr<fs::FileLock> lock)
    : m_folder(std::move(folder))
    , m_lock(std::move(lock))
  {
  }
  const fs::Folder& folder() const { return m_folder; }

private:
  fs::Folder m_folder;
  std::unique_ptr<fs::FileLock> m_lock;
};

// What to do with a symbolic link planted in the build folder: refuse it
// (Error(usage) naming it), or, for `opkit clean`, leave it to be removed as
// a link (the lock file, when it is one, is removed first: never followed).
enum class PlantedLinks
{
  refuse,
  remove,
};

// Opens `build_root` (made when missing) and takes its lock
// (build/.opkit-build.lock). With `wait` false a held lock is Error(system)
// naming the holder.
std::unique_ptr<HeldBuildFolder>
lock_build_folder(const std::filesystem::path& build_root, bool wait, PlantedLinks links = PlantedLinks::refuse);

// Whether a link at `relative` (to the build folder) is one opkit makes: the
// CUDA toolkit's include map under <target>/opkit/cuda/, the SDK's <target>/sdk.
bool
is_opkit_link(const std::filesystem::path& relative);

} // namespace opkit::builder
