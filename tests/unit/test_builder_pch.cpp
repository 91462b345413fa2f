#include "opkit/builder/pch.hpp"
#include "opkit/builder/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;

namespace {

const std::vector<std::string> k_defines = {"EIGEN_USE_THREADS"};
const std::vector<std::string> k_prefixes = {"tensorflow/"};

sdk::Sdk
fake_sdk(const char* version, int abi, int standard)
{
  sdk::Sdk sdk;
  sdk.id = std::string("tensorflow-") + version;
  sdk.root = "/store/sdks/" + sdk.id;
  sdk.version = *project::parse_version(version);
  sdk.cxx11_abi = abi;
  sdk.cxx_standard = standard;
  return sdk;
}

builder::PchSpec
spec_for(const sdk::Sdk& sdk, const std::string& identity)
{
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  return builder::plan_pch(sdk, flags, "/usr/bin/g++", identity, "/home/pch");
}

bool
has_include(const builder::CompileStep& step)
{
  return std::find(step.flags.begin(), step.flags.end(), "-include") != step.flags.end();
}

} // namespace

TEST(PchSource, TakesAnOpThatIncludesTensorflowHeaders)
{
  EXPECT_TRUE(
    builder::source_can_use_pch("// an op\n#include \"tensorflow/core/framework/op.h\"\n", k_defines, k_prefixes));
  EXPECT_TRUE(builder::source_can_use_pch("#include <vector>\n#include <tensorflow/core/framework/op_kernel.h>\n",
                                          k_defines, k_prefixes));
  // The define the PCH itself opens with may come first, as ops write it.
  EXPECT_TRUE(builder::source_can_use_pch("#define EIGEN_USE_THREADS\n#include \"tensorflow/core/framework/op.h\"\n",
                                          k_defines, k_prefixes));
  // An op's own header first is fine: the PCH is only a prefix.
  EXPECT_TRUE(builder::source_can_use_pch("#include \"my_ops/common.h\"\n#include \"tensorflow/core/framework/op.h\"\n",
                                          k_defines, k_prefixes));
  // Defines after the first #include cannot change the TF headers the PCH holds.
  EXPECT_TRUE(builder::source_can_use_pch("#include \"tensorflow/core/framework/op.h\"\n#define MY_THING 1\n",
                                          k_defines, k_prefixes));
}

TEST(PchSource, RefusesSourcesThatPrepareTheHeadersThemselves)
{
  EXPECT_FALSE(builder::source_can_use_pch("#define EIGEN_USE_GPU\n#include \"tensorflow/core/framework/op.h\"\n",
                                           k_defines, k_prefixes));
  EXPECT_FALSE(builder::source_can_use_pch("#if GOOGLE_CUDA\n#define EIGEN_USE_GPU\n#endif\n"
                                           "#include \"tensorflow/core/framework/op_kernel.h\"\n",
                                           k_defines, k_prefixes));
  EXPECT_FALSE(builder::source_can_use_pch("#define EIGEN_USE_THREADS 1\n#include \"tensorflow/core/framework/op.h\"\n",
                                           k_defines, k_prefixes));
  EXPECT_FALSE(
    builder::source_can_use_pch("#undef NDEBUG\n#include \"tensorflow/core/framework/op.h\"\n", k_defines, k_prefixes));
  // Nothing of TensorFlow included: the PCH would only cost time.
  EXPECT_FALSE(builder::source_can_use_pch("#include <atomic>\nint x;\n", k_defines, k_prefixes));
}

TEST(PchSource, CommentsAreNotDirectives)
{
  EXPECT_TRUE(builder::source_can_use_pch("// #define EIGEN_USE_GPU\n/* #undef X\n#define Y */\n"
                                          "#include \"tensorflow/core/framework/op.h\"\n",
                                          k_defines, k_prefixes));
  EXPECT_FALSE(
    builder::source_can_use_pch("/* #include \"tensorflow/core/framework/op.h\" */\n", k_defines, k_prefixes));
}

TEST(PchSource, TheFrameworksPrefixesDecide)
{
  const std::vector<std::string> torch = {"torch/", "ATen/", "c10/"};
  EXPECT_TRUE(builder::source_can_use_pch("#include <torch/library.h>\n", {}, torch));
  EXPECT_TRUE(builder::source_can_use_pch("#include \"ATen/ATen.h\"\n", {}, torch));
  EXPECT_FALSE(builder::source_can_use_pch("#include \"tensorflow/core/framework/op.h\"\n", {}, torch));
  EXPECT_FALSE(builder::source_can_use_pch("#include <torch/library.h>\n", k_defines, k_prefixes));
}

