#include "opkit/util/disk_usage.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

using namespace opkit;
namespace stdfs = std::filesystem;

namespace {

// What the file system allocates for `path` itself (st_blocks x 512), as du counts it.
uint64_t
blocks_of(const stdfs::path& path)
{
  struct stat st = {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

class DiskUsageTest : public ::testing::Test
{
protected:
  fs::TempDir tmp{"opkit-du"};
  const stdfs::path& dir = tmp.path();
};

} // namespace

TEST(HumanBytes, DecimalUnitsOneDecimal)
{
  EXPECT_EQ(fs::human_bytes(0), "0 B");
  EXPECT_EQ(fs::human_bytes(999), "999 B");
  EXPECT_EQ(fs::human_bytes(4096), "4.1 kB");
  EXPECT_EQ(fs::human_bytes(680'300'000), "680.3 MB");
  EXPECT_EQ(fs::human_bytes(999'960'000), "1.0 GB"); // not "1000.0 MB"
  EXPECT_EQ(fs::human_bytes(1'200'000'000), "1.2 GB");
  EXPECT_EQ(fs::human_bytes(3'500'000'000'000ULL), "3.5 TB");
}

TEST_F(DiskUsageTest, MissingPathCostsNothing)
{
  fs::DiskUsage usage = fs::disk_usage(dir / "absent");
  EXPECT_EQ(usage.bytes, 0U);
  EXPECT_EQ(usage.files, 0U);
}

TEST_F(DiskUsageTest, AllocatedBlocksNotApparentBytes)
{
  // A sparse file: 64 MB apparent, almost nothing allocated.
  stdfs::path sparse = dir / "sparse";
  {
    std::ofstream(sparse).put('x');
  }
  stdfs::resize_file(sparse, 64 << 20);
  fs::DiskUsage usage = fs::disk_usage(dir);
  EXPECT_EQ(usage.bytes, blocks_of(dir) + blocks_of(sparse));
  EXPECT_LT(usage.bytes, 1U << 20);
  EXPECT_EQ(usage.files, 1U);
}

TEST_F(DiskUsageTest, HardLinksOnceLinksNotFollowed)
{
  stdfs::create_directories(dir / "a");
  {
    std::ofstream out(dir / "a" / "data", std::ios::binary);
    out << std::string(200'000, 'd');
  }
  stdfs::create_hard_link(dir / "a" / "data", dir / "a" / "again");
  stdfs::create_symlink(dir / "a" / "data", dir / "link");
  stdfs::create_directory_symlink(dir / "a", dir / "folder-link");
  fs::DiskUsage usage = fs::disk_usage(dir);
  EXPECT_EQ(usage.bytes, blocks_of(dir) + blocks_of(dir / "a") + blocks_of(dir / "a" / "data") + blocks_of(dir / "link")
                           + blocks_of(dir / "folder-link"));
  EXPECT_EQ(usage.files, 1U);
  // A link given itself is the link, not what it leads to.
  EXPECT_EQ(fs::disk_usage(dir / "folder-link").bytes, blocks_of(dir / "folder-link"));
}
