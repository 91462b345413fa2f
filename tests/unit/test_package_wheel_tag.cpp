#include "opkit/package/wheel_tag.hpp"
#include "opkit/project/runtime_policy.hpp"

#include <gtest/gtest.h>

using namespace opkit::package;

TEST(PackageWheelTag, GlibcFromPep600Tags)
{
  EXPECT_EQ(manylinux_glibc("manylinux_2_17").value(), std::make_pair(2, 17));
  EXPECT_EQ(manylinux_glibc("manylinux_2_28").value(), std::make_pair(2, 28));
  EXPECT_FALSE(manylinux_glibc("manylinux2014"));
  EXPECT_FALSE(manylinux_glibc("linux"));
}

TEST(PackageWheelTag, TheOldestPassingPolicyWins)
{
  PolicyVerdict m2010{"manylinux2010", {"manylinux_2_12", "manylinux2010"}, false, "GLIBCXX_3.4.19"};
  PolicyVerdict m2014{"manylinux2014", {"manylinux_2_17", "manylinux2014"}, true, {}};
  PolicyVerdict m228{"manylinux_2_28", {"manylinux_2_28"}, true, {}};
  // Order of the verdicts does not matter: the oldest glibc among those passing.
  EXPECT_EQ(choose_platform_tag({m228, m2014, m2010}, "x86_64"), "manylinux_2_17_x86_64.manylinux2014_x86_64");
  m2010.passes = true;
  EXPECT_EQ(choose_platform_tag({m228, m2014, m2010}, "x86_64"), "manylinux_2_12_x86_64.manylinux2010_x86_64");
  m2010.passes = m2014.passes = false;
  EXPECT_EQ(choose_platform_tag({m2010, m2014, m228}, "aarch64"), "manylinux_2_28_aarch64");
  m228.passes = false;
  EXPECT_EQ(choose_platform_tag({m2010, m2014, m228}, "x86_64"), "linux_x86_64");
  EXPECT_EQ(choose_platform_tag({}, "x86_64"), "linux_x86_64");
}

TEST(PackageWheelTag, TheManylinuxPoliciesCarryTheirTags)
{
  EXPECT_EQ(opkit::project::load_runtime_policy("manylinux2014").wheel_tags,
            (std::vector<std::string>{"manylinux_2_17", "manylinux2014"}));
  EXPECT_EQ(opkit::project::load_runtime_policy("manylinux_2_28").wheel_tags,
            (std::vector<std::string>{"manylinux_2_28"}));
  // A TF runtime is what a TF wheel assumes, not a platform a wheel may claim.
  EXPECT_TRUE(opkit::project::load_runtime_policy("tensorflow-2.10").wheel_tags.empty());
}
