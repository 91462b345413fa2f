#include "opkit/util/disk_usage.hpp"

#include <fmt/format.h>

#include <array>
#include <set>
#include <sys/stat.h>
#include <utility>

namespace opkit::fs {

namespace stdfs = std::filesystem;

namespace {

// Adds what `path` itself takes (not what a link leads to); false when it is gone.
bool
add_entry(const stdfs::path& path, DiskUsage& usage, std::set<std::pair<dev_t, ino_t>>& seen)
{
  struct stat st = {};
  if (::lstat(path.c_str(), &st) != 0) {
    return false;
  }
  if (st.st_nlink > 1 && !S_ISDIR(st.st_mode) && !seen.emplace(st.st_dev, st.st_ino).second) {
    return true; // another name of a file already counted, as du counts it once
  }
  usage.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  usage.files += S_ISREG(st.st_mode) ? 1 : 0;
  return true;
}

} // namespace

DiskUsage
disk_usage(const stdfs::path& path)
{
  DiskUsage usage;
  std::set<std::pair<dev_t, ino_t>> seen;
  if (!add_entry(path, usage, seen)) {
    return usage;
  }
  std::error_code ec;
  if (!stdfs::is_directory(stdfs::symlink_status(path, ec))) {
    return usage;
  }
  // Never follows a link (the iterator's default), and reads past what it may not open.
  for (auto it = stdfs::recursive_directory_iterator(path, stdfs::directory_options::skip_permission_denied, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    add_entry(it->path(), usage, seen);
  }
  return usage;
}

std::string
human_bytes(uint64_t bytes)
{
  if (bytes < 1000) {
    return fmt::format("{} B", bytes);
  }
  static constexpr std::array<const char*, 5> units = {"kB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes) / 1000;
  size_t unit = 0;
  while (value >= 999.95 && unit + 1 < units.size()) {
    value /= 1000;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

} // namespace opkit::fs
