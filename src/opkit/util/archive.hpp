#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace opkit {

// One entry met while streaming an archive. Data is pulled by read(), which
// returns 0 at the entry's end; entries not read are skipped cheaply.
struct ArchiveEntry
{
  std::string path;        // as stored in the archive: untrusted
  bool is_regular = false; // symlinks, hard links and devices are reported with false
  int64_t size = 0;
  std::function<size_t(char* buffer, size_t capacity)> read;
};

// Streams every entry of a zip/tar archive through `visit`. The one place
// libarchive is included. A damaged archive is Error(usage) naming `path`.
void for_each_archive_entry(const std::filesystem::path& path, const std::function<void(ArchiveEntry&)>& visit);

} // namespace opkit
