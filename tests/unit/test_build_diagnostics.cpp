#include "opkit/build/compile_db.hpp"
#include "opkit/build/diagnostics.hpp"
#include "opkit/util/json.hpp"

#include <gtest/gtest.h>

using namespace opkit;

TEST(Diagnostics, TheSameErrorsOfTwoTargetsCompareEqual)
{
  std::string a = build::normalize_diagnostics(
    "\x1b[01m/p/build/tf-1.12.0/opkit/x.h:3: error: no 'std::__cxx11::basic_string<char>'\n"
    "In file included from /h/sdks/tensorflow-1.12.0/include/a.h:1\n",
    {"/p/build/tf-1.12.0/", "tf-1.12.0/", "/h/sdks/tensorflow-1.12.0"});
  std::string b = build::normalize_diagnostics("/p/build/tf-2.10.1/opkit/x.h:3: error: no 'std::basic_string<char>'\n"
                                               "In file included from /h/sdks/tensorflow-2.10.1/include/a.h:1\n",
                                               {"tf-2.10.1/", "/p/build/tf-2.10.1/", "/h/sdks/tensorflow-2.10.1"});
  EXPECT_EQ(a, b);
  EXPECT_NE(build::normalize_diagnostics("a.cc:3: error: x\n", {}),
            build::normalize_diagnostics("a.cc:4: error: x\n", {}));
}

TEST(Diagnostics, ShownByTheFirstTargetAndMentionedOncePerPair)
{
  build::DiagnosticsSeen seen;
  EXPECT_EQ(seen.shown_before("tf-1.12.0", "e"), "");
  EXPECT_EQ(seen.shown_before("tf-1.12.0", "e"), "") << "a target's own diagnostics are its own";
  EXPECT_EQ(seen.shown_before("tf-2.10.1", "e"), "tf-1.12.0");
  EXPECT_TRUE(seen.first_mention("tf-2.10.1", "tf-1.12.0"));
  EXPECT_FALSE(seen.first_mention("tf-2.10.1", "tf-1.12.0"));
  EXPECT_EQ(seen.shown_before("tf-2.10.1", "other"), "");
}

TEST(CompileDb, MergedOneEntryPerFileTheFirstTextWins)
{
  std::string newest = R"([{"file": "/p/a.cc", "arguments": ["g++", "-std=c++17"]}])";
  std::string older = R"([{"file": "/p/a.cc", "arguments": ["g++", "-std=c++11"]},
                          {"file": "/p/old_only.cc", "arguments": ["g++"]}])";
  Json merged = Json::parse(build::merge_compile_commands({newest, "not json", older}));
  ASSERT_EQ(merged.size(), 2U);
  EXPECT_EQ(merged[0]["arguments"][1], "-std=c++17");
  EXPECT_EQ(merged[1]["file"], "/p/old_only.cc");
}
