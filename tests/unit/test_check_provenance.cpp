#include "opkit/check/provenance.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace opkit;
namespace stdfs = std::filesystem;

TEST(Provenance, VersionNamedByAFolderOrATaggedPart)
{
  EXPECT_EQ(check::version_named_by_path("site-packages/easy_rec/python/ops/1.12/libload_embed.so"), "1.12");
  EXPECT_EQ(check::version_named_by_path("ops/2.10.1/libx.so"), "2.10.1");
  EXPECT_EQ(check::version_named_by_path("build/libfused_tf2.10.so"), "2.10");
  EXPECT_EQ(check::version_named_by_path("build/libfused-TF-1.15.5.so"), "1.15.5");
  EXPECT_EQ(check::version_named_by_path("tensorflow_2.12/lib/libop.so"), "2.12");
  // The innermost part wins.
  EXPECT_EQ(check::version_named_by_path("tf1.15/ops/2.10/libop.so"), "2.10");
}

TEST(Provenance, OtherNumbersAreNoVersion)
{
  EXPECT_EQ(check::version_named_by_path("lib/python3.10/site-packages/pkg/libop.so"), "");
  EXPECT_EQ(check::version_named_by_path("lib/python2.7/site-packages/pkg/libop.so"), ""); // python2.7 is no TF 2.7
  EXPECT_EQ(check::version_named_by_path("mypkg-1.2.0/libop.so"), "");
  EXPECT_EQ(check::version_named_by_path("ops/libop.so.2.10"), ""); // a soname's version is not TF's
  EXPECT_EQ(check::version_named_by_path("stuff/libtf3.1.so"), "");
  EXPECT_EQ(check::version_named_by_path("stuff/libtf1.12345678901234567890123456.so"), "");
  EXPECT_EQ(check::version_named_by_path(""), "");
}

TEST(Provenance, TensorflowRequirementOfMetadata)
{
  EXPECT_EQ(check::tensorflow_requirement("Metadata-Version: 2.1\nName: fancy\nRequires-Dist: numpy\n"
                                          "Requires-Dist: tensorflow (==2.10.1)\n"),
            "==2.10.1");
  EXPECT_EQ(check::tensorflow_requirement("Name: x\nrequires-dist: TensorFlow-GPU>=1.15,<2 ; python_version<'3.8'\n"),
            ">=1.15,<2");
  EXPECT_EQ(check::tensorflow_requirement("Name: x\nRequires-Dist: tensorflow-addons==0.19\n"), "");
  // The description after the headers is not read.
  EXPECT_EQ(check::tensorflow_requirement("Name: x\n\nRequires-Dist: tensorflow==1.12.0\n"), "");
  EXPECT_EQ(check::tensorflow_requirement("Name: x\nRequires-Dist: tensorflow==" + std::string(100000, '1') + "\n"),
            "");
}

TEST(Provenance, WheelRecordPathAndNeedsAreClues)
{
  char pattern[] = "/tmp/opkit-provenance-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  stdfs::path site = pattern;
  stdfs::create_directories(site / "fancy_ops/1.12");
  stdfs::create_directories(site / "fancy_ops-0.3.dist-info");
  stdfs::create_directories(site / "other-1.0.dist-info");
  fs::write_file_atomic(site / "fancy_ops/1.12/libfancy.so", "not read");
  fs::write_file_atomic(site / "other-1.0.dist-info/RECORD", "other/libfancy.so,,\n");
  fs::write_file_atomic(site / "other-1.0.dist-info/METADATA", "Name: other\nRequires-Dist: tensorflow==2.4.0\n");
  fs::write_file_atomic(site / "fancy_ops-0.3.dist-info/RECORD", "fancy_ops/__init__.py,,\nfancy_ops/1.12/libfancy.so,"
                                                                 "sha256=x,8\n");
  fs::write_file_atomic(site / "fancy_ops-0.3.dist-info/METADATA",
                        "Name: fancy-ops\nVersion: 0.3\nRequires-Dist: tensorflow==1.12.0\n");

  check::Provenance p =
    check::read_provenance(site / "fancy_ops/1.12/libfancy.so", "libtensorflow_framework.so", ">=1.12,<1.14");
  EXPECT_EQ(p.version, "1.12.0"); // the wheel's pin is more exact than the path
  ASSERT_EQ(p.evidence.size(), 3u);
  EXPECT_EQ(p.evidence[0], "its wheel fancy-ops 0.3 requires tensorflow==1.12.0");
  EXPECT_EQ(p.evidence[1], "its path names TF 1.12");
  EXPECT_EQ(p.evidence[2], "it needs libtensorflow_framework.so, the framework library of TF >=1.12,<1.14");

  // Without the wheel: the path alone.
  stdfs::remove_all(site / "fancy_ops-0.3.dist-info");
  p = check::read_provenance(site / "fancy_ops/1.12/libfancy.so", "", "");
  EXPECT_EQ(p.version, "1.12");
  EXPECT_EQ(p.evidence, std::vector<std::string>{"its path names TF 1.12"});
  stdfs::remove_all(site);
}
