#include "opkit/package/easyrec.hpp"
#include "opkit/package/tf_serving.hpp"
#include "opkit/package/wheel.hpp"
#include "opkit/project/package_rules.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

std::string
ops_dir(const char* version, const char* flavor = "")
{
  std::optional<project::OpsDirChoice> choice =
    project::easyrec_ops_dir(project::easyrec_rules(), *project::parse_version(version), flavor);
  return choice ? choice->dir : "(none)";
}

std::string
protobuf_min(const char* tf)
{
  return project::easyrec_protobuf_min(project::easyrec_rules(), *project::parse_version(tf)).str();
}

} // namespace

TEST(PackageRules, EasyRecOpsFolderForEveryRule)
{
  // 1.12 defaults to PAI-TF, what `pai -name easy_rec_ext` runs.
  EXPECT_EQ(ops_dir("1.12.0"), "1.12_pai");
  EXPECT_EQ(ops_dir("1.12.0", "pai"), "1.12_pai");
  EXPECT_EQ(ops_dir("1.12.0", "stock"), "1.12");
  EXPECT_EQ(ops_dir("1.15.5"), "1.15");
  EXPECT_EQ(ops_dir("1.15.5", "stock"), "1.15");
  EXPECT_EQ(ops_dir("1.15.5", "deeprec"), "DeepRec");
  EXPECT_EQ(ops_dir("2.10.1"), "2.10");
  EXPECT_EQ(ops_dir("2.10.1", "stock"), "2.10");
  EXPECT_EQ(ops_dir("2.12.0"), "2.12");
  EXPECT_EQ(ops_dir("1.14.0"), "1.14");
  // A flavor without a rule for the version gives nothing: the caller takes the default.
  EXPECT_EQ(ops_dir("2.10.1", "pai"), "(none)");
  EXPECT_EQ(ops_dir("1.12.0", "deeprec"), "(none)");
  EXPECT_THROW(ops_dir("1.12.0", "tpu"), Error);
}

TEST(PackageRules, EasyRecFolderSaysWhy)
{
  auto choice = project::easyrec_ops_dir(project::easyrec_rules(), *project::parse_version("1.12.0"), "");
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->flavor, "pai");
  EXPECT_NE(choice->why.find("'PAI' in tf.__version__"), std::string::npos) << choice->why;
  choice = project::easyrec_ops_dir(project::easyrec_rules(), *project::parse_version("2.10.1"), "");
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->flavor, "");
  EXPECT_NE(choice->why.find("major.minor"), std::string::npos) << choice->why;
}

TEST(PackageRules, EasyRecVersionsDottedAndNameCharactersOnly)
{
  for (const char* ok : {"0.7.5", "0_8_7", "v1", "release-2", "ABC_x-1", "1.0.0-rc1", "0.8.7.post1"}) {
    EXPECT_NO_THROW(package::validate_easyrec_version(ok)) << ok;
  }
  for (const char* bad : {"", "a b", "x/y", "v1;rm", ".", "..", ".hidden", "-V", "../x", "a\nb", "1.0+local"}) {
    EXPECT_THROW(package::validate_easyrec_version(bad), Error) << bad;
  }
  EXPECT_NO_THROW(package::validate_easyrec_version(std::string(100, 'a')));
  EXPECT_THROW(package::validate_easyrec_version(std::string(101, 'a')), Error);
  try {
    package::validate_easyrec_version("x/y");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
}

TEST(PackageRules, ProtobufEachTensorFlowRequires)
{
  // From the wheels' METADATA (Requires-Dist: protobuf).
  EXPECT_EQ(protobuf_min("1.12.0"), "3.6.1");
  EXPECT_EQ(protobuf_min("1.15.5"), "3.6.1");
  EXPECT_EQ(protobuf_min("2.10.1"), "3.9.2");
  EXPECT_EQ(protobuf_min("2.15.1"), "3.20.3");
  // Between rows the older, lower minimum holds; before the first, the first.
  EXPECT_EQ(protobuf_min("2.5.0"), "3.6.1");
  EXPECT_EQ(protobuf_min("1.10.0"), "3.6.1");
}

TEST(PackageRules, SupportedOpsAddedOnceInTheLastList)
{
  const std::string label = "//tensorflow_serving/custom_ops/z:z_ops";
  std::string build = "X = 1\nSUPPORTED_TENSORFLOW_OPS = if_v2([]) + if_not_v2([\n    \"a\",\n]) + [\n"
                      "    \"b\",\n    # comment\n    \"c\"\n]\n\ncc_library(name = \"s\")\n";
  std::optional<std::string> once = package::add_supported_op(build, label, "BUILD");
  ASSERT_TRUE(once);
  EXPECT_EQ(*once, "X = 1\nSUPPORTED_TENSORFLOW_OPS = if_v2([]) + if_not_v2([\n    \"a\",\n]) + [\n"
                   "    \"b\",\n    # comment\n    \"c\",\n    \""
                     + label + "\",\n]\n\ncc_library(name = \"s\")\n");
  EXPECT_FALSE(package::add_supported_op(*once, label, "BUILD"));
  EXPECT_EQ(*package::add_supported_op("SUPPORTED_TENSORFLOW_OPS = [\"a\"]\n", label, "BUILD"),
            "SUPPORTED_TENSORFLOW_OPS = [\"a\", \"" + label + "\"]\n");
  EXPECT_EQ(*package::add_supported_op("SUPPORTED_TENSORFLOW_OPS = []\n", label, "BUILD"),
            "SUPPORTED_TENSORFLOW_OPS = [\"" + label + "\"]\n");
  try {
    package::add_supported_op("cc_library()\n", label, "model_servers/BUILD");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "model_servers/BUILD: no complete SUPPORTED_TENSORFLOW_OPS = [...] assignment found");
  }
}

TEST(PackageRules, UnifiedDiffOfOneInsertion)
{
  std::string diff = package::unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n", "f");
  EXPECT_EQ(diff, "--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n");
}

TEST(PackageRules, RecordHashIsUrlSafeWithoutPadding)
{
  EXPECT_EQ(package::record_hash("ab+c/d=="), "sha256=ab-c_d");
}

TEST(PackageRules, EasyRecReleasesSayHowRawStringsReachAComponent)
{
  const project::EasyRecRules& rules = project::easyrec_rules();
  auto release = [&](const char* version) -> const project::EasyRecRules::Release& {
    return project::easyrec_release(rules, *project::parse_version(version));
  };
  // 0.7.x (pai-easy-rec 0.7.1 on PyPI): backbone components, no raw_input block.
  EXPECT_TRUE(release("0.7.0").components);
  EXPECT_FALSE(release("0.7.1").raw_input);
  EXPECT_FALSE(release("0.8.1").raw_input);
  // 0.8.2 brought raw_input, PassThroughFeature and custom_ops.py.
  EXPECT_TRUE(release("0.8.2").raw_input);
  EXPECT_TRUE(release("0.8.7").raw_input);
  EXPECT_NE(release("0.7.1").route.find("IdFeature"), std::string::npos);
  // Before 0.7.0 there is nothing to plug a component into: usage error naming the first release with it.
  try {
    release("0.6.4");
    ADD_FAILURE() << "0.6.4 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("needs EasyRec 0.7.0 or newer"), std::string::npos) << e.what();
  }
}
