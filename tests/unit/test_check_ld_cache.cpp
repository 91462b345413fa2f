#include "opkit/check/ld_cache.hpp"

#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include <unistd.h>

using namespace opkit;
using namespace opkit::check;

namespace {

#if defined(__aarch64__)
constexpr int32_t k_this_arch = 0x0a03;
#else
constexpr int32_t k_this_arch = 0x0303;
#endif

void
put_u32(std::string& bytes, size_t at, uint32_t value)
{
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

struct Entry
{
  int32_t flags;
  std::string soname;
  std::string path;
};

// A "glibc-ld.so.cache1.1" table as ldconfig writes it: header, entries,
// then the strings, offsets counted from the table's start.
std::string
new_cache(const std::vector<Entry>& entries)
{
  const size_t header = 48;
  const size_t entry = 24;
  std::string bytes(header + entries.size() * entry, '\0');
  std::memcpy(bytes.data(), "glibc-ld.so.cache1.1", 20);
  put_u32(bytes, 20, static_cast<uint32_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    size_t at = header + i * entry;
    put_u32(bytes, at, static_cast<uint32_t>(entries[i].flags));
    put_u32(bytes, at + 4, static_cast<uint32_t>(bytes.size()));
    bytes += entries[i].soname + '\0';
    put_u32(bytes, at + 8, static_cast<uint32_t>(bytes.size()));
    bytes += entries[i].path + '\0';
  }
  return bytes;
}

} // namespace

TEST(LdCache, ReadsTheNewFormat)
{
  std::map<std::string, std::string> cache =
    read_ld_cache(new_cache({{k_this_arch, "libfoo.so.1", "/opt/foo/lib/libfoo.so.1"},
                             {k_this_arch, "libfoo.so.1", "/usr/lib/libfoo.so.1"}, // the first entry wins
                             {0x0003, "libbar.so.2", "/usr/lib32/libbar.so.2"},    // another architecture
                             {k_this_arch, "libbaz.so", "/usr/lib/x86_64/libbaz.so"}}));
  EXPECT_EQ(cache.size(), 2U);
  EXPECT_EQ(cache["libfoo.so.1"], "/opt/foo/lib/libfoo.so.1");
  EXPECT_EQ(cache.count("libbar.so.2"), 0U);
}

TEST(LdCache, ReadsTheNewTableAfterTheOldOne)
{
  // struct cache_file: "ld.so-1.7.0", nlibs at offset 12, 12-byte entries; the new table at the next multiple of 8.
  std::string old(16 + 3 * 12, '\0');
  std::memcpy(old.data(), "ld.so-1.7.0", 11);
  put_u32(old, 12, 3);
  old.resize((old.size() + 7) & ~size_t(7), '\0');
  std::string bytes = old + new_cache({{k_this_arch, "libfoo.so.1", "/opt/foo/libfoo.so.1"}});
  EXPECT_EQ(read_ld_cache(bytes).at("libfoo.so.1"), "/opt/foo/libfoo.so.1");
}

TEST(LdCache, DamagedCachesGiveWhatLiesInside)
{
  std::string good = new_cache({{k_this_arch, "libfoo.so.1", "/opt/libfoo.so.1"}});
  EXPECT_TRUE(read_ld_cache("").empty());
  EXPECT_TRUE(read_ld_cache("glibc-ld.so.cache1.0").empty());
  // An entry count far past the file: only whole entries inside it are read.
  std::string huge = good;
  put_u32(huge, 20, 0xffffffffU);
  EXPECT_LE(read_ld_cache(huge).size(), 1U);
  // String offsets past the end, or a string without its NUL: skipped.
  std::string past = good;
  put_u32(past, 48 + 8, 0x7fffffffU);
  EXPECT_TRUE(read_ld_cache(past).empty());
  std::string unterminated = good.substr(0, good.size() - 1);
  EXPECT_TRUE(read_ld_cache(unterminated).empty());
  // Every cut and random damage: no crash (ASan runs this too).
  for (size_t cut = 0; cut < good.size(); ++cut) {
    read_ld_cache(std::string_view(good).substr(0, cut));
  }
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = good;
    damaged[random() % damaged.size()] = static_cast<char>(random());
    read_ld_cache(damaged);
  }
}

TEST(LdCache, ThisMachinesCacheHasLibc)
{
  ASSERT_TRUE(std::filesystem::exists("/etc/ld.so.cache")) << "Debian's libc-bin writes it: run ldconfig";
  fs::MappedFile file("/etc/ld.so.cache");
  std::map<std::string, std::string> cache = read_ld_cache(file.bytes());
  ASSERT_EQ(cache.count("libc.so.6"), 1U);
  EXPECT_TRUE(std::filesystem::exists(cache["libc.so.6"]));
}

TEST(LdConf, FollowsIncludes)
{
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("opkit-ldconf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "conf.d");
  fs::write_file_atomic(dir / "ld.so.conf", "# comment\ninclude conf.d/*.conf\n/opt/first\nhwcap 0 nosegneg\n");
  fs::write_file_atomic(dir / "conf.d" / "a.conf", "/opt/a  # trailing\n/opt/b /opt/c=libc6\n");
  fs::write_file_atomic(dir / "conf.d" / "loop.conf", "include ../ld.so.conf\n"); // bounded, never endless
  std::vector<std::string> dirs = read_ld_conf(dir / "ld.so.conf");
  ASSERT_GE(dirs.size(), 4U);
  EXPECT_EQ(std::vector<std::string>(dirs.begin(), dirs.begin() + 3),
            (std::vector<std::string>{"/opt/a", "/opt/b", "/opt/c"}));
  EXPECT_TRUE(read_ld_conf(dir / "missing.conf").empty());
  std::filesystem::remove_all(dir);
}
