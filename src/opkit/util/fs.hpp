#pragma once

#include "opkit/util/file_handle.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace opkit::fs {

namespace stdfs = std::filesystem;

// Reads a whole file; throws Error(system) naming the path and the cause, and
// Error(usage) when the path names a folder, a FIFO (which would block the
// read forever), a socket or a device: every file opkit reads is a regular one.
std::string
read_file(const stdfs::path& path);

// Writes all of `content` to `fd` (retrying short writes and EINTR); a
// failure, such as a full disk, is Error(system) naming `path`.
void
write_all(int fd, std::string_view content, const stdfs::path& path);

// Writes via an AtomicFile: a reader never sees a half-written file.
void
write_file_atomic(const stdfs::path& path, std::string_view content, bool executable = false);

// What an input path names. Anything but a regular file or a folder (a FIFO,
// which would block the read forever, a socket, a device), a missing path or
// a symlink loop is Error(usage) naming `what` and the path.
enum class InputKind
{
  file,
  folder,
};
InputKind
require_input(const stdfs::path& path, std::string_view what);
// Why `path` names no regular file to read as a `what`: "no such <what>", "a
// loop of symbolic links", "a folder, not a <what>", ...; "" when it names one.
std::string
file_problem(const stdfs::path& path, std::string_view what);
// Error(usage) "<path>: <file_problem>" unless `path` names a regular file.
void
require_file(const stdfs::path& path, std::string_view what);

// A file written beside `path` under a hidden temporary name, unique per
// process and call (".name.tmp.<pid>.<random>"), then renamed onto `path` by
// commit(): readers see the old file or the complete new one, and concurrent
// writers never share a temporary. The destructor removes it unless committed.
// The temporary is locked (flock) from before its first byte until it is
// renamed or removed; one whose lock is free was left by a killed writer and
// goes when the next AtomicFile for the same path starts, so kill -9 does not
// pile hidden files up beside the output. An empty one may be a writer between
// create and lock: it goes once its writer's pid is gone from this host, or
// after a minute (a writer on another host sharing the folder).
class AtomicFile
{
public:
  explicit AtomicFile(const stdfs::path& path, int mode = 0644);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  int fd() const { return m_fd.get(); }
  const stdfs::path& temp_path() const { return m_temp; }

  // Renames the temporary onto the path; Error(system) naming it when it cannot.
  void commit();

private:
  stdfs::path m_path;
  stdfs::path m_temp;
  UniqueFd m_fd;
  bool m_committed = false;
};

// Copies a regular file's bytes to `dest` (created with the source's mode,
// or truncated). Error(system) names the file and the cause: a full disk says
// "No space left on device" (std::filesystem::copy_file says EIO).
void
copy_file(const stdfs::path& source, const stdfs::path& dest);

// Like write_file_atomic, but leaves the file (and its mtime) alone when the
// content is already equal. Returns whether it wrote.
bool
write_file_if_changed(const stdfs::path& path, std::string_view content);

// A fresh hidden folder inside `parent` (so it sits on the same filesystem as
// its destination). Removed by the destructor unless commit() moved it into place.
class StagingDir
{
public:
  explicit StagingDir(const stdfs::path& parent);
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const stdfs::path& path() const { return m_path; }

  // Runs `work`, which fills the folder. An Error it throws naming a path in
  // here has the hidden "<staging>/" replaced by `shown` (the destination
  // folder and a '/', or "<source>: "): the staging name means nothing to the user.
  void fill(std::string_view shown, const std::function<void()>& work) const;

  // Renames the staging folder to `final_path`; replaces an existing folder
  // there when `replace` is set (swapping the two in one step where the file
  // system can), otherwise refuses with Error(usage).
  void commit(const stdfs::path& final_path, bool replace = false);

private:
  stdfs::path m_path;
  bool m_committed = false;
  int m_lock_fd = -1; // the folder, flock-ed while this object lives: see is_staging_in_use
};

// Whether a staging folder (".opkit-partial.*") belongs to a live StagingDir,
// in this or another process: `sdk gc` leaves those alone.
bool
is_staging_in_use(const stdfs::path& folder);

