#include "opkit/check/ld_cache.hpp"

#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <glob.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace opkit::check {

namespace {

// sysdeps/generic/dl-cache.h: the flags of an entry.
constexpr int32_t k_flag_type_mask = 0x00ff;
constexpr int32_t k_flag_elf_libc6 = 0x0003;
constexpr int32_t k_flag_arch_mask = 0xff00;
#if defined(__aarch64__)
constexpr int32_t k_flag_this_arch = 0x0a00; // FLAG_AARCH64_LIB64
#else
constexpr int32_t k_flag_this_arch = 0x0300; // FLAG_X8664_LIB64
#endif

constexpr std::string_view k_old_magic = "ld.so-1.7.0";
constexpr std::string_view k_new_magic = "glibc-ld.so.cache1.1";
constexpr size_t k_old_entry = 12;  // int32 flags, uint32 key, uint32 value
constexpr size_t k_new_header = 48; // magic+version 20, nlibs, len_strings, flags[4], extension_offset, unused[3]
constexpr size_t k_new_entry = 24;  // int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap

bool
read_u32(std::string_view bytes, size_t at, uint32_t& value)
{
  if (at > bytes.size() || bytes.size() - at < sizeof value) {
    return false;
  }
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return true;
}

// The NUL-terminated string at `offset` of `table`; false when it runs past the end.
bool
read_string(std::string_view table, uint32_t offset, std::string& out)
{
  if (offset >= table.size()) {
    return false;
  }
  size_t end = table.find('\0', offset);
  if (end == std::string_view::npos) {
    return false;
  }
  out.assign(table.data() + offset, end - offset);
  return true;
}

} // namespace

std::map<std::string, std::string>
read_ld_cache(std::string_view bytes)
{
  std::map<std::string, std::string> found;
  size_t base = 0;
  if (bytes.substr(0, k_old_magic.size()) == k_old_magic) {
    // struct cache_file: magic[11], then nlibs at the next 4-byte boundary, then the
    // entries; the new table follows, aligned to 8 (ALIGN_CACHE).
    uint32_t old_count = 0;
    if (!read_u32(bytes, 12, old_count)) {
      return found;
    }
    uint64_t after = 16 + uint64_t(old_count) * k_old_entry;
    base = static_cast<size_t>(std::min<uint64_t>((after + 7) & ~uint64_t(7), bytes.size()));
  }
  std::string_view cache = bytes.substr(base);
  uint32_t count = 0;
  if (cache.substr(0, k_new_magic.size()) != k_new_magic || cache.size() < k_new_header
      || !read_u32(cache, 20, count)) {
    return found;
  }
  // Only whole entries that lie inside the file are read.
  uint64_t room = (cache.size() - k_new_header) / k_new_entry;
  uint64_t entries = std::min<uint64_t>(count, room);
  for (uint64_t i = 0; i < entries; ++i) {
    size_t at = k_new_header + static_cast<size_t>(i) * k_new_entry;
    uint32_t flags = 0;
    uint32_t key = 0;
    uint32_t value = 0;
    read_u32(cache, at, flags);
    read_u32(cache, at + 4, key);
    read_u32(cache, at + 8, value);
    auto signed_flags = static_cast<int32_t>(flags);
    if ((signed_flags & k_flag_type_mask) != k_flag_elf_libc6
        || (signed_flags & k_flag_arch_mask) != k_flag_this_arch) {
      continue;
    }
    std::string soname;
    std::string path;
    // String offsets count from the start of the new table.
    if (read_string(cache, key, soname) && read_string(cache, value, path) && !soname.empty() && !path.empty()) {
      found.emplace(std::move(soname), std::move(path)); // the first entry of a soname wins
    }
  }
  return found;
}

namespace {

void
read_conf(const std::filesystem::path& conf, int depth, std::vector<std::string>& dirs)
{
  if (depth > 16) {
    return;
  }
  std::string text;
  try {
    text = fs::read_file(conf);
  } catch (...) {
    return; // unreadable: nothing, as ldconfig warns and goes on
  }
  for (std::string line : split(text, '\n')) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty() || starts_with(line, "hwcap")) {
      continue;
    }
    if (starts_with(line, "include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      for (const std::string& pattern : split(trim(line.substr(8)), ' ')) {
        if (pattern.empty()) {
          continue;
        }
        std::filesystem::path full = pattern[0] == '/' ? std::filesystem::path(pattern) : conf.parent_path() / pattern;
        glob_t matches{};
        if (::glob(full.c_str(), 0, nullptr, &matches) == 0) {
          for (size_t i = 0; i < matches.gl_pathc; ++i) {
            read_conf(matches.gl_pathv[i], depth + 1, dirs);
          }
        }
        ::globfree(&matches);
      }
      continue;
    }
    for (const std::string& dir : split(line, ' ')) {
      if (!dir.empty() && dir[0] == '/') {
        dirs.push_back(dir.substr(0, dir.find('='))); // "dir=TYPE" of old configs
      }
    }
  }
}

} // namespace

std::vector<std::string>
read_ld_conf(const std::filesystem::path& conf)
{
  std::vector<std::string> dirs;
  read_conf(conf, 0, dirs);
  return dirs;
}

} // namespace opkit::check
