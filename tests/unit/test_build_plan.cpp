#include "opkit/build/ninja_writer.hpp"
#include "opkit/build/plan.hpp"
#include "opkit/util/json.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

sdk::Sdk
fake_sdk_facts(const char* version, int abi, int standard)
{
  // Only the facts plan_library reads; no files are touched.
  sdk::Sdk sdk;
  sdk.root = std::string("/store/sdks/tensorflow-") + version;
  sdk.version = *project::parse_version(version);
  sdk.cxx11_abi = abi;
  sdk.cxx_standard = standard;
  return sdk;
}

build::TargetPlan
plan_for(const char* version, int abi, int standard, build::FlagOverrides overrides = {})
{
  sdk::Sdk sdk = fake_sdk_facts(version, abi, standard);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  return build::plan_library("/usr/bin/g++", "zero_out", "/my project", {"src/b.cc", "src/a.cc"}, {}, sdk, flags,
                             overrides, std::string("/my project/build/tf-") + version);
}

} // namespace

TEST(NinjaWriter, EscapesDollarEverywhereAndSpaceColonInPaths)
{
  EXPECT_EQ(build::ninja_escape("a $b c:d"), "a $$b c:d");
  EXPECT_EQ(build::ninja_escape_path("/my dir/c:d$e"), "/my$ dir/c$:d$$e");
}

TEST(BuildPlan, NinjaFileIsDeterministic)
{
  std::string first = build::render_ninja(plan_for("2.10.1", 1, 17));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(build::render_ninja(plan_for("2.10.1", 1, 17)), first);
  }
  EXPECT_EQ(build::render_compile_commands(plan_for("2.10.1", 1, 17)),
            build::render_compile_commands(plan_for("2.10.1", 1, 17)));
}

TEST(BuildPlan, NinjaFileForTf2101)
{
  std::string text = build::render_ninja(plan_for("2.10.1", 1, 17));
  EXPECT_NE(text.find("build obj/src/b.cc.o: cxx /my$ project/src/b.cc\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  flags = -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -DEIGEN_MAX_ALIGN_BYTES=64 -fPIC"),
            std::string::npos)
    << text;
  // The SDK include folder is quoted for the shell, escaped for ninja.
  EXPECT_NE(text.find("-I/store/sdks/tensorflow-2.10.1/include\n"), std::string::npos) << text;
  EXPECT_NE(text.find("build libzero_out.so: link obj/src/b.cc.o obj/src/a.cc.o\n"
                      "  link_flags = -shared -L/store/sdks/tensorflow-2.10.1/lib -l:libtensorflow_framework.so.2\n"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("  deps = gcc\n"), std::string::npos);
  EXPECT_NE(text.find("default libzero_out.so\n"), std::string::npos);
}

TEST(BuildPlan, Tf112LinksUnversionedFramework)
{
  std::string text = build::render_ninja(plan_for("1.12.0", 0, 11));
  EXPECT_NE(text.find("-std=c++11 -D_GLIBCXX_USE_CXX11_ABI=0"), std::string::npos);
  EXPECT_NE(text.find("link_flags = -shared -L/store/sdks/tensorflow-1.12.0/lib -ltensorflow_framework\n"),
            std::string::npos)
    << text;
}

TEST(BuildPlan, OverridesReplaceTheSdkFacts)
{
  build::FlagOverrides overrides;
  overrides.cxx11_abi = 1;
  overrides.cxx_standard = 14;
  std::string text = build::render_ninja(plan_for("1.12.0", 0, 11, overrides));
  EXPECT_NE(text.find("-std=c++14 -D_GLIBCXX_USE_CXX11_ABI=1"), std::string::npos) << text;
}

TEST(BuildPlan, CompileCommandsListEverySource)
{
  Json commands = Json::parse(build::render_compile_commands(plan_for("2.10.1", 1, 17)));
  ASSERT_EQ(commands.size(), 2U);
  EXPECT_EQ(commands[0]["file"], "/my project/src/b.cc");
  EXPECT_EQ(commands[0]["directory"], "/my project/build/tf-2.10.1");
  std::vector<std::string> args = commands[0]["arguments"];
  EXPECT_EQ(args.front(), "/usr/bin/g++");
  EXPECT_EQ(std::vector<std::string>(args.end() - 4, args.end()),
            (std::vector<std::string>{"-c", "/my project/src/b.cc", "-o", "obj/src/b.cc.o"}));
}