TEST(PchSpec, KeyFollowsCompilerSdkAndFlags)
{
  sdk::Sdk sdk = fake_sdk("2.10.1", 1, 17);
  builder::PchSpec a = spec_for(sdk, "/usr/bin/g++-12@1:2:3");
  EXPECT_EQ(a.key, spec_for(sdk, "/usr/bin/g++-12@1:2:3").key);
  EXPECT_NE(a.key, spec_for(sdk, "/usr/bin/g++-12@1:2:4").key) << "a changed compiler needs a new PCH";
  EXPECT_NE(a.key, spec_for(fake_sdk("1.12.0", 0, 11), "/usr/bin/g++-12@1:2:3").key);
  EXPECT_EQ(a.dir, std::filesystem::path("/home/pch/tensorflow-2.10.1") / a.key);
  EXPECT_NE(a.header_text.find("#define EIGEN_USE_THREADS\n#include \"tensorflow/core/framework/op.h\"\n"),
            std::string::npos)
    << a.header_text;
}

TEST(PchPlan, UsedOnlyWhenTheFlagsMatchExactly)
{
  sdk::Sdk sdk = fake_sdk("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::PchSpec spec = spec_for(sdk, "g++@1");
  builder::PchUse use{spec.header().string(), spec.flags, {"src/kernels.cc"}};
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/p", {}, "/p/build/tf-2.10.1", false, {}, {}, {}, ""};
  builder::LibraryInput library{"op", "libop.so", {"src/kernels.cc", "src/util.cc"}, {}, {}, {}, {}, {}};
  builder::TargetPlan plan = builder::plan_target(input, {library}, sdk, flags, {}, std::nullopt, use);
  ASSERT_EQ(plan.compiles.size(), 2U);
  EXPECT_TRUE(has_include(plan.compiles[0]));
  EXPECT_FALSE(has_include(plan.compiles[1])) << "only the sources it was given";
  EXPECT_NE(builder::render_ninja(plan).find("-include /home/pch/tensorflow-2.10.1/" + spec.key + "/opkit_pch.h"),
            std::string::npos);

  builder::FlagOverrides abi0;
  abi0.cxx11_abi = 0;
  builder::TargetPlan other = builder::plan_target(input, {library}, sdk, flags, abi0, std::nullopt, use);
  EXPECT_FALSE(has_include(other.compiles[0])) << "a changed flag compiles plainly";

  builder::LibraryInput includes = library;
  includes.include_dirs = {"/p", "/p/include"};
  EXPECT_TRUE(has_include(builder::plan_target(input, {includes}, sdk, flags, {}, std::nullopt, use).compiles[0]))
    << "include folders change nothing gcc checks a PCH against";
  builder::LibraryInput defines = library;
  defines.defines = {"FAST"};
  EXPECT_FALSE(has_include(builder::plan_target(input, {defines}, sdk, flags, {}, std::nullopt, use).compiles[0]))
    << "a define does";
}

TEST(PchPlan, CompatHeadersComeAfterThePchAndKeepIt)
{
  sdk::Sdk sdk = fake_sdk("1.12.0", 0, 11);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::PchSpec spec = spec_for(sdk, "g++@1");
  builder::PchUse use{spec.header().string(), spec.flags, {"src/kernels.cc"}};
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/p", {}, "/p/build/tf-1.12.0", false, {}, {}, {}, ""};
  builder::LibraryInput library{"op", "libop.so", {"src/kernels.cc"}, {}, {}, {}, {}, {}};
  library.compat = {"tstring"};
  library.force_includes = {"/p/build/tf-1.12.0/opkit/compat/tstring.h"};
  builder::TargetPlan plan = builder::plan_target(input, {library}, sdk, flags, {}, std::nullopt, use);
  ASSERT_EQ(plan.compiles.size(), 1U);
  const std::vector<std::string>& a = plan.compiles[0].flags;
  auto pch = std::find(a.begin(), a.end(), use.header);
  auto shim = std::find(a.begin(), a.end(), library.force_includes[0]);
  ASSERT_NE(pch, a.end()) << "a forced-in header costs no PCH";
  ASSERT_NE(shim, a.end());
  EXPECT_LT(pch, shim) << "gcc takes a PCH only as the first include";
  EXPECT_EQ(*(shim - 1), "-include");
  EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const std::string& f) { return f.rfind("-Dtstring", 0) == 0; }), 0);
}
