#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using opkit::project::FrameworkFlags;
using opkit::project::FrameworkTable;
using opkit::project::parse_version;

namespace {

FrameworkFlags
flags(const char* version)
{
  return FrameworkTable::tensorflow().flags_for(*parse_version(version));
}

} // namespace

TEST(FrameworkTable, Tf112UsesOldAbiCxx11AndUnversionedLibrary)
{
  FrameworkFlags f = flags("1.12.0");
  EXPECT_EQ(f.cxx_standard, 11);
  EXPECT_EQ(f.cxx11_abi, 0);
  EXPECT_EQ(f.eigen_max_align_bytes, 64);
  EXPECT_EQ(f.framework_library, "libtensorflow_framework.so");
  EXPECT_EQ(f.link, "-ltensorflow_framework");
  EXPECT_TRUE(f.verified);
}

TEST(FrameworkTable, Tf2101UsesNewAbiCxx17AndSoname2)
{
  FrameworkFlags f = flags("2.10.1");
  EXPECT_EQ(f.cxx_standard, 17);
  EXPECT_EQ(f.cxx11_abi, 1);
  EXPECT_EQ(f.framework_library, "libtensorflow_framework.so.2");
  EXPECT_EQ(f.link, "-l:libtensorflow_framework.so.2");
  EXPECT_TRUE(f.verified);
}

TEST(FrameworkTable, RangeBoundaries)
{
  EXPECT_EQ(flags("1.13.1").framework_library, "libtensorflow_framework.so");
  EXPECT_EQ(flags("1.14.0").link, "-l:libtensorflow_framework.so.1");
  EXPECT_EQ(flags("1.15.5").framework_library, "libtensorflow_framework.so.1");
  EXPECT_EQ(flags("2.6.0").cxx_standard, 11);
  EXPECT_EQ(flags("2.7.0").cxx_standard, 14);
  EXPECT_EQ(flags("2.8.4").cxx11_abi, 0);
  EXPECT_EQ(flags("2.9.0").cxx11_abi, 1);
  EXPECT_EQ(flags("2.9.3").cxx_standard, 14);
  EXPECT_EQ(flags("2.10.0").cxx_standard, 17);
  EXPECT_EQ(flags("2.11.0-rc1").cxx_standard, 17);
  EXPECT_EQ(flags("2.16.1").quirks.at(0).id, "no-eigen3-shim");
}

TEST(FrameworkTable, CommonFlagsComeWithEveryRange)
{
  FrameworkFlags f = flags("2.10.1");
  EXPECT_NE(std::find(f.compile_flags.begin(), f.compile_flags.end(), "-fPIC"), f.compile_flags.end());
  EXPECT_EQ(f.link_flags, std::vector<std::string>{"-shared"});
  EXPECT_EQ(f.include_dirs, std::vector<std::string>{"include"});
}

TEST(FrameworkTable, VersionsOfAFrameworkLibrary)
{
  const FrameworkTable& table = FrameworkTable::tensorflow();
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so"), ">=1.12,<1.14");
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so.1"), ">=1.14,<2.0");
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so.2"), ">=2.0");
  EXPECT_EQ(table.versions_with_framework_library("libc.so.6"), "");
  EXPECT_EQ(table.framework_libraries(),
            (std::vector<std::string>{"libtensorflow_framework.so", "libtensorflow_framework.so.1",
                                      "libtensorflow_framework.so.2"}));
}

TEST(FrameworkTable, OlderThanFirstRangeIsAnError)
{
  try {
    flags("1.11.0");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    EXPECT_STREQ(e.what(), "tensorflow 1.11.0: unsupported version (opkit supports 1.12 and later)");
  }
}

TEST(FrameworkTable, MalformedTableNamesTheLine)
{
  std::string text = "framework: tensorflow\nversions:\n  - since: \"1.12\"\n    cxx_standard: eleven\n";
  try {
    FrameworkTable::parse(text, "t.yaml");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_STREQ(e.what(), "t.yaml:4:19: 'cxx_standard' must be an integer, got 'eleven'");
  }
}

TEST(FrameworkTable, PythonEnvironmentRecipesOfTheVerifiedVersions)
{
  const auto& table = opkit::project::FrameworkTable::tensorflow();
  auto old = table.flags_for(*opkit::project::parse_version("1.12.0")).python_env;
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->python, "3.6");
  EXPECT_EQ(old->pip, "pip==21.3.1");
  EXPECT_EQ(old->pins, (std::vector<std::string>{"numpy<1.17", "protobuf<3.20"}));
  EXPECT_EQ(old->flags, std::vector<std::string>{"--prefer-binary"});
  EXPECT_EQ(table.flags_for(*opkit::project::parse_version("1.15.5")).python_env->python, "3.7");
  auto now = table.flags_for(*opkit::project::parse_version("2.10.1")).python_env;
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->python, "3.10");
  EXPECT_TRUE(now->pip.empty());
  EXPECT_FALSE(table.flags_for(*opkit::project::parse_version("2.7.0")).python_env.has_value())
    << "no recipe where none was checked";
}
