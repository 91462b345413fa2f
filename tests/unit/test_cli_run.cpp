#include "opkit/cli/run.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace stdfs = std::filesystem;

namespace {

// opkit::cli::run on the given arguments (after "opkit"), as main() calls it.
int
run_opkit(std::vector<std::string> args)
{
  args.insert(args.begin(), "opkit");
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  return opkit::cli::run(static_cast<int>(args.size()), argv.data());
}

class ParseOnly : public ::testing::Test
{
protected:
  void SetUp() override
  {
    folder_ = stdfs::temp_directory_path() / ("opkit-parse-only-" + std::to_string(::getpid()));
    stdfs::remove_all(folder_);
    stdfs::create_directories(folder_);
    ::setenv("OPKIT_PARSE_ONLY", "1", 1);
  }
  void TearDown() override
  {
    ::unsetenv("OPKIT_PARSE_ONLY");
    stdfs::remove_all(folder_);
  }
  stdfs::path folder_;
};

} // namespace

// Arguments that parse: exit 0, and the command does not run (no project
// written, no -C into a folder that is not there).
TEST_F(ParseOnly, ArgumentsThatParseRunNothing)
{
  stdfs::path before = stdfs::current_path();
  EXPECT_EQ(run_opkit({"new", "parsed_op", "--template", "easyrec-layer", "--output", (folder_ / "op").string()}), 0);
  EXPECT_FALSE(stdfs::exists(folder_ / "op")) << "parse-only ran opkit new";
  EXPECT_EQ(run_opkit({"-C", (folder_ / "not-there").string(), "build", "--tf", "1.12,2.10.1", "-j", "2"}), 0);
  EXPECT_EQ(stdfs::current_path(), before) << "parse-only ran -C";
  EXPECT_EQ(run_opkit({"package", "saved-model", "export", "--tf", "2.10.1", "--asset", "fg.json"}), 0);
  EXPECT_EQ(run_opkit({"sdk", "remove", "tensorflow-9.9.9"}), 0);
}

// Arguments that do not parse: exit 2, as without the switch.
TEST_F(ParseOnly, ArgumentsThatDoNotParseAreUsageErrors)
{
  EXPECT_EQ(run_opkit({"buld"}), 2);
  EXPECT_EQ(run_opkit({"build", "--jbos", "4"}), 2);
  EXPECT_EQ(run_opkit({"build", "-j", "0"}), 2);
  EXPECT_EQ(run_opkit({"build", "--abi", "2"}), 2);
  EXPECT_EQ(run_opkit({"sdk"}), 2);
  EXPECT_EQ(run_opkit({"package", "saved-model"}), 2);
}

// Only "1" switches it on: otherwise the command runs (here -C fails, exit 2).
TEST_F(ParseOnly, OnlyOneSwitchesItOn)
{
  ::setenv("OPKIT_PARSE_ONLY", "0", 1);
  EXPECT_FALSE(opkit::cli::parse_only_requested());
  EXPECT_EQ(run_opkit({"-C", (folder_ / "not-there").string(), "config", "path"}), 2);
  ::setenv("OPKIT_PARSE_ONLY", "1", 1);
  EXPECT_TRUE(opkit::cli::parse_only_requested());
}
