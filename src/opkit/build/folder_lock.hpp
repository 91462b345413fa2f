#pragma once

// Builds of one build folder take turns. Ninja keeps one log and one deps
// file per build folder (.ninja_log, .ninja_deps, for every target in it), and
// a link replaces its library in place: two ninjas in one folder would race
// on both. So `opkit build` (and the build `opkit test` and `opkit package`
// run first) holds the folder's lock from writing its plan until its results
// are read; a second one waits, saying for whom, or with --no-wait fails at
// once naming the holder. `opkit clean` (clean.hpp) deletes the lock file
// while it holds it; a waiter then locks the file it finds at the path anew.
#include "opkit/util/fs.hpp"

#include <filesystem>
#include <memory>

namespace opkit::build {

// The lock of `build_root` (build/.opkit-build.lock), held by the result.
// With `wait` false a held lock is Error(system) naming the holder.
std::unique_ptr<fs::FileLock>
lock_build_folder(const std::filesystem::path& build_root, bool wait);

} // namespace opkit::build
