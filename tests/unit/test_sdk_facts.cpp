#include "opkit/sdk/facts.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit::sdk;

TEST(SdkFacts, VersionHeader)
{
  std::string header = "#define TF_MAJOR_VERSION 2\n#define TF_MINOR_VERSION 10\n#define TF_PATCH_VERSION 1\n"
                       "#define TF_VERSION_SUFFIX \"\"\n";
  EXPECT_EQ(parse_version_header(header)->str(), "2.10.1");
  std::string rc = "#define TF_MAJOR_VERSION 2\n#define TF_MINOR_VERSION 11\n#define TF_PATCH_VERSION 0\n"
                   "#define TF_VERSION_SUFFIX \"-rc1\"\n";
  EXPECT_EQ(parse_version_header(rc)->str(), "2.11.0-rc1");
  EXPECT_FALSE(parse_version_header("#define TF_MAJOR_VERSION 2\n"));
}

TEST(SdkFacts, MetadataAndWheelTags)
{
  WheelMetadata m = parse_metadata("Metadata-Version: 2.1\nName: tensorflow-cpu\nVersion: 2.10.1\nSummary: x\n");
  EXPECT_EQ(m.name, "tensorflow-cpu");
  EXPECT_EQ(m.version, "2.10.1");
  EXPECT_EQ(parse_wheel_tags("Wheel-Version: 1.0\nTag: cp310-cp310-manylinux_2_17_x86_64\n"
                             "Tag: cp310-cp310-manylinux2014_x86_64\n"),
            "cp310-cp310-manylinux_2_17_x86_64.cp310-cp310-manylinux2014_x86_64");
}

TEST(SdkFacts, BuildInfoInBothSpellings)
{
  EXPECT_FALSE(parse_build_info("is_cuda_build = False\n").is_cuda_build);
  CudaInfo one = parse_build_info("is_cuda_build = True\ncuda_version = '9.0'\ncudnn_version = '7'\n");
  EXPECT_TRUE(one.is_cuda_build);
  EXPECT_EQ(one.cuda_version, "9.0");
  CudaInfo two = parse_build_info(
    "build_info = collections.OrderedDict([('cpu_compiler', '/dt9/usr/bin/gcc'), ('cuda_version', '11.2'), "
    "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False)])\n");
  EXPECT_TRUE(two.is_cuda_build);
  EXPECT_EQ(two.cuda_version, "11.2");
  EXPECT_EQ(two.cudnn_version, "8");
}

TEST(SdkFacts, AbiFromMangledNames)
{
  // Real exports of the 1.12.0 and 2.10.1 framework libraries.
  std::vector<std::string> old_abi = {
    "_ZN10tensorflow12OpDefBuilder4AttrESs", "_ZN10tensorflow6Status9SlowCopyFromEPKNS0_5StateE",
    "_ZN10tensorflow10DataTypeStringB5cxx11ENS_8DataTypeE_not_really", "_ZN10tensorflow7strings8StrSplitERKSsc"};
  SpellingCounts c = count_spellings({old_abi[0], old_abi[1], old_abi[3]});
  EXPECT_EQ(c.old_string, 2U);
  EXPECT_EQ(c.cxx11, 0U);
  EXPECT_EQ(abi_from_counts(c), 0);

  SpellingCounts n =
    count_spellings({"_ZN10tensorflow12OpDefBuilder4AttrENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                     "_ZN10tensorflow22KernelsRegisteredForOpB5cxx11ESt17basic_string_viewIcSt11char_traitsIcEE",
                     "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7reserveEm"});
  EXPECT_EQ(n.cxx11, 2U); // the std:: one is not a tensorflow:: export
  EXPECT_EQ(n.std_string_view, 1U);
  EXPECT_EQ(abi_from_counts(n), 1);

  EXPECT_FALSE(abi_from_counts(SpellingCounts{}));
  EXPECT_FALSE(abi_from_counts(SpellingCounts{3, 4, 0, 0}));
  EXPECT_EQ(count_spellings({"_ZN10tensorflow3fooEN4absl12lts_2022062311string_viewE"}).absl_string_view, 1U);
  EXPECT_EQ(count_spellings({"_ZN10tensorflow3fooEN4absl11string_viewE"}).absl_string_view, 1U);
}

