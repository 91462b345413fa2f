#pragma once

// A folder opened once, without following a link, and the files opkit keeps
// in it opened, written and removed relative to it (openat, O_NOFOLLOW): a
// symbolic link a repository commits where opkit keeps a control file (the
// build folder's lock, its kept no-ops, a test's vectors) is refused, never
// followed out of the project. Refusals are Error(usage) naming the link and
// where it leads.
#include "opkit/util/file_handle.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::fs {

class Folder
{
public:
  // Opens `path`, a folder (made first, with its parents, when `create`);
  // its last component must not be a symbolic link. `what` names it in errors
  // ("build folder"). Error(usage) for a link or a non-folder, Error(system)
  // when it cannot be opened.
  static Folder open(const std::filesystem::path& path, std::string_view what, bool create);

  // A folder in this one, by name, opened the same way (made when `create`).
  Folder child(std::string_view name, std::string_view what, bool create) const;

  const std::filesystem::path& path() const { return m_path; }
  int fd() const { return m_fd.get(); }

  // Opens `name` in this folder with `flags` (O_NOFOLLOW and O_CLOEXEC
  // added). A link there, or anything but a regular file, is Error(usage).
  // With `gone` given, this folder removed meanwhile (ENOENT) sets it and
  // gives an invalid fd instead of an error.
  UniqueFd open_file(std::string_view name, int flags, int mode = 0644, bool* gone = nullptr) const;

  // The file's bytes when `name` is a regular file of at most `max_bytes`;
  // nullopt when there is none (or it is larger: `too_large` then says so).
  std::optional<std::string> read(std::string_view name, size_t max_bytes, bool* too_large = nullptr) const;

  // Writes `name` atomically: a hidden temporary made in this folder (never
  // through a link), renamed onto the name. Error(system) naming it on failure.
  void write_atomic(std::string_view name, std::string_view content, int mode = 0644) const;

  // write_atomic, unless `name` already holds exactly `content` (its mtime then stays).
  bool write_if_changed(std::string_view name, std::string_view content) const;

  // The names of the regular files in this folder (links and folders left out).
  std::vector<std::string> regular_files() const;
  // Removes `name` when it is a regular file (never a link's target).
  bool remove_file(std::string_view name) const;
  // The modification time (ns since the epoch) of a regular file, or -1.
  long long mtime_ns(std::string_view name) const;

private:
  Folder(std::filesystem::path path, UniqueFd fd)
    : m_path(std::move(path))
    , m_fd(std::move(fd))
  {
  }
  std::filesystem::path m_path;
  UniqueFd m_fd;
};

// "<path>: a symbolic link (to <target>) where opkit keeps its <what>: opkit
// does not follow it" as an Error(usage), with `hint` (default: remove it).
[[noreturn]] void
refuse_link(const std::filesystem::path& path, std::string_view what, std::string_view hint = {});

// The first symbolic link under `root` (not following any), less those whose
// path relative to `root` passes `allowed`; nullopt when there is none, or
// when `root` is not a folder.
std::optional<std::filesystem::path>
find_link_below(const std::filesystem::path& root, bool (*allowed)(const std::filesystem::path& relative));

} // namespace opkit::fs
