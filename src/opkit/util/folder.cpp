#include "opkit/util/folder.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <cerrno>
#include <cstring>
#include <random>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opkit::fs {

namespace stdfs = std::filesystem;

namespace {

// Where a link leads, as it is written (clipped, escaped); "?" when unreadable.
std::string
link_target(const stdfs::path& path)
{
  std::error_code ec;
  stdfs::path target = stdfs::read_symlink(path, ec);
  return ec ? std::string("?") : escape_clipped(target.string(), 200);
}

bool
is_link_at(int dir, const char* name)
{
  struct stat st
  {};
  return ::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

std::string
temp_name(std::string_view name)
{
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned>(::getpid())};
  return fmt::format(".{}.tmp.{}.{:012x}", name, ::getpid(), rng() & 0xffffffffffffULL);
}

// A plain name: no folder part, not "." or "..", no NUL.
void
require_plain(std::string_view name)
{
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos
      || name.find('\0') != std::string_view::npos) {
    fail(ExitCode::usage, "'{}': not a plain file name", escape_clipped(name, 100));
  }
}

} // namespace

namespace {

// Why a folder could not be opened (`error`, errno): a link, not a folder, or the system's cause.
[[noreturn]] void
refuse_folder(const stdfs::path& path, std::string_view what, int error, bool is_link)
{
  if (is_link) {
    refuse_link(path, what);
  }
  if (error == ENOTDIR) {
    fail(ExitCode::usage, "{}: not a folder, so not opkit's {}", escape_clipped(path.string(), 400), what);
  }
  fail(ExitCode::system, "{}: cannot open the {}: {}", escape_clipped(path.string(), 400), what, std::strerror(error));
}

} // namespace

void
refuse_link(const stdfs::path& path, std::string_view what, std::string_view hint)
{
  throw Error(ExitCode::usage,
              fmt::format("{}: a symbolic link (to {}) where opkit keeps its {}: opkit does not follow it",
                          escape_clipped(path.string(), 400), link_target(path), what),
              hint.empty() ? std::string("remove it: opkit writes there only what it made itself") : std::string(hint));
}

