#include "opkit/util/fs.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/folder.hpp"

#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opkit::fs {

namespace {

std::string
random_suffix()
{
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned>(getpid())};
  return fmt::format("{:012x}", rng() & 0xffffffffffffULL);
}

} // namespace

void
write_all(int fd, std::string_view content, const stdfs::path& path)
{
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(ExitCode::system, "{}: cannot write: {}", path, std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

std::string
read_file(const stdfs::path& path)
{
  // O_NONBLOCK: a FIFO at the path must not block the open (it is refused below).
  UniqueFd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (!fd.valid()) {
    int error = errno;
    if (error == ELOOP) {
      fail(ExitCode::usage, "{}: a loop of symbolic links", path);
    }
    fail(ExitCode::system, "{}: cannot read: {}", path, std::strerror(error));
  }
  struct stat st
  {};
  if (::fstat(fd.get(), &st) != 0) {
    fail(ExitCode::system, "{}: cannot read: {}", path, std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    fail(ExitCode::usage, "{}: a folder, not a file", path);
  }
  if (!S_ISREG(st.st_mode)) {
    fail(ExitCode::usage, "{}: not a regular file (a FIFO, socket or device)", path);
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) {
    ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  }
  std::string content;
  content.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) { // to the end, not to st_size: /proc's files say 0
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(ExitCode::system, "{}: cannot read: {}", path, std::strerror(errno));
    }
    if (n == 0) {
      return content;
    }
    content.append(buffer, static_cast<size_t>(n));
  }
}

namespace {

// stat()s `path` into `st`: the cause when that fails, else "".
std::string
stat_problem(const stdfs::path& path, std::string_view what, struct stat& st)
{
  if (::stat(path.c_str(), &st) == 0) {
    return {};
  }
  int error = errno;
  return error == ENOENT  ? fmt::format("no such {}", what)
         : error == ELOOP ? std::string("a loop of symbolic links")
                          : fmt::format("cannot read: {}", std::strerror(error));
}

} // namespace

InputKind
require_input(const stdfs::path& path, std::string_view what)
{
  struct stat st = {};
  if (std::string problem = stat_problem(path, what, st); !problem.empty()) {
    fail(ExitCode::usage, "{}: {}", path, problem);
  }
  if (S_ISREG(st.st_mode)) {
    return InputKind::file;
  }
  if (S_ISDIR(st.st_mode)) {
    return InputKind::folder;
  }
  fail(ExitCode::usage, "{}: not a regular file or folder (a FIFO, socket or device), so not a {}", path, what);
}

std::string
file_problem(const stdfs::path& path, std::string_view what)
{
  struct stat st = {};
  std::string problem = stat_problem(path, what, st);
  if (problem.empty() && S_ISDIR(st.st_mode)) {
    return fmt::format("a folder, not a {}", what);
  }
  if (problem.empty() && !S_ISREG(st.st_mode)) {
    return fmt::format("not a regular file (a FIFO, socket or device), so not a {}", what);
  }
  return problem;
}

void
require_file(const stdfs::path& path, std::string_view what)
{
  if (std::string problem = file_problem(path, what); !problem.empty()) {
    fail(ExitCode::usage, "{}: {}", path, problem);
  }
}

namespace {

const int64_t k_empty_temporary_grace_seconds = 60;

// Whether the process that named a temporary "<pid>.<random>" still runs on
// this host (one that cannot be told, or is not this host's, counts as alive).
bool
writer_lives(std::string_view pid_and_random)
{
  size_t dot = pid_and_random.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot > 9) {
    return true;
  }
  long pid = 0;
  for (char c : pid_and_random.substr(0, dot)) {
    if (c < '0' || c > '9') {
      return true;
    }
    pid = pid * 10 + (c - '0');
  }
  return pid == 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

// Removes the temporaries of `path` that killed writers left: see AtomicFile.
// Never follows a link, never opens anything but a regular file, never blocks.
void
remove_stale_temporaries(const stdfs::path& path)
{
  std::string prefix = "." + path.filename().string() + ".tmp.";
  stdfs::path folder = path.parent_path().empty() ? stdfs::path(".") : path.parent_path();
  std::error_code ec;
  for (stdfs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const stdfs::path& leftover = it->path();
    if (leftover.filename().string().compare(0, prefix.size(), prefix) != 0) {
      continue;
    }
    UniqueFd fd{::open(leftover.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
    struct stat st
    {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)
        || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      continue; // not ours to judge, or a live writer holds it
    }
    if (st.st_size > 0 || !writer_lives(leftover.filename().string().substr(prefix.size()))
        || ::time(nullptr) - st.st_mtime > k_empty_temporary_grace_seconds) {
      ::unlink(leftover.c_str());
    }
  }
}

} // namespace

AtomicFile::AtomicFile(const stdfs::path& path, int mode)
  : m_path(path)
{
  remove_stale_temporaries(path);
  m_temp = path.parent_path() / fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), random_suffix());
  m_fd.reset(::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!m_fd.valid()) {
    // Named as the file it becomes: the hidden temporary means nothing to the user.
    fail(ExitCode::system, "{}: cannot create: {}", path, std::strerror(errno));
  }
  // Blocking: a sweeper may hold it for an instant, judging it.
  while (::flock(m_fd.get(), LOCK_EX) != 0 && errno == EINTR) {
  }
}

