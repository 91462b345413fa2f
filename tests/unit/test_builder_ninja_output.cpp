#include "opkit/builder/ninja_output.hpp"

#include <vector>

#include <gtest/gtest.h>

using namespace opkit;

namespace {

struct Heard
{
  std::vector<builder::NinjaStep> statuses;
  std::vector<builder::NinjaStep> steps;
};

builder::NinjaOutputParser
parser_for(Heard& heard)
{
  return builder::NinjaOutputParser([&heard](const builder::NinjaStep& s) { heard.statuses.push_back(s); },
                                    [&heard](const builder::NinjaStep& s) { heard.steps.push_back(s); });
}

} // namespace

TEST(NinjaOutput, SplitsStepsWithTheirOutputAcrossChunks)
{
  Heard heard;
  builder::NinjaOutputParser parser = parser_for(heard);
  std::string text = "@opkit@ 1/3 @ CXX src/a.cc (tf-1.12.0)\n"
                     "src/a.cc:1:1: warning: unused\n"
                     "@opkit@ 2/3 @ CXX src/b.cc (tf-2.10.1)\n"
                     "\x1b[31mFAILED: \x1b[0mtf-2.10.1/obj/b.cc.o \n"
                     "g++ -c src/b.cc\n"
                     "src/b.cc:2:3: \x1b[01;31merror: \x1b[mno\n"
                     "ninja: build stopped: subcommand failed.\n";
  for (size_t i = 0; i < text.size(); i += 7) { // pieces as a pipe may hand them over
    parser.feed(text.substr(i, 7));
  }
  parser.finish();
  ASSERT_EQ(heard.statuses.size(), 2U);
  EXPECT_EQ(heard.statuses[1].finished, 2);
  EXPECT_EQ(heard.statuses[1].total, 3);
  ASSERT_EQ(heard.steps.size(), 2U);
  EXPECT_EQ(heard.steps[0].target, "tf-1.12.0");
  EXPECT_FALSE(heard.steps[0].failed);
  EXPECT_TRUE(heard.steps[0].compile());
  EXPECT_EQ(heard.steps[0].output, "src/a.cc:1:1: warning: unused\n");
  EXPECT_EQ(heard.steps[1].description, "CXX src/b.cc (tf-2.10.1)");
  EXPECT_EQ(heard.steps[1].target, "tf-2.10.1");
  EXPECT_TRUE(heard.steps[1].failed);
  EXPECT_EQ(heard.steps[1].command, "g++ -c src/b.cc");
  EXPECT_EQ(heard.steps[1].output, "src/b.cc:2:3: \x1b[01;31merror: \x1b[mno\n") << "colours kept for a terminal";
  EXPECT_EQ(parser.ninja_lines(), "ninja: build stopped: subcommand failed.\n");
}

TEST(NinjaOutput, CompilerOutputNeverLooksLikeAStep)
{
  Heard heard;
  builder::NinjaOutputParser parser = parser_for(heard);
  parser.feed("@opkit@ 1/1 @ LINK libx.so (tf-2.10.1)\n[2/9] CXX not a step\n");
  parser.finish();
  ASSERT_EQ(heard.steps.size(), 1U);
  EXPECT_FALSE(heard.steps[0].compile());
  EXPECT_EQ(heard.steps[0].output, "[2/9] CXX not a step\n");
}

TEST(NinjaOutput, StripAnsiRemovesEscapeSequencesOnly)
{
  EXPECT_EQ(builder::strip_ansi("\x1b[01;31m\x1b[Kerror: \x1b[m\x1b[Kx[1]"), "error: x[1]");
}
