#include "opkit/project/version.hpp"

#include <gtest/gtest.h>

using opkit::project::parse_version;
using opkit::project::Version;
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

TEST(Version, OrdersPreReleaseNumbersAsNumbers)
{
  EXPECT_LT(*parse_version("2.11.0rc2"), *parse_version("2.11.0rc10"));
  EXPECT_FALSE(*parse_version("2.11.0rc10") < *parse_version("2.11.0rc2"));
  EXPECT_LT(*parse_version("2.11.0-rc9"), *parse_version("2.11.0-rc10"));
  EXPECT_LT(*parse_version("2.11.0rc10"), *parse_version("2.11.0"));
}

TEST(Version, ParsesPostAndDevReleases)
{
  ASSERT_TRUE(parse_version("2.10.0.post1"));
  EXPECT_EQ(parse_version("2.10.0.post1")->parts, (std::vector<int>{2, 10, 0}));
  EXPECT_EQ(parse_version("2.10.0.post1")->suffix, ".post1");
  EXPECT_EQ(parse_version("2.10.0.post1")->str(), "2.10.0.post1");
  EXPECT_EQ(parse_version("2.12.0.dev20230101")->suffix, ".dev20230101");
  EXPECT_EQ(parse_version("1.dev0")->parts, (std::vector<int>{1}));
  EXPECT_LT(*parse_version("2.10.0"), *parse_version("2.10.0.post1"));
  EXPECT_LT(*parse_version("2.10.0.post1"), *parse_version("2.10.0.post2"));
  EXPECT_LT(*parse_version("2.10.0.post2"), *parse_version("2.10.1"));
  EXPECT_LT(*parse_version("2.12.0.dev20230101"), *parse_version("2.12.0rc0"));
  EXPECT_LT(*parse_version("2.11.0"), *parse_version("2.12.0.dev20230101"));
  // What pip leaves out of ==2.10.*: pre-releases and development releases, not post-releases.
  EXPECT_FALSE(parse_version("2.10.0")->prerelease());
  EXPECT_FALSE(parse_version("2.10.0.post1")->prerelease());
  EXPECT_FALSE(parse_version("2.10.0+local")->prerelease());
  EXPECT_TRUE(parse_version("2.11.0rc1")->prerelease());
  EXPECT_TRUE(parse_version("2.12.0.dev1")->prerelease());
  EXPECT_TRUE(parse_version("2.10.0.post1.dev1")->prerelease());
  EXPECT_TRUE(parse_version("2.10.0-cuda")->prerelease()) << "a suffix PEP 440 does not know";
  for (const char* bad : {"2.x", "2.10.0.postx", "2.10.0.devel", "2.10.0+", "2.10.0+a..b", "1.0.", "1.0.post1.post2"}) {
    EXPECT_FALSE(parse_version(bad)) << bad;
  }
}

TEST(Version, FollowsPep440sWholeOrder)
{
  // PEP 440's own example of the order, then each spelling it allows.
  std::vector<const char*> ordered = {"1.dev0",
                                      "1.0.dev456",
                                      "1.0a1",
                                      "1.0a2.dev456",
                                      "1.0a12.dev456",
                                      "1.0a12",
                                      "1.0b1.dev456",
                                      "1.0b2",
                                      "1.0b2.post345.dev456",
                                      "1.0b2.post345",
                                      "1.0rc1.dev456",
                                      "1.0rc1",
                                      "1.0",
                                      "1.0+abc.5",
                                      "1.0+abc.7",
                                      "1.0+5",
                                      "1.0.post456.dev34",
                                      "1.0.post456",
                                      "1.0.15",
                                      "1.1.dev1"};
  for (size_t i = 0; i < ordered.size(); ++i) {
    ASSERT_TRUE(parse_version(ordered[i])) << ordered[i];
    for (size_t j = 0; j < ordered.size(); ++j) {
      EXPECT_EQ(*parse_version(ordered[i]) < *parse_version(ordered[j]), i < j) << ordered[i] << " vs " << ordered[j];
    }
  }
  // Two spellings of one version sort alike against every other (they still
  // have a fixed order between them, as two texts).
  auto same = [&ordered](const char* a, const char* b) {
    for (const char* other : ordered) {
      Version x = *parse_version(a), y = *parse_version(b), v = *parse_version(other);
      if (v == x || v == y) {
        continue;
      }
      if ((x < v) != (y < v) || (v < x) != (v < y)) {
        return false;
      }
    }
    return true;
  };
  EXPECT_FALSE(same("1.0", "1.0.post456"));
  EXPECT_TRUE(same("1.0", "1.0.0")) << "trailing zeros do not count";
  EXPECT_TRUE(same("1.0rc1", "1.0-rc1"));
  EXPECT_TRUE(same("1.0rc1", "1.0.RC.1"));
  EXPECT_TRUE(same("1.0c1", "1.0rc1"));
  EXPECT_TRUE(same("1.0a", "1.0alpha0"));
  EXPECT_TRUE(same("1.0b2", "1.0-beta.2"));
  EXPECT_TRUE(same("1.0pre1", "1.0preview1"));
  EXPECT_TRUE(same("1.0.post1", "1.0-1"));
  EXPECT_TRUE(same("1.0.post1", "1.0rev1"));
  EXPECT_TRUE(same("1.0.post0", "1.0.post"));
  EXPECT_TRUE(same("1.0.dev0", "1.0-dev"));
  EXPECT_TRUE(same("1.0+ubuntu.1", "1.0+ubuntu-1"));
  EXPECT_LT(*parse_version("1.0+abc.1"), *parse_version("1.0+abc.1.0")) << "a longer local version is later";
  EXPECT_LT(*parse_version("1.0+9"), *parse_version("1.0+10"));
  EXPECT_LT(*parse_version("1.0-cuda"), *parse_version("1.0.dev0")) << "an unknown suffix: before PEP 440's";
}
