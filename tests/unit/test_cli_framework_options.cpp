#include "opkit/cli/framework_options.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit::cli;

namespace {

opkit::project::Version
v(const char* text)
{
  return *opkit::project::parse_version(text);
}

} // namespace

TEST(CliFrameworkOptions, RangeClausesCompareAsPep440)
{
  std::optional<VersionClause> at_least = parse_version_clause(">=2.16", "tf");
  ASSERT_TRUE(at_least);
  EXPECT_TRUE(at_least->admits(v("2.16.0")));
  EXPECT_TRUE(at_least->admits(v("2.21.0")));
  EXPECT_FALSE(at_least->admits(v("2.15.1")));
  std::optional<VersionClause> below = parse_version_clause("<2.20", "tf");
  ASSERT_TRUE(below);
  EXPECT_TRUE(below->admits(v("2.19.1")));
  EXPECT_FALSE(below->admits(v("2.20.0"))); // 2.20 is 2.20.0
  EXPECT_FALSE(parse_version_clause(">2.16", "tf")->admits(v("2.16.0")));
  EXPECT_TRUE(parse_version_clause("<=2.19", "tf")->admits(v("2.19.0")));
  EXPECT_FALSE(parse_version_clause("<=2.19", "tf")->admits(v("2.19.1")));
  EXPECT_FALSE(parse_version_clause("!=2.18.0", "tf")->admits(v("2.18")));
  EXPECT_EQ(parse_version_clause(">= 2.16", "tf")->version.str(), "2.16");
  // A plain version or an SDK id is no clause; a comparison without a version is a usage error.
  EXPECT_FALSE(parse_version_clause("2.16", "tf"));
  EXPECT_FALSE(parse_version_clause("tensorflow-2.10.1-cuda", "tf"));
  try {
    parse_version_clause(">=two", "torch");
    FAIL() << "no error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("--torch '>=two': expected a version after >="), std::string::npos)
      << e.what();
  }
}
