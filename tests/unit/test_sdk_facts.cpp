#include "opkit/sdk/facts.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/index.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "fact_files_test_util.hpp"

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
  // torch 2.11+: the CUDA runtime through a meta-package's extras
  std::string toolkit = "Name: torch\nRequires-Dist: cuda-toolkit[cublas,cudart,cupti]==13.2.2; platform_system == "
                        "\"Linux\"\nRequires-Dist: cuda-bindings<14,>=13.0.3\n";
  EXPECT_EQ(pinned_version(toolkit, "cuda-toolkit", "cupti"), "13.2.2");
  EXPECT_EQ(pinned_version(toolkit, "cuda-toolkit", "cudart"), "13.2.2");
  EXPECT_EQ(pinned_version(toolkit, "cuda-toolkit", "cudnn"), "") << "an extra the requirement does not name";
  EXPECT_EQ(pinned_version(toolkit, "cuda-toolkit"), "") << "without an extra, extras make no plain pin";
  EXPECT_EQ(pinned_version("Requires-Dist: cuda-toolkit[cudart==1\n", "cuda-toolkit", "cudart"), "") << "unclosed";
}

// --- The real files of six TensorFlow releases (scripts/fetch-fact-files.py
// reads them out of the official wheels into $OPKIT_FACT_FILES; the ctest
// entry unit.real_wheels runs these, after its fixture fetched them).

TEST(SdkFactsRealWheel, TensorflowVersionFromWhicheverFileHoldsIt)
{
  struct Case
  {
    const char* release;
    const char* version;
    const char* origin;
  };
  for (const Case& c :
       {Case{"tensorflow-1.12.0", "1.12.0", "version.h"}, Case{"tensorflow-cpu-2.10.1", "2.10.1", "version.h"},
        Case{"tensorflow-cpu-2.15.1", "2.15.1", "version.h"}, Case{"tensorflow-cpu-2.19.1", "2.19.1", "version.h"},
        Case{"tensorflow-cpu-2.20.0", "2.20.0", "dist-info/METADATA"},
        Case{"tensorflow-cpu-2.21.0", "2.21.0", "dist-info/METADATA"}}) {
    std::filesystem::path root = real_release(c.release);
    WheelMetadata metadata = parse_metadata(read_text(root / "dist-info/METADATA"));
    auto [version, origin] = tensorflow_version(root, c.release, metadata);
    EXPECT_EQ(version.str(), c.version) << c.release;
    EXPECT_NE(origin.find(c.origin), std::string::npos) << c.release << ": " << origin;
    // 2.20 and 2.21: release_version.h is there, and holds no numbers of its own.
    if (std::string(c.origin) == "dist-info/METADATA") {
      std::string release = read_text(root / "include/tensorflow/core/public/release_version.h");
      EXPECT_NE(release.find("TF_VERSION_STRING"), std::string::npos) << c.release;
      EXPECT_FALSE(parse_version_header(release)) << c.release;
    }
  }
}

TEST(SdkFactsRealWheel, TensorflowStandardIsTheTablesAndPythonTheMetadatas)
{
  struct Case
  {
    const char* release;
    int standard;
    const char* requires_python; // "" where METADATA says none (1.12.0)
  };
  for (const Case& c : {Case{"tensorflow-1.12.0", 11, ""}, Case{"tensorflow-cpu-2.10.1", 17, ">=3.7"},
                        Case{"tensorflow-cpu-2.19.1", 17, ">=3.9"}, Case{"tensorflow-cpu-2.21.0", 17, ">=3.10"}}) {
    std::filesystem::path root = real_release(c.release);
    std::string metadata = read_text(root / "dist-info/METADATA");
    auto [version, origin] = tensorflow_version(root, c.release, parse_metadata(metadata));
    Sdk sdk;
    opkit::project::FrameworkFlags flags = opkit::project::FrameworkTable::tensorflow().flags_for(version);
    decide_standard(sdk, flags, std::nullopt, ""); // the wheel says none: the table decides
    EXPECT_EQ(sdk.cxx_standard, c.standard) << c.release;
    EXPECT_EQ(sdk.origins["cxx_standard"].rfind("the table (configs/frameworks/tensorflow.yaml), range >=", 0), 0u)
      << sdk.origins["cxx_standard"];
    apply_python(sdk, metadata);
    EXPECT_EQ(sdk.requires_python, c.requires_python) << c.release;
    EXPECT_EQ(sdk.origins.count("python"), std::string(c.requires_python).empty() ? 0u : 1u) << c.release;
  }
}

TEST(SdkFactsRealWheel, PlatformIsTheOldestGlibcOfTheFileName)
{
  struct Case
  {
    const char* release;
    const char* tag;
    const char* glibc;
  };
  for (const Case& c : {Case{"tensorflow-1.12.0", "manylinux1_x86_64", "2.5"},
                        Case{"tensorflow-cpu-2.20.0", "manylinux2014_x86_64", "2.17"},
                        Case{"tensorflow-cpu-2.21.0", "manylinux_2_27_x86_64", "2.27"}}) {
    std::string wheel = opkit::trim(read_text(real_release(c.release) / "wheel"));
    std::optional<WheelName> name = parse_wheel_name(wheel);
    ASSERT_TRUE(name) << wheel;
    std::optional<WheelPlatform> platform = wheel_platform(*name);
    ASSERT_TRUE(platform) << wheel;
    // manylinux_2_17 and manylinux2014 are one glibc: the first tag of the two is kept
    EXPECT_EQ(platform->glibc_text(), c.glibc) << wheel;
    if (std::string(c.glibc) != "2.17") {
      EXPECT_EQ(platform->tag, c.tag) << wheel;
    }
  }
}
