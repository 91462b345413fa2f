#include "opkit/cli/json_failure.hpp"
#include "opkit/util/json.hpp"

#include <gtest/gtest.h>

using opkit::ExitCode;
using opkit::Json;
using opkit::cli::add_json_flag;
using opkit::cli::json_failure_document;

namespace {

struct Sample
{
  CLI::App app{"opkit"};
  bool json = false;
  bool python = false;

  Sample()
  {
    CLI::App* test = app.add_subcommand("test", "Test");
    test->add_flag("--python", python, "Vectors");
    add_json_flag(test, json, "opkit.test/1", "Print the report as JSON",
                  [this] { return python ? "opkit.test-python/1" : "opkit.test/1"; });
    app.add_subcommand("clean", "Clean");
  }

  void parse(std::vector<std::string> words)
  {
    std::reverse(words.begin(), words.end());
    app.parse(words);
  }
};

} // namespace

TEST(CliJsonFailure, TheCommandsSchemaTheErrorAndTheExitCode)
{
  Sample sample;
  sample.parse({"test", "--json"});
  std::optional<std::string> text =
    json_failure_document(sample.app, false, ExitCode::missing, "tensorflow 9.9: no SDK imported", "fetch it");
  ASSERT_TRUE(text.has_value());
  Json doc = Json::parse(*text);
  EXPECT_EQ(doc["schema"], "opkit.test/1");
  EXPECT_EQ(doc["error"]["message"], "tensorflow 9.9: no SDK imported");
  EXPECT_EQ(doc["error"]["hint"], "fetch it");
  EXPECT_EQ(doc["error"]["kind"], "missing");
  EXPECT_EQ(doc["exit_code"], 3);
}

TEST(CliJsonFailure, TheSchemaFollowsTheFlagsGivenAndNoHintIsLeftOut)
{
  Sample sample;
  sample.parse({"test", "--python", "--json"});
  Json doc = Json::parse(*json_failure_document(sample.app, false, ExitCode::usage, "bad", ""));
  EXPECT_EQ(doc["schema"], "opkit.test-python/1");
  EXPECT_FALSE(doc["error"].contains("hint"));
  EXPECT_EQ(doc["error"]["kind"], "usage");
}

TEST(CliJsonFailure, NothingWithoutJson)
{
  Sample without;
  without.parse({"test"});
  EXPECT_FALSE(json_failure_document(without.app, false, ExitCode::failed, "x", "").has_value());
  EXPECT_TRUE(json_failure_document(without.app, true, ExitCode::usage, "x", "").has_value())
    << "--json on the line, the parse stopped before it";
  Sample other;
  other.parse({"clean"});
  EXPECT_FALSE(json_failure_document(other.app, true, ExitCode::usage, "x", "").has_value())
    << "a command without --json has no document";
}
