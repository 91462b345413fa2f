#include "opkit/util/suggest.hpp"

#include <gtest/gtest.h>

using opkit::edit_distance;
using opkit::nearest;

TEST(CliSuggest, EditDistanceCountsEditsAndSwaps)
{
  EXPECT_EQ(edit_distance("build", "build"), 0u);
  EXPECT_EQ(edit_distance("buld", "build"), 1u);  // one deleted
  EXPECT_EQ(edit_distance("biuld", "build"), 1u); // two swapped
  EXPECT_EQ(edit_distance("bulid", "build"), 1u);
  EXPECT_EQ(edit_distance("--bogsu", "--bogus"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(CliSuggest, NearestPicksTheClosePlausibleCandidate)
{
  std::vector<std::string> commands = {"sdk", "new", "init", "build", "test", "check", "profile", "package", "publish"};
  EXPECT_EQ(nearest("buld", commands), "build");
  EXPECT_EQ(nearest("tset", commands), "test");
  EXPECT_EQ(nearest("pakage", commands), "package");
  EXPECT_EQ(nearest("sdj", commands), "sdk");
  EXPECT_EQ(nearest("publsih", commands), "publish");
  EXPECT_EQ(nearest("bu", commands), "build") << "a prefix means the command it starts";
  EXPECT_FALSE(nearest("xyzzy", commands).has_value());
  EXPECT_FALSE(nearest("", commands).has_value());
  EXPECT_FALSE(nearest("zz", commands).has_value()) << "two letters, two edits: not a suggestion";

  std::vector<std::string> options = {"--tf", "--lib", "-j", "--jobs", "--build-dir", "--no-check", "--help"};
  EXPECT_EQ(nearest("--jbos", options), "--jobs");
  EXPECT_EQ(nearest("--j", options), "--jobs");
  EXPECT_EQ(nearest("--buld-dir", options), "--build-dir");
  EXPECT_EQ(nearest("--nocheck", options), "--no-check");
  EXPECT_FALSE(nearest("--bogsu", options).has_value());
  EXPECT_FALSE(nearest("--", options).has_value()) << "dashes alone are no prefix of anything";
}

TEST(CliSuggest, NearestLeavesOtherWordsAlone)
{
  std::vector<std::string> options = {"--tf", "--torch", "--cpu", "--cuda", "--lib", "--jobs", "--verbose"};
  EXPECT_FALSE(nearest("--force", options).has_value()) << "2 edits of 5 letters: another word, not a typo";
  EXPECT_FALSE(nearest("--gpu", options).has_value()) << "a short word's first letter is meant";
  EXPECT_EQ(nearest("--cpi", options), "--cpu");
  EXPECT_EQ(nearest("--verbsoe", options), "--verbose");
  EXPECT_EQ(nearest("--vrebose", options), "--verbose");
  EXPECT_EQ(nearest("--torhc", options), "--torch");
  EXPECT_EQ(nearest("tensorflow_op", {"tensorflow-op", "torch-op"}), "tensorflow-op");
  EXPECT_EQ(nearest("sorces", {"name", "sources", "libraries"}), "sources");
}

TEST(CliSuggest, NearestNeverProposesTheWordGiven)
{
  std::vector<std::string> options = {"--tf", "--lib", "-j", "--jobs", "--build-dir"};
  EXPECT_FALSE(nearest("--jobs", options).has_value()) << "the word is not valid where it was given";
  EXPECT_FALSE(nearest("-j", options).has_value());
  EXPECT_EQ(nearest("--jobs", {"--jobs", "--jobz"}), "--jobz") << "the next nearest still counts";
  EXPECT_EQ(nearest("build", {"build", "builds"}), "builds") << "a longer name it starts is another word";
}