// A temporary folder under the system temp dir, removed by the destructor.
class TempDir
{
public:
  explicit TempDir(std::string_view prefix = "opkit");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const stdfs::path& path() const { return m_path; }

private:
  stdfs::path m_path;
};

// True when `relative` is a relative path that stays inside its base folder
// once "." and ".." are applied (the archive-escape guard).
bool
stays_inside(const stdfs::path& relative);

// The bytes of a file, or of every file under a folder; 0 when absent.
uint64_t
disk_size(const stdfs::path& path);

// What changes when a file is replaced or rewritten: "size:mtime:inode", or
// "-" when it cannot be read. Cheap (one stat), for cache keys.
std::string
file_stamp(const stdfs::path& path);

// Makes `link` a symbolic link to `target` (replacing another one atomically);
// leaves it alone when it already points there.
void
write_symlink(const stdfs::path& link, const stdfs::path& target);

// Creates a folder and its parents; throws Error(system) on failure.
void
create_dirs(const stdfs::path& path);

// Asks the kernel to map in, in one call, the pages of `bytes` (memory of a
// MappedFile) that a scan is about to read: cheaper than a page fault per page.
// Only a hint: nothing happens where the kernel cannot do it.
void
prefault(std::string_view bytes);

// Tells the kernel that a mapping will be read at random places (a hash
// table's lookups): a page fault then maps the page it needs, not the 16
// around it, each of which costs again to unmap. Only a hint, like prefault.
void
advise_random(std::string_view bytes);

// A regular file mapped into memory, unmapped by the destructor. Only the
// pages touched are read. `private_copy` maps it writable without ever writing
// the file (libelf wants a mutable image). An empty file maps to no bytes.
// Errors: Error(system) when it cannot be opened or mapped, Error(usage) when
// it is not a regular file.
class MappedFile
{
public:
  enum class Mode
  {
    read_only,
    private_copy
  };
  explicit MappedFile(const stdfs::path& path, Mode mode = Mode::read_only);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  char* data() const { return m_data; }
  size_t size() const { return m_size; }
  std::string_view bytes() const { return {m_data, m_size}; }

private:
  char* m_data = nullptr;
  size_t m_size = 0;
};

} // namespace opkit::fs

namespace opkit::fs {

class Folder;

// An advisory lock (flock) on a file, held for the object's lifetime, so
// concurrent opkit processes don't build or import the same thing at once.
// Shared locks let many users of a thing (builds of one SDK) exclude the one
// that would remove it.
class FileLock
{
public:
  enum class Kind
  {
    exclusive,
    shared,
  };
  enum class Wait
  {
    block,   // until the lock is free
    give_up, // at once when it is held elsewhere: held() is false then, and wait() waits on the same file
  };
  explicit FileLock(const stdfs::path& path, Kind kind = Kind::exclusive, Wait wait = Wait::block);
  // The lock file `name` in `folder`, opened without following a link (util/folder).
  // A folder removed meanwhile (by `opkit clean`) leaves it not held, with
  // folder_gone() true, for the caller to open the folder again.
  FileLock(const Folder& folder, std::string_view name, Kind kind = Kind::exclusive, Wait wait = Wait::block);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return m_held; }
  bool folder_gone() const { return m_fd < 0; }
  int fd() const { return m_fd; }
  // After Wait::give_up found it held: blocks until it is free, on the file
  // opened then (which its holder may have removed meanwhile: compare it).
  void wait();

  // Who holds it, in words ("opkit build --tf 1.12 (pid 4242)"): written into
  // the lock file by the holder, read by whoever waits for it.
  void set_holder(std::string_view holder) const;
  static std::string holder(const stdfs::path& path);
  static std::string holder(const Folder& folder, std::string_view name);

private:
  void take(Kind kind, Wait wait, const stdfs::path& path);
  int m_fd = -1;
  bool m_held = false;
  Kind m_kind = Kind::exclusive;
  stdfs::path m_path;
};

} // namespace opkit::fs
