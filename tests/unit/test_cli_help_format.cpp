#include "opkit/cli/help_format.hpp"

#include <gtest/gtest.h>

using opkit::cli::value_name;

namespace {

bool
contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(CliHelpFormat, ValuesAreNamedInOpkitsWords)
{
  CLI::App app{"opkit"};
  int jobs = 0;
  int abi = 0;
  std::string text;
  std::vector<std::string> many;
  bool flag = false;
  EXPECT_EQ(value_name(*app.add_option("-j,--jobs", jobs, "Jobs")->check(CLI::PositiveNumber)), "N");
  EXPECT_EQ(value_name(*app.add_option("--abi", abi, "ABI")->check(CLI::IsMember({0, 1}))), "0|1");
  EXPECT_EQ(value_name(*app.add_option("--build-dir", text, "Folder")), "DIR");
  EXPECT_EQ(value_name(*app.add_option("--tf", many, "Versions")), "VERSION");
  EXPECT_EQ(value_name(*app.add_option("--index-url", text, "Index")), "URL");
  EXPECT_EQ(value_name(*app.add_option("--runtime", text, "Runtime")), "RUNTIME");
  EXPECT_EQ(value_name(*app.add_option("export_dir", text, "Export")), "EXPORT_DIR");
  EXPECT_EQ(value_name(*app.add_flag("--dry-run", flag, "Dry")), "");
}

TEST(CliHelpFormat, HelpHasNoCli11JargonAndEndsWithGlobalOptionsAndExamples)
{
  CLI::App app{"opkit"};
  app.name("opkit");
  app.formatter(opkit::cli::help_formatter());
  app.add_flag("-v,--verbose", "Log more");
  CLI::App* build = app.add_subcommand("build", "Build");
  int jobs = 0;
  bool cache = false;
  bool no_cache = false;
  build->add_option("-j,--jobs", jobs, "Jobs")->check(CLI::PositiveNumber);
  CLI::Option* with = build->add_flag("--cache", cache, "Cache");
  build->add_flag("--no-cache", no_cache, "No cache")->excludes(with);
  std::string help = build->help();
  EXPECT_TRUE(contains(help, "-j,--jobs N ")) << help;
  EXPECT_TRUE(contains(help, "No cache (not with --cache)")) << help;
  EXPECT_FALSE(contains(help, "INT")) << help;
  EXPECT_FALSE(contains(help, "Excludes")) << help;
  EXPECT_TRUE(contains(help, "Global options (before or after the command):\n  -v,--verbose")) << help;
  EXPECT_TRUE(contains(help, "Examples:\n  opkit build\n")) << help;
}

TEST(CliHelpFormat, EveryExampleIsOfItsCommand)
{
  for (const char* path : {"opkit", "opkit sdk add", "opkit build", "opkit config set"}) {
    std::vector<std::string> lines = opkit::cli::examples(path);
    ASSERT_FALSE(lines.empty()) << path;
    for (const std::string& line : lines) {
      EXPECT_EQ(line.rfind(path, 0), 0u) << line;
    }
  }
  EXPECT_TRUE(opkit::cli::examples("opkit nope").empty());
}
