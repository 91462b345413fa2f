#include "opkit/sdk/cuda_toolchain.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/process.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

namespace stdfs = std::filesystem;
using opkit::run_process;

namespace {

// A Debian package made as dpkg-deb lays it out, whose data.tar.xz holds
// what a hostile one could: names leaving the folder, a link, a file not kept.
stdfs::path
hostile_deb(const stdfs::path& dir)
{
  const char* script = R"(
import io, sys, tarfile
out = sys.argv[1]
with tarfile.open(out, "w:xz") as tar:
    def add(name, data=b"x", mode=0o644, kind=tarfile.REGTYPE, link=""):
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.linkname = kind, mode, link
        info.size = len(data) if kind == tarfile.REGTYPE else 0
        tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    add("./usr/", kind=tarfile.DIRTYPE, mode=0o755)
    add("./usr/include/ok.h", b"#pragma once\n")
    add("./usr/bin/tool", b"#!/bin/sh\n", mode=0o755)
    add("./usr/bin/other", b"not kept")
    add("../evil.h")
    add("/abs.h")
    add("./usr/include/../../../evil2.h")
    add("./usr/include/link.h", kind=tarfile.SYMTYPE, link="/etc/passwd")
    add("./usr/include/up.h", kind=tarfile.SYMTYPE, link="../../etc/passwd")
    add("./usr/include/alias.h", kind=tarfile.SYMTYPE, link="ok.h")
    add("./usr/share/doc/readme", b"not kept")
# dpkg-deb's ar layout: names padded with spaces (GNU ar's end in '/').
members = [("debian-binary", b"2.0\n"), ("control.tar.xz", b""), ("data.tar.xz", open(out, "rb").read())]
with open(sys.argv[2], "wb") as deb:
    deb.write(b"!<arch>\n")
    for name, data in members:
        deb.write(b"%-16s%-12s%-6s%-6s%-8s%-10s`\n" % (name.encode(), b"0", b"0", b"0", b"100644", str(len(data)).encode()))
        deb.write(data + (b"\n" if len(data) % 2 else b""))
)";
  EXPECT_EQ(
    run_process({"python3", "-c", script, (dir / "data.tar.xz").string(), (dir / "pkg.deb").string()}).exit_code, 0);
  return dir / "pkg.deb";
}

} // namespace

TEST(SdkCudaToolchain, UnpacksOnlyTheKeptFilesAndSiblingLinksInsideTheFolder)
{
  opkit::fs::TempDir temp;
  stdfs::path deb = hostile_deb(temp.path());
  stdfs::path root = temp.path() / "root" / "inner";
  stdfs::create_directories(root);
  opkit::project::ToolchainPackage package{"pkg.deb", "", {"usr/include/", "usr/bin/tool", "../", "/"}};
  EXPECT_EQ(opkit::sdk::unpack_deb(deb, package, root), 3u);
  EXPECT_EQ(stdfs::read_symlink(root / "usr/include/alias.h"), "ok.h") << "a link to a sibling is kept";
  EXPECT_FALSE(stdfs::exists(stdfs::symlink_status(root / "usr/include/up.h")));
  EXPECT_TRUE(stdfs::is_regular_file(root / "usr/include/ok.h"));
  struct stat st
  {};
  ASSERT_EQ(::stat((root / "usr/bin/tool").c_str(), &st), 0);
  EXPECT_NE(st.st_mode & 0100, 0u) << "an executable stays executable";
  EXPECT_FALSE(stdfs::exists(root / "usr/bin/other"));
  EXPECT_FALSE(stdfs::exists(root / "usr/share"));
  EXPECT_FALSE(stdfs::exists(stdfs::symlink_status(root / "usr/include/link.h")));
  EXPECT_FALSE(stdfs::is_symlink(root / "usr/include/link.h"));
  EXPECT_FALSE(stdfs::exists(temp.path() / "root" / "evil.h"));
  EXPECT_FALSE(stdfs::exists(temp.path() / "evil.h"));
  EXPECT_FALSE(stdfs::exists(temp.path() / "evil2.h"));
  EXPECT_FALSE(stdfs::exists(root / "abs.h"));
}

TEST(SdkCudaToolchain, APackageOpkitCannotReadIsOneError)
{
  opkit::fs::TempDir temp;
  opkit::project::ToolchainPackage package{"x.deb", "", {"usr/"}};
  std::ofstream(temp.path() / "garbage.deb") << std::string(300, '\x7f');
  EXPECT_THROW(opkit::sdk::unpack_deb(temp.path() / "garbage.deb", package, temp.path()), opkit::Error);
  // An ar archive without data.tar.xz (a zstd-compressed package, say).
  std::ofstream(temp.path() / "debian-binary") << "2.0\n";
  opkit::ProcessOptions in_dir;
  in_dir.cwd = temp.path();
  ASSERT_EQ(run_process({"ar", "rc", "other.deb", "debian-binary"}, in_dir).exit_code, 0);
  try {
    opkit::sdk::unpack_deb(temp.path() / "other.deb", package, temp.path());
    FAIL() << "no data.tar.xz, no error";
  } catch (const opkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no data.tar.xz member"), std::string::npos) << e.what();
  }
}
