#include "opkit/check/profile.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit;
using check::ProfileLibrary;

namespace {

const ProfileLibrary&
library(const check::Profile& profile, const std::string& soname)
{
  for (const ProfileLibrary& lib : profile.libraries) {
    if (lib.soname == soname) {
      return lib;
    }
  }
  throw std::runtime_error("no " + soname);
}

} // namespace

TEST(CheckProfile, PolicyCeilingsDecideVersions)
{
  check::Profile profile = check::profile_from_policy(project::load_runtime_policy("manylinux2014"));
  const ProfileLibrary& libc = library(profile, "libc.so.6");
  EXPECT_TRUE(check::provides_version(libc, "GLIBC_2.2.5"));
  EXPECT_TRUE(check::provides_version(libc, "GLIBC_2.17"));
  EXPECT_FALSE(check::provides_version(libc, "GLIBC_2.18"));
  EXPECT_FALSE(check::provides_version(libc, "GLIBC_2.32"));
  EXPECT_FALSE(check::provides_version(libc, "GLIBC_PRIVATE"));
  EXPECT_FALSE(check::provides_version(libc, "GLIBCXX_3.4"));
  const ProfileLibrary& cxx = library(profile, "libstdc++.so.6");
  EXPECT_TRUE(check::provides_version(cxx, "GLIBCXX_3.4.19"));
  EXPECT_FALSE(check::provides_version(cxx, "GLIBCXX_3.4.20"));
  EXPECT_TRUE(check::provides_version(cxx, "CXXABI_1.3.7"));
  EXPECT_FALSE(check::provides_version(cxx, "CXXABI_1.3.9"));
  EXPECT_TRUE(check::provides_version(cxx, "CXXABI_TM_1"));
  EXPECT_TRUE(check::provides_version(library(profile, "libgcc_s.so.1"), "GCC_3.0"));
  EXPECT_FALSE(check::provides_version(library(profile, "libgcc_s.so.1"), "GCC_7.0.0"));
}

TEST(CheckProfile, TheStockTfRuntimesAreKnown)
{
  std::vector<std::string> names = project::runtime_policy_names();
  for (const char* name :
       {"manylinux2014", "manylinux_2_28", "tensorflow-1.12", "tensorflow-1.15", "tensorflow-2.10"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "symbol-versions"), names.end());
  try {
    project::load_runtime_policy("centos5");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("'centos5': unknown runtime (known: host, "), std::string::npos);
  }
}

TEST(CheckProfile, ReleasesOfVersions)
{
  EXPECT_EQ(project::release_of_version("GLIBCXX_3.4.29"), "GCC 11.1.0");
  EXPECT_EQ(project::release_of_version("GLIBCXX_3.4.19"), "GCC 4.8.3");
  EXPECT_EQ(project::release_of_version("CXXABI_1.3.9"), "GCC 5.1.0");
  EXPECT_EQ(project::release_of_version("GLIBC_2.32"), "glibc 2.32");
  EXPECT_FALSE(project::release_of_version("GLIBCXX_3.4.99"));
  EXPECT_FALSE(project::release_of_version("tensorflow"));
}

TEST(CheckProfile, CapturedLibrariesKnowTheirSymbolsAndRoundTripThroughJson)
{
  check::Profile host = check::host_profile();
  const ProfileLibrary& libc = library(host, "libc.so.6");
  EXPECT_TRUE(libc.symbols_known);
  EXPECT_TRUE(check::provides_version(libc, "GLIBC_2.2.5"));
  EXPECT_FALSE(check::provides_version(libc, "GLIBC_2.99"));
  EXPECT_GT(libc.symbols.size(), 1000U);
  check::Profile back = check::profile_from_json(check::to_json(host), "p.json");
  EXPECT_EQ(back.libraries.size(), host.libraries.size());
  EXPECT_EQ(library(back, "libc.so.6").symbols.size(), libc.symbols.size());
  EXPECT_TRUE(check::provides_version(library(back, "libstdc++.so.6"), "GLIBCXX_3.4.21"));
}

TEST(CheckProfile, MalformedProfilesAreInputErrors)
{
  for (const char* text : {R"({"name": "x"})", R"({"schema": "opkit.profile/1", "name": 3, "libraries": []})",
                           R"({"schema": "opkit.profile/1", "name": "x", "libraries": [{"path": "a"}]})"}) {
    try {
      check::profile_from_json(Json::parse(text), "p.json");
      ADD_FAILURE() << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_EQ(std::string(e.what()).rfind("p.json: ", 0), 0U) << e.what();
    }
  }
}
