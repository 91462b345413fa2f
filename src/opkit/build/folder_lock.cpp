#include "opkit/build/folder_lock.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace opkit::build {

namespace stdfs = std::filesystem;

namespace {

// This process as its user typed it ("opkit build --tf 1.12"), for a waiter to read.
std::string
own_command_line()
{
  std::vector<std::string> argv = own_argv();
  if (argv.empty() || argv.front().empty()) {
    return "opkit";
  }
  argv.front() = stdfs::path(argv.front()).filename().string();
  return join(argv, " ");
}

// Which file a path names (device, inode); {0, 0} when none is there.
using FileId = std::pair<dev_t, ino_t>;

FileId
file_id(const stdfs::path& path)
{
  struct stat st
  {};
  if (::stat(path.c_str(), &st) != 0) {
    return FileId{};
  }
  return FileId{st.st_dev, st.st_ino};
}

} // namespace

std::unique_ptr<fs::FileLock>
lock_build_folder(const stdfs::path& build_root, bool wait)
{
  stdfs::path path = build_root / ".opkit-build.lock";
  std::unique_ptr<fs::FileLock> lock;
  // `opkit clean` deletes the lock file while it holds it: a lock taken on a
  // file no longer at `path` (or on one made new) is taken again.
  for (FileId before; before == FileId{} || before != file_id(path);) {
    lock.reset();
    before = file_id(path);
    lock = std::make_unique<fs::FileLock>(path, fs::FileLock::Kind::exclusive, fs::FileLock::Wait::give_up);
    if (!lock->held()) {
      std::string holder = fs::FileLock::holder(path);
      if (!wait) {
        fail(ExitCode::system,
             "{}: in use by {}: another build of this folder is running (without --no-wait, opkit waits)", build_root,
             holder);
      }
      log_info("waiting for {} to finish with {} ...", holder, build_root.string());
      lock = std::make_unique<fs::FileLock>(path);
    }
  }
  lock->set_holder(fmt::format("{} (pid {})", escape_clipped(own_command_line(), 157), ::getpid()));
  return lock;
}

} // namespace opkit::build