Folder
Folder::open(const stdfs::path& path, std::string_view what, bool create)
{
  std::error_code ec;
  if (stdfs::is_symlink(path, ec)) {
    refuse_link(path, what);
  }
  if (create) {
    create_dirs(path);
  }
  UniqueFd fd{::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (!fd.valid()) {
    int error = errno;
    refuse_folder(path, what, error, error == ELOOP || (error == ENOTDIR && stdfs::is_symlink(path, ec)));
  }
  return Folder(path, std::move(fd));
}

Folder
Folder::child(std::string_view name, std::string_view what, bool create) const
{
  require_plain(name);
  std::string text(name);
  stdfs::path path = m_path / text;
  if (create && ::mkdirat(m_fd.get(), text.c_str(), 0755) != 0 && errno != EEXIST) {
    fail(ExitCode::system, "{}: cannot create folder: {}", escape_clipped(path.string(), 400), std::strerror(errno));
  }
  UniqueFd fd{::openat(m_fd.get(), text.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
  if (!fd.valid()) {
    int error = errno;
    refuse_folder(path, what, error, error == ELOOP || is_link_at(m_fd.get(), text.c_str()));
  }
  return Folder(path, std::move(fd));
}

UniqueFd
Folder::open_file(std::string_view name, int flags, int mode, bool* gone) const
{
  require_plain(name);
  std::string text(name);
  stdfs::path path = m_path / text;
  // O_NONBLOCK: a FIFO planted there must not block the open; a regular file ignores it.
  UniqueFd fd{::openat(m_fd.get(), text.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode)};
  if (!fd.valid()) {
    int error = errno;
    if (gone != nullptr && error == ENOENT && (flags & O_CREAT) != 0) {
      *gone = true;
      return fd;
    }
    if (error == ELOOP || is_link_at(m_fd.get(), text.c_str())) {
      refuse_link(path, "files");
    }
    if (error == EISDIR) {
      fail(ExitCode::usage, "{}: a folder where opkit keeps a file", escape_clipped(path.string(), 400));
    }
    fail(ExitCode::system, "{}: cannot open: {}", escape_clipped(path.string(), 400), std::strerror(error));
  }
  struct stat st
  {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    fail(ExitCode::usage, "{}: not a regular file (a FIFO, socket or device) where opkit keeps a file",
         escape_clipped(path.string(), 400));
  }
  int status = ::fcntl(fd.get(), F_GETFL);
  if (status >= 0) {
    ::fcntl(fd.get(), F_SETFL, status & ~O_NONBLOCK);
  }
  return fd;
}

std::optional<std::string>
Folder::read(std::string_view name, size_t max_bytes, bool* too_large) const
{
  require_plain(name);
  std::string text(name);
  UniqueFd fd{::openat(m_fd.get(), text.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)};
  struct stat st
  {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    if (too_large != nullptr) {
      *too_large = true;
    }
    return std::nullopt;
  }
  std::string content(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::read(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break; // shrunk meanwhile: what was read
    }
    done += static_cast<size_t>(n);
  }
  content.resize(done);
  return content;
}

void
Folder::write_atomic(std::string_view name, std::string_view content, int mode) const
{
  require_plain(name);
  std::string text(name);
  stdfs::path path = m_path / text;
  std::string temp = temp_name(name);
  UniqueFd fd{::openat(m_fd.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)};
  if (!fd.valid()) {
    fail(ExitCode::system, "{}: cannot create: {}", escape_clipped(path.string(), 400), std::strerror(errno));
  }
  try {
    write_all(fd.get(), content, path);
  } catch (...) {
    ::unlinkat(m_fd.get(), temp.c_str(), 0);
    throw;
  }
  fd.reset();
  // renameat replaces whatever is at the name, a link included, and never writes through it.
  if (::renameat(m_fd.get(), temp.c_str(), m_fd.get(), text.c_str()) != 0) {
    int error = errno;
    ::unlinkat(m_fd.get(), temp.c_str(), 0);
    fail(ExitCode::system, "{}: cannot rename into place: {}", escape_clipped(path.string(), 400),
         std::strerror(error));
  }
}

bool
Folder::write_if_changed(std::string_view name, std::string_view content) const
{
  if (std::optional<std::string> now = read(name, content.size()); now && *now == content) {
    return false;
  }
  write_atomic(name, content);
  return true;
}

std::vector<std::string>
Folder::regular_files() const
{
  std::vector<std::string> names;
  int copy = ::openat(m_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (dir == nullptr) {
    if (copy >= 0) {
      ::close(copy);
    }
    return names;
  }
  while (dirent* entry = ::readdir(dir)) {
    struct stat st
    {};
    if (::fstatat(m_fd.get(), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
      names.emplace_back(entry->d_name);
    }
  }
  ::closedir(dir);
  return names;
}

bool
Folder::remove_file(std::string_view name) const
{
  require_plain(name);
  std::string text(name);
  struct stat st
  {};
  if (::fstatat(m_fd.get(), text.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
    return false;
  }
  return ::unlinkat(m_fd.get(), text.c_str(), 0) == 0;
}

long long
Folder::mtime_ns(std::string_view name) const
{
  std::string text(name);
  struct stat st
  {};
  if (::fstatat(m_fd.get(), text.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
    return -1;
  }
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

std::optional<stdfs::path>
find_link_below(const stdfs::path& root, bool (*allowed)(const stdfs::path& relative))
{
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code entry_ec;
    if (it->is_symlink(entry_ec)) {
      if (allowed == nullptr || !allowed(it->path().lexically_relative(root))) {
        return it->path();
      }
    }
  }
  return std::nullopt;
}

} // namespace opkit::fs