AtomicFile::~AtomicFile()
{
  if (!m_committed) {
    ::unlink(m_temp.c_str()); // then the lock goes, with the descriptor
  }
}

void
AtomicFile::commit()
{
  if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", m_path, std::strerror(errno));
  }
  m_committed = true;
  m_fd.reset();
}

void
write_file_atomic(const stdfs::path& path, std::string_view content, bool executable)
{
  AtomicFile file(path, executable ? 0755 : 0644);
  write_all(file.fd(), content, path);
  file.commit();
}

void
copy_file(const stdfs::path& source, const stdfs::path& dest)
{
  UniqueFd in{::open(source.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st
  {};
  if (!in.valid() || ::fstat(in.get(), &st) != 0) {
    fail(ExitCode::system, "{}: cannot read: {}", source, std::strerror(errno));
  }
  UniqueFd out{::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777)};
  if (!out.valid()) {
    fail(ExitCode::system, "{}: cannot create: {}", dest, std::strerror(errno));
  }
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(in.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(ExitCode::system, "{}: cannot read: {}", source, std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    write_all(out.get(), std::string_view(buffer, static_cast<size_t>(n)), dest);
  }
  // A full disk may only be told when the file is closed (NFS, quotas).
  if (::close(out.release()) != 0) {
    fail(ExitCode::system, "{}: cannot write: {}", dest, std::strerror(errno));
  }
}

bool
write_file_if_changed(const stdfs::path& path, std::string_view content)
{
  std::error_code ec;
  if (stdfs::is_regular_file(path, ec) && stdfs::file_size(path, ec) == content.size() && read_file(path) == content) {
    return false;
  }
  write_file_atomic(path, content);
  return true;
}

uint64_t
disk_size(const stdfs::path& path)
{
  std::error_code ec;
  if (stdfs::is_regular_file(path, ec)) {
    return stdfs::file_size(path, ec);
  }
  uint64_t total = 0;
  for (auto it = stdfs::recursive_directory_iterator(path, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code gone; // a file removed while we walk counts nothing
    uintmax_t size = it->is_regular_file(gone) ? it->file_size(gone) : 0;
    total += gone ? 0 : size;
  }
  return total;
}

void
create_dirs(const stdfs::path& path)
{
  std::error_code ec;
  stdfs::create_directories(path, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot create folder: {}", path, ec.message());
  }
}

namespace {

// madvise over the pages that hold `bytes`; whether the kernel took it.
bool
advise(std::string_view bytes, int advice)
{
  if (bytes.empty()) {
    return true;
  }
  auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto begin = reinterpret_cast<uintptr_t>(bytes.data()) & ~(page - 1);
  auto end = reinterpret_cast<uintptr_t>(bytes.data()) + bytes.size();
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, advice) == 0;
}

} // namespace

void
prefault(std::string_view bytes)
{
#ifdef MADV_POPULATE_READ
  if (advise(bytes, MADV_POPULATE_READ)) {
    return;
  }
#endif
  advise(bytes, MADV_WILLNEED);
}

void
advise_random(std::string_view bytes)
{
  advise(bytes, MADV_RANDOM);
}

MappedFile::MappedFile(const stdfs::path& path, Mode mode)
{
  UniqueFd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!fd.valid()) {
    fail(ExitCode::system, "{}: cannot read: {}", path, std::strerror(errno));
  }
  struct stat st
  {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    fail(ExitCode::usage, "{}: not a regular file", path);
  }
  m_size = static_cast<size_t>(st.st_size);
  if (m_size == 0) {
    return;
  }
  int protection = mode == Mode::private_copy ? PROT_READ | PROT_WRITE : PROT_READ;
  void* image = ::mmap(nullptr, m_size, protection, MAP_PRIVATE, fd.get(), 0);
  int saved = errno;
  fd.reset(); // the mapping stays
  if (image == MAP_FAILED) {
    fail(ExitCode::system, "{}: cannot map: {}", path, std::strerror(saved));
  }
  m_data = static_cast<char*>(image);
}

MappedFile::~MappedFile()
{
  if (m_data != nullptr) {
    ::munmap(m_data, m_size);
  }
}

StagingDir::StagingDir(const stdfs::path& parent)
{
  create_dirs(parent.empty() ? stdfs::path(".") : parent);
  m_path = (parent.empty() ? stdfs::path(".") : parent) / (".opkit-partial." + random_suffix());
  if (::mkdir(m_path.c_str(), 0755) != 0) {
    // Named as the folder it goes into: the hidden staging name means nothing to the user.
    fail(ExitCode::system, "{}: cannot create a folder in it: {}", parent.empty() ? stdfs::path(".") : parent,
         std::strerror(errno));
  }
  // Held until this object goes: a lock on the folder itself, which gc tries.
  m_lock_fd = ::open(m_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (m_lock_fd >= 0) {
    ::flock(m_lock_fd, LOCK_EX | LOCK_NB);
  }
}

StagingDir::~StagingDir()
{
  if (!m_committed) {
    std::error_code ec;
    stdfs::remove_all(m_path, ec);
  }
  if (m_lock_fd >= 0) {
    ::close(m_lock_fd);
  }
}

void
StagingDir::fill(std::string_view shown, const std::function<void()>& work) const
{
  try {
    work();
  } catch (const Error& e) {
    std::string message = e.what();
    std::string hidden = m_path.string() + "/";
    for (size_t at = message.find(hidden); at != std::string::npos; at = message.find(hidden, at + shown.size())) {
      message.replace(at, hidden.size(), shown);
    }
    throw Error(e.code(), message, e.hint());
  }
}

bool
is_staging_in_use(const stdfs::path& folder)
{
  UniqueFd fd{::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  return fd.valid() && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

void
StagingDir::commit(const stdfs::path& final_path, bool replace)
{
  std::error_code ec;
  if (stdfs::exists(stdfs::symlink_status(final_path, ec))) {
    if (!replace) {
      fail(ExitCode::usage, "{}: already exists", final_path);
    }
    // Swap the two folders in one step, so a reader sees the old or the new
    // one, never neither; the old one then sits at the hidden staging name.
    if (::renameat2(AT_FDCWD, m_path.c_str(), AT_FDCWD, final_path.c_str(), RENAME_EXCHANGE) == 0) {
      m_committed = true;
      stdfs::remove_all(m_path, ec);
      return;
    }
    if (errno != EINVAL && errno != ENOSYS) {
      fail(ExitCode::system, "{}: cannot swap into place: {}", final_path, std::strerror(errno));
    }
    // A file system without RENAME_EXCHANGE: move the old folder aside (to a
    // hidden name nothing lists) first, as rename() cannot replace a non-empty folder.
    stdfs::path old =
      final_path.parent_path() / (".opkit-old." + final_path.filename().string() + "." + random_suffix());
    stdfs::rename(final_path, old, ec);
    if (ec) {
      fail(ExitCode::system, "{}: cannot move aside: {}", final_path, ec.message());
    }
    stdfs::rename(m_path, final_path, ec);
    if (ec) {
      fail(ExitCode::system, "{}: cannot rename into place: {}", final_path, ec.message());
    }
    m_committed = true;
    stdfs::remove_all(old, ec);
    return;
  }
  stdfs::rename(m_path, final_path, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", final_path, ec.message());
  }
  m_committed = true;
}

TempDir::TempDir(std::string_view prefix)
{
  std::string pattern = (stdfs::temp_directory_path() / (std::string(prefix) + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    fail(ExitCode::system, "{}: cannot create temporary folder: {}", pattern, std::strerror(errno));
  }
  m_path = pattern;
}

TempDir::~TempDir()
{
  std::error_code ec;
  stdfs::remove_all(m_path, ec);
}

bool
stays_inside(const stdfs::path& relative)
{
  if (relative.empty() || relative.is_absolute() || relative.has_root_name()) {
    return false;
  }
  int depth = 0;
  for (const stdfs::path& part : relative) {
    if (part == "..") {
      if (--depth < 0) {
        return false;
      }
    } else if (part != "." && !part.empty()) {
      ++depth;
    }
  }
  return depth > 0;
}

void
write_symlink(const stdfs::path& link, const stdfs::path& target)
{
  std::error_code ec;
  if (stdfs::is_symlink(link, ec) && stdfs::read_symlink(link, ec) == target) {
    return;
  }
  stdfs::path temp = link.parent_path() / fmt::format(".{}.{}.tmp", link.filename().string(), ::getpid());
  stdfs::remove(temp, ec);
  stdfs::create_symlink(target, temp, ec);
  if (!ec) {
    stdfs::rename(temp, link, ec);
  }
  if (ec) {
    stdfs::remove(temp, ec);
    fail(ExitCode::system, "{}: cannot link to {}: {}", link, target, ec.message());
  }
}

std::string
file_stamp(const stdfs::path& path)
{
  struct stat st
  {};
  if (::stat(path.c_str(), &st) != 0) {
    return "-";
  }
  return fmt::format("{}:{}.{:09}:{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ino);
}

FileLock::FileLock(const stdfs::path& path, Kind kind, Wait wait)
{
  create_dirs(path.parent_path());
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    fail(ExitCode::system, "{}: cannot open lock file: {}", path, std::strerror(errno));
  }
  take(kind, wait, path);
}

FileLock::FileLock(const Folder& folder, std::string_view name, Kind kind, Wait wait)
{
  bool gone = false;
  m_fd = folder.open_file(name, O_RDWR | O_CREAT, 0644, &gone).release();
  if (!gone) {
    take(kind, wait, folder.path() / std::string(name));
  }
}

void
FileLock::take(Kind kind, Wait wait, const stdfs::path& path)
{
  m_kind = kind;
  m_path = path;
  int operation = (kind == Kind::shared ? LOCK_SH : LOCK_EX) | (wait == Wait::give_up ? LOCK_NB : 0);
  while (::flock(m_fd, operation) != 0) {
    if (errno == EINTR) {
      continue;
    }
    int saved = errno;
    if (saved == EWOULDBLOCK && wait == Wait::give_up) {
      return; // open, not held: wait() may block on this same file
    }
    ::close(m_fd);
    m_fd = -1;
    fail(ExitCode::system, "{}: cannot lock: {}", path, std::strerror(saved));
  }
  m_held = true;
}

void
FileLock::wait()
{
  if (!m_held && m_fd >= 0) {
    take(m_kind, Wait::block, m_path);
  }
}

FileLock::~FileLock()
{
  if (m_fd >= 0) {
    ::close(m_fd); // closing releases the lock
  }
}

void
FileLock::set_holder(std::string_view holder) const
{
  if (m_held && ::ftruncate(m_fd, 0) == 0) {
    ssize_t written = ::pwrite(m_fd, holder.data(), holder.size(), 0);
    (void)written; // the description is a courtesy to a waiter, never needed
  }
}

std::string
FileLock::holder(const stdfs::path& path)
{
  UniqueFd file(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  char text[256];
  ssize_t size = file.valid() ? ::pread(file.get(), text, sizeof text, 0) : -1;
  return size > 0 ? escape_text(std::string_view(text, static_cast<size_t>(size))) : std::string("another process");
}

std::string
FileLock::holder(const Folder& folder, std::string_view name)
{
  std::optional<std::string> text = folder.read(name, 256);
  return text && !text->empty() ? escape_text(*text) : std::string("another process");
}

} // namespace opkit::fs
