#include "opkit/util/error.hpp"
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>

using namespace opkit;

namespace {

std::string
refusal(const std::function<void()>& work)
{
  try {
    work();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    return e.what();
  }
  return "";
}

} // namespace

TEST(UtilFolder, WritesReadsAndRemovesInsideWithoutFollowingLinks)
{
  fs::TempDir tmp;
  fs::Folder build = fs::Folder::open(tmp.path() / "build", "build folder", true);
  build.write_atomic("a.json", "{}\n");
  EXPECT_EQ(build.read("a.json", 100).value_or(""), "{}\n");
  bool too_large = false;
  EXPECT_FALSE(build.read("a.json", 2, &too_large));
  EXPECT_TRUE(too_large);
  EXPECT_FALSE(build.write_if_changed("a.json", "{}\n")) << "the same content: left alone";
  EXPECT_TRUE(build.write_if_changed("a.json", "[]\n"));
  EXPECT_EQ(build.regular_files(), std::vector<std::string>{"a.json"}) << "no temporary left behind";
  EXPECT_TRUE(build.remove_file("a.json"));
  EXPECT_FALSE(build.remove_file("a.json"));
  EXPECT_NE(refusal([&] { build.write_atomic("../escape", "x"); }).find("not a plain file name"), std::string::npos);
}

TEST(UtilFolder, APlantedLinkIsRefusedAndWhatItLeadsToIsUntouched)
{
  fs::TempDir tmp;
  std::filesystem::path outside = tmp.path() / "outside";
  fs::write_file_atomic(outside, "keep me\n");
  fs::create_dirs(tmp.path() / "build");
  std::filesystem::create_symlink(outside, tmp.path() / "build" / ".opkit-build.lock");
  std::filesystem::create_symlink(tmp.path() / "nowhere", tmp.path() / "build" / "dangling");
  std::filesystem::create_directory_symlink(tmp.path(), tmp.path() / "build" / ".opkit-noop");
  fs::Folder build = fs::Folder::open(tmp.path() / "build", "build folder", false);
  EXPECT_NE(refusal([&] {
              build.open_file(".opkit-build.lock", O_RDWR | O_CREAT);
            }).find(".opkit-build.lock: a symbolic link (to " + outside.string() + ")"),
            std::string::npos);
  EXPECT_NE(refusal([&] { build.open_file("dangling", O_RDWR | O_CREAT); }).find("a symbolic link"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "nowhere")) << "a dangling link's target was made";
  EXPECT_NE(refusal([&] { build.child(".opkit-noop", "kept no-ops", true); }).find("where opkit keeps its kept no-ops"),
            std::string::npos);
  EXPECT_FALSE(build.read(".opkit-build.lock", 100)) << "read through a link";
  EXPECT_FALSE(build.remove_file(".opkit-build.lock")) << "a link is not a file opkit made";
  EXPECT_EQ(fs::read_file(outside), "keep me\n");
  // The folder itself a link: refused too.
  std::filesystem::create_directory_symlink(tmp.path() / "build", tmp.path() / "linked");
  EXPECT_NE(refusal([&] { fs::Folder::open(tmp.path() / "linked", "build folder", true); }).find("a symbolic link"),
            std::string::npos);
  // A lock file taken through a Folder: a link is refused before anything is written.
  EXPECT_NE(refusal([&] { fs::FileLock lock(build, ".opkit-build.lock"); }).find("a symbolic link"), std::string::npos);
  EXPECT_EQ(fs::read_file(outside), "keep me\n");
}

TEST(UtilFolder, AFifoOrAFolderWhereAFileIsKeptIsOneError)
{
  fs::TempDir tmp;
  fs::Folder dir = fs::Folder::open(tmp.path(), "folder", false);
  ASSERT_EQ(::mkfifo((tmp.path() / "fifo").c_str(), 0644), 0);
  fs::create_dirs(tmp.path() / "sub");
  EXPECT_NE(refusal([&] { dir.open_file("fifo", O_RDWR); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal([&] { dir.open_file("sub", O_RDWR); }).find("a folder where opkit keeps a file"),
            std::string::npos);
  EXPECT_FALSE(dir.read("fifo", 100)) << "a FIFO is never read (it would block)";
  EXPECT_NE(refusal([&] { fs::read_file(tmp.path() / "fifo"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal([&] { fs::read_file(tmp.path() / "sub"); }).find("a folder, not a file"), std::string::npos);
}

TEST(UtilFolder, FindsTheFirstLinkBelowAFolderButTheAllowedOnes)
{
  fs::TempDir tmp;
  fs::create_dirs(tmp.path() / "tf-1.12.0" / "opkit" / "cuda");
  std::filesystem::create_directory_symlink("/usr/include", tmp.path() / "tf-1.12.0" / "opkit" / "cuda" / "inc");
  auto allowed = [](const std::filesystem::path& relative) { return relative.begin()->string() == "tf-1.12.0"; };
  EXPECT_FALSE(fs::find_link_below(tmp.path(), +allowed));
  std::filesystem::create_symlink("/etc/passwd", tmp.path() / ".ninja_log");
  EXPECT_EQ(fs::find_link_below(tmp.path(), +allowed).value_or(""), tmp.path() / ".ninja_log");
}
