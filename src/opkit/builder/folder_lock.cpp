#include "opkit/builder/folder_lock.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

const char* const k_lock_name = ".opkit-build.lock";

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

// Whether `fd` is still the file at `name` in `dir` (`opkit clean` may have
// removed it while we waited).
bool
same_file(int fd, int dir, const char* name)
{
  struct stat held
  {};
  struct stat there
  {};
  return ::fstat(fd, &held) == 0 && ::fstatat(dir, name, &there, AT_SYMLINK_NOFOLLOW) == 0
         && held.st_dev == there.st_dev && held.st_ino == there.st_ino;
}

} // namespace

bool
is_opkit_link(const stdfs::path& relative)
{
  auto part = relative.begin();
  if (part == relative.end() || ++part == relative.end()) {
    return false;
  }
  if (*part == "sdk" && std::next(part) == relative.end()) {
    return true; // <target>/sdk: the SDK under one name on every machine, for shared compile caches
  }
  return *part == "opkit" && ++part != relative.end() && *part == "cuda" && ++part != relative.end();
}

std::unique_ptr<HeldBuildFolder>
lock_build_folder(const stdfs::path& build_root, bool wait, PlantedLinks links)
{
  for (;;) {
    fs::Folder folder = fs::Folder::open(build_root, "build folder", true);
    struct stat st
    {};
    if (::fstatat(folder.fd(), k_lock_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      if (links == PlantedLinks::refuse) {
        fs::refuse_link(build_root / k_lock_name, "build folder's lock",
                        "remove it, or the whole build folder with `opkit clean`");
      }
      ::unlinkat(folder.fd(), k_lock_name, 0); // the link goes, never what it points at
    }
    auto lock =
      std::make_unique<fs::FileLock>(folder, k_lock_name, fs::FileLock::Kind::exclusive, fs::FileLock::Wait::give_up);
    if (lock->folder_gone()) {
      continue; // `opkit clean` removed it between the open and the lock: made again
    }
    if (!lock->held()) {
      std::string holder = fs::FileLock::holder(folder, k_lock_name);
      if (!wait) {
        fail(ExitCode::system,
             "{}: in use by {}: another build of this folder is running (without --no-wait, opkit waits)", build_root,
             holder);
      }
      log_info("waiting for {} to finish with {} ...", holder, build_root.string());
      lock->wait(); // on the file found held: its removal is seen below
    }
    // `opkit clean` deletes the lock file and the folder while it holds the
    // lock: a lock on a file no longer at its path is taken again.
    struct stat now
    {};
    if (!same_file(lock->fd(), folder.fd(), k_lock_name) || ::stat(build_root.c_str(), &now) != 0
        || ::fstat(folder.fd(), &st) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
      continue;
    }
    if (links == PlantedLinks::refuse) {
      if (std::optional<stdfs::path> link = fs::find_link_below(build_root, is_opkit_link)) {
        fs::refuse_link(*link, "build outputs", "remove it, or the whole build folder with `opkit clean`");
      }
    }
    lock->set_holder(fmt::format("{} (pid {})", escape_clipped(own_command_line(), 157), ::getpid()));
    return std::make_unique<HeldBuildFolder>(std::move(folder), std::move(lock));
  }
}

} // namespace opkit::builder
