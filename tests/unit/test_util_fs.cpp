#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

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

namespace {

void
write_plain(const stdfs::path& path, std::string_view content)
{
  std::ofstream(path, std::ios::binary) << content;
}

std::vector<std::string>
names_in(const stdfs::path& folder)
{
  std::vector<std::string> names;
  for (const stdfs::directory_entry& entry : stdfs::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A pid no process has: past the kernel's largest.
const char* const k_dead_pid = "4194305";

} // namespace

TEST(Fs, AtomicWriteRemovesTheTemporariesOfKilledWriters)
{
  fs::TempDir dir;
  // Written to (its writer had locked it), and empty with a dead writer.
  write_plain(dir.path() / ".f.tmp.1.aaaa", "cut short");
  write_plain(dir.path() / (std::string(".f.tmp.") + k_dead_pid + ".bbbb"), "");
  fs::write_file_atomic(dir.path() / "f", "whole");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"f"});
  EXPECT_EQ(fs::read_file(dir.path() / "f"), "whole");
}

TEST(Fs, AtomicWriteKeepsTheTemporariesOfLiveWriters)
{
  fs::TempDir dir;
  // Locked: a writer at work, here or on another host.
  stdfs::path held = dir.path() / ".f.tmp.1.held";
  write_plain(held, "being written");
  UniqueFd lock{::open(held.c_str(), O_RDONLY | O_CLOEXEC)};
  ASSERT_EQ(::flock(lock.get(), LOCK_EX), 0);
  // Empty, its writer alive (this process): between create and lock.
  stdfs::path young = dir.path() / fmt::format(".f.tmp.{}.young", ::getpid());
  write_plain(young, "");
  // Not a temporary of f, or not a file.
  write_plain(dir.path() / ".g.tmp.1.other", "x");
  write_plain(dir.path() / ".f.tmpx", "x");
  write_plain(dir.path() / "target", "x");
  stdfs::create_symlink("target", dir.path() / ".f.tmp.1.link");
  fs::write_file_atomic(dir.path() / "f", "whole");
  std::vector<std::string> kept{
    ".f.tmp.1.held", ".f.tmp.1.link", ".f.tmpx", young.filename().string(), ".g.tmp.1.other", "f", "target"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(names_in(dir.path()), kept);
  // A minute later an empty one goes whoever named it; once unlocked, the held one goes.
  stdfs::last_write_time(young, stdfs::file_time_type::clock::now() - std::chrono::minutes(2));
  lock.reset();
  fs::write_file_atomic(dir.path() / "f", "again");
  EXPECT_FALSE(stdfs::exists(young));
  EXPECT_FALSE(stdfs::exists(held));
  EXPECT_EQ(fs::read_file(dir.path() / "target"), "x");
}

TEST(Fs, AtomicFileNotCommittedLeavesNothing)
{
  fs::TempDir dir;
  {
    fs::AtomicFile file(dir.path() / "f");
    fs::write_all(file.fd(), "half", file.temp_path());
    EXPECT_EQ(file.temp_path().parent_path(), dir.path());
    EXPECT_EQ(file.temp_path().filename().string().rfind(fmt::format(".f.tmp.{}.", ::getpid()), 0), 0u);
  }
  EXPECT_TRUE(names_in(dir.path()).empty());
}

// What an Error thrown by `work` says; "" when it throws none.
template<typename Work>
std::string
error_of(Work work)
{
  try {
    work();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Fs, ADiskFullIsReportedAsSuch)
{
  // /dev/full answers every write with ENOSPC, as a full disk does.
  if (::access("/dev/full", W_OK) != 0) {
    GTEST_SKIP() << "no writable /dev/full";
  }
  fs::TempDir dir;
  fs::write_file_atomic(dir.path() / "source", std::string(100000, 'x'));
  // std::filesystem::copy_file said "Input/output error" here.
  std::string copied = error_of([&] { fs::copy_file(dir.path() / "source", "/dev/full"); });
  EXPECT_EQ(copied, "/dev/full: cannot write: No space left on device");
  UniqueFd full{::open("/dev/full", O_WRONLY | O_CLOEXEC)};
  EXPECT_EQ(error_of([&] { fs::write_all(full.get(), "x", "out"); }), "out: cannot write: No space left on device");
}

TEST(Fs, CopyFileKeepsTheBytesAndTheMode)
{
  fs::TempDir dir;
  fs::write_file_atomic(dir.path() / "tool", "#!/bin/sh\n", /*executable=*/true);
  fs::copy_file(dir.path() / "tool", dir.path() / "copy");
  EXPECT_EQ(fs::read_file(dir.path() / "copy"), "#!/bin/sh\n");
  EXPECT_NE(stdfs::status(dir.path() / "copy").permissions() & stdfs::perms::owner_exec, stdfs::perms::none);
  EXPECT_NE(error_of([&] { fs::copy_file(dir.path() / "missing", dir.path() / "x"); }).find("missing: cannot read"),
            std::string::npos);
}

TEST(Fs, ErrorsNameTheFileNotItsTemporaryOrStaging)
{
  fs::TempDir dir;
  std::string created = error_of([&] { fs::write_file_atomic(dir.path() / "no-such-folder" / "f", "x"); });
  EXPECT_EQ(created.rfind((dir.path() / "no-such-folder" / "f").string() + ": cannot create: ", 0), 0u) << created;
  fs::StagingDir staging(dir.path());
  std::string filled =
    error_of([&] { staging.fill("exp/assets/", [&] { fs::read_file(staging.path() / "a" / "missing"); }); });
  EXPECT_EQ(filled.rfind("exp/assets/a/missing: cannot read: ", 0), 0u) << filled;
  EXPECT_EQ(filled.find(".opkit-partial"), std::string::npos);
}