TEST(SdkFacts, HostileValuesAreRefusedNotCrashedOn)
{
  // 300k characters once overflowed std::regex's stack; the scanners walk them.
  std::string huge(300000, 'a');
  std::string header = "#define TF_MAJOR_VERSION 1\n#define TF_MINOR_VERSION 12\n#define TF_PATCH_VERSION 0\n";
  EXPECT_FALSE(parse_version_header(header + "#define TF_VERSION_SUFFIX \"-" + huge + "\"\n"));
  EXPECT_FALSE(parse_version_header(header + "#define TF_VERSION_SUFFIX \"-rc0/../../../outside\"\n"));
  EXPECT_FALSE(parse_version_header(header + "#define TF_VERSION_SUFFIX -rc0\n")); // not a string
  EXPECT_EQ(parse_version_header(header + "  #  define TF_VERSION_SUFFIX \"-rc0\"  // comment\n")->str(), "1.12.0-rc0");
  EXPECT_FALSE(parse_version_header("#define TF_MAJOR_VERSION 99999999999\n#define TF_MINOR_VERSION 1\n"
                                    "#define TF_PATCH_VERSION 0\n"));
  EXPECT_THROW(parse_metadata("Name: " + huge + "\nVersion: 1.12.0\n"), opkit::Error);
  EXPECT_THROW(parse_metadata("Name: tensor\xff\nVersion: 1.12.0\n"), opkit::Error);
  EXPECT_THROW(parse_build_info("build_info = OrderedDict([('cuda_version', '" + huge + "')])\n"), opkit::Error);
  EXPECT_THROW(parse_build_info("cudnn_version = '" + huge + "\n"), opkit::Error);
  // The body after the headers is not a header.
  EXPECT_EQ(parse_metadata("Name: tensorflow\nVersion: 1.12.0\n\nName: not-this\n").name, "tensorflow");
}

// Both spellings PyPI's torch wheels use (2.5.1: "name (==v) ; marker", 2.8.0: "name==v; marker").
TEST(SdkFacts, PinnedVersionOfADistribution)
{
  std::string old_style = "Metadata-Version: 2.1\nName: torch\n"
                          "Requires-Dist: nvidia-cuda-runtime-cu12 (==12.4.127) ; platform_system == \"Linux\"\n"
                          "Requires-Dist: nvidia-cuda-cupti-cu12 (==12.4.127) ; platform_system == \"Linux\"\n"
                          "Requires-Dist: sympy (>=1.13)\n\nRequires-Dist: in-the-body==9\n";
  EXPECT_EQ(pinned_version(old_style, "nvidia-cuda-runtime-cu12"), "12.4.127");
  EXPECT_EQ(pinned_version(old_style, "nvidia-cuda-cupti-cu12"), "12.4.127");
  EXPECT_EQ(pinned_version(old_style, "sympy"), "") << "not an exact pin";
  EXPECT_EQ(pinned_version(old_style, "in-the-body"), "") << "the description is not a header";
  EXPECT_EQ(pinned_version(old_style, "nvidia-cuda"), "") << "another distribution's name only starts the same";
  std::string new_style = "Name: torch\nRequires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == "
                          "\"Linux\" and platform_machine == \"x86_64\"\n";
  EXPECT_EQ(pinned_version(new_style, "nvidia-cuda-runtime-cu12"), "12.8.90");
  EXPECT_EQ(pinned_version("Requires-Dist: x==1.0;$(rm -rf)\n", "x"), "1.0");
  EXPECT_EQ(pinned_version("Requires-Dist: x==1.0$(rm)\n", "x"), "") << "only a version's characters";
}
