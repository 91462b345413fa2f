#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

using namespace opkit;
namespace stdfs = std::filesystem;

TEST(Fs, StaysInside)
{
  EXPECT_TRUE(fs::stays_inside("a/b.h"));
  EXPECT_TRUE(fs::stays_inside("a/../b.h"));
  EXPECT_TRUE(fs::stays_inside("./a"));
  EXPECT_FALSE(fs::stays_inside(""));
  EXPECT_FALSE(fs::stays_inside("."));
  EXPECT_FALSE(fs::stays_inside("/etc/passwd"));
  EXPECT_FALSE(fs::stays_inside("../a"));
  EXPECT_FALSE(fs::stays_inside("a/../../b"));
  EXPECT_FALSE(fs::stays_inside("a/.."));
}

TEST(Fs, AtomicWriteLeavesNoTemporaryFile)
{
  fs::TempDir dir;
  fs::write_file_atomic(dir.path() / "f", "one");
  fs::write_file_atomic(dir.path() / "f", "two");
  EXPECT_EQ(fs::read_file(dir.path() / "f"), "two");
  EXPECT_EQ(std::distance(stdfs::directory_iterator(dir.path()), stdfs::directory_iterator()), 1);
}

TEST(Fs, WriteIfChangedKeepsTheMtime)
{
  fs::TempDir dir;
  stdfs::path file = dir.path() / "build.ninja";
  EXPECT_TRUE(fs::write_file_if_changed(file, "same"));
  auto before = stdfs::last_write_time(file);
  EXPECT_FALSE(fs::write_file_if_changed(file, "same"));
  EXPECT_EQ(stdfs::last_write_time(file), before);
  EXPECT_TRUE(fs::write_file_if_changed(file, "different"));
}

TEST(Fs, StagingDirIsRemovedUnlessCommitted)
{
  fs::TempDir dir;
  stdfs::path staged;
  {
    fs::StagingDir staging(dir.path());
    staged = staging.path();
    fs::write_file_atomic(staged / "x", "x");
  }
  EXPECT_FALSE(stdfs::exists(staged));
  {
    fs::StagingDir staging(dir.path());
    fs::write_file_atomic(staging.path() / "x", "new");
    staging.commit(dir.path() / "final");
  }
  EXPECT_EQ(fs::read_file(dir.path() / "final" / "x"), "new");
  fs::StagingDir again(dir.path());
  EXPECT_THROW(again.commit(dir.path() / "final"), Error);
  fs::write_file_atomic(again.path() / "y", "replaced");
  again.commit(dir.path() / "final", /*replace=*/true);
  EXPECT_FALSE(stdfs::exists(dir.path() / "final" / "x"));
  EXPECT_EQ(fs::read_file(dir.path() / "final" / "y"), "replaced");
}
