#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

// One entry met while streaming an archive. Data is pulled by read(), which
// returns 0 at the entry's end; entries not read are skipped cheaply.
struct ArchiveEntry
{
  std::string path;        // as stored in the archive: untrusted
  bool is_regular = false; // symlinks, hard links and devices are reported with false
  bool is_folder = false;  // neither is_regular nor is_folder: a link, a device, a FIFO
  int64_t size = 0;
  bool executable = false; // a regular file with an execute bit in its mode
  std::string symlink;     // a symbolic link's target, as stored: untrusted; empty for anything else
  std::function<size_t(char* buffer, size_t capacity)> read;
};

// The formats a reader accepts: a wheel or sdist (zip, tar, tar.gz), or the
// two layers of a Debian package (its `ar` members, then its data.tar.xz).
enum class ArchiveKinds
{
  zip_or_tar,
  ar,
  tar_xz,
};

// Streams every entry of an archive through `visit`. The one place
// libarchive is included. A damaged archive is Error(usage) naming `path`.
void
for_each_archive_entry(const std::filesystem::path& path, const std::function<void(ArchiveEntry&)>& visit,
                       ArchiveKinds kinds = ArchiveKinds::zip_or_tar);

} // namespace opkit

namespace opkit {

// One file to put in an archive: its bytes come from `source` (a file) or,
// when that is empty, from `content`.
struct ArchiveMember
{
  std::string path; // inside the archive, '/'-separated, relative
  std::filesystem::path source;
  std::string content;
  bool executable = false;
};

enum class ArchiveFormat
{
  tar_gz,
  zip
};

// Writes a reproducible archive: members sorted by path, parent folders
// added, every mtime `mtime`, uid/gid 0 without names, fixed modes, no gzip
// timestamp. Written to a temporary file and renamed into place.
void
write_archive(const std::filesystem::path& output, ArchiveFormat format, std::vector<ArchiveMember> members,
              int64_t mtime);

} // namespace opkit
