#include "opkit/project/version.hpp"

#include <gtest/gtest.h>

using opkit::project::parse_version;
using opkit::project::version_matches;

TEST(Version, ParsesAndPrints)
{
  EXPECT_EQ(parse_version("2.10.1")->str(), "2.10.1");
  EXPECT_EQ(parse_version("1.12")->parts, (std::vector<int>{1, 12}));
  EXPECT_EQ(parse_version("2.11.0-rc1")->suffix, "-rc1");
  EXPECT_EQ(parse_version("2.11.0rc1")->suffix, "rc1");
}

TEST(Version, RejectsMalformed)
{
  for (const char* bad : {"", "2.", ".1", "2.x", "two", "1..2", "1.2.3.4.5", "-1"}) {
    EXPECT_FALSE(parse_version(bad)) << bad;
  }
}

TEST(Version, RefusesSuffixesThatAreNotPlainTags)
{
  // A suffix becomes part of an SDK id (a folder of the store) and is written
  // into opkit.yaml: no path separators, quotes, "..", spaces or control bytes.
  for (const char* bad :
       {"1.12.0-rc0/../../outside", "1.12-x\"]", "2.10.1-a b", "2.10.1-rc0..x", "2.10.1-\n", "2.10.1-r\xff"}) {
    EXPECT_FALSE(parse_version(bad)) << bad;
  }
  EXPECT_FALSE(parse_version("2.10.1-" + std::string(40, 'a')));
  EXPECT_TRUE(parse_version("2.10.1-rc0.post1+local_2"));
}

TEST(Version, OrdersNumericallyAndReleasesAfterPrereleases)
{
  EXPECT_LT(*parse_version("2.9.3"), *parse_version("2.10.0"));
  EXPECT_LT(*parse_version("2.11.0-rc1"), *parse_version("2.11.0"));
  EXPECT_FALSE(*parse_version("2.10.1") < *parse_version("2.10.1"));
}

TEST(Version, PrefixSpecMatches)
{
  EXPECT_TRUE(version_matches(*parse_version("2.10"), *parse_version("2.10.1")));
  EXPECT_TRUE(version_matches(*parse_version("1.12"), *parse_version("1.12.0")));
  EXPECT_TRUE(version_matches(*parse_version("2.10.1"), *parse_version("2.10.1")));
  EXPECT_FALSE(version_matches(*parse_version("2.1"), *parse_version("2.10.1")));
  EXPECT_FALSE(version_matches(*parse_version("2.10.1"), *parse_version("2.10")));
  EXPECT_FALSE(version_matches(*parse_version("2.10.0"), *parse_version("2.10.1")));
}
