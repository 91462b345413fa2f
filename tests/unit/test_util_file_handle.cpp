#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <iterator>

#include <fcntl.h>

using namespace opkit;
namespace stdfs = std::filesystem;

namespace {

bool
is_open(int fd)
{
  return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

long
open_descriptors()
{
  return std::distance(stdfs::directory_iterator("/proc/self/fd"), stdfs::directory_iterator());
}

} // namespace

TEST(FileHandle, ClosesOnceWhereItsOwnerEnds)
{
  int raw = -1;
  UniqueFd moved;
  {
    UniqueFd fd{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    moved = std::move(fd);
    EXPECT_FALSE(fd.valid()); // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  }
  EXPECT_TRUE(is_open(raw)) << "the moved-from handle closed what it gave away";
  EXPECT_EQ(moved.get(), raw);
  moved.reset();
  EXPECT_FALSE(is_open(raw));
  EXPECT_FALSE(UniqueFd{-1}.valid());
}

TEST(FileHandle, ReleaseHandsTheDescriptorOver)
{
  UniqueFd fd{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
  int raw = fd.release();
  EXPECT_FALSE(fd.valid());
  EXPECT_TRUE(is_open(raw));
  UniqueFd again{raw};
}

// The failing paths of fs that open a file: each error leaves the process's
// descriptors as they were.
TEST(FileHandle, FailingFileOperationsLeaveNoDescriptorOpen)
{
  fs::TempDir dir;
  long before = open_descriptors();
  EXPECT_THROW(fs::MappedFile{dir.path()}, Error); // a folder: not a regular file
  fs::write_file_atomic(dir.path() / "empty", "");
  {
    fs::MappedFile empty(dir.path() / "empty");
  }
  EXPECT_THROW(fs::read_file(dir.path() / "missing"), Error);
  EXPECT_FALSE(fs::is_staging_in_use(dir.path()));
  EXPECT_EQ(open_descriptors(), before);
}
