#include "opkit/project/manifest.hpp"
#include "opkit/scaffold/scaffold.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

using namespace opkit;
namespace stdfs = std::filesystem;

TEST(Scaffold, RendersWithoutHtmlEscaping)
{
  EXPECT_EQ(scaffold::render_mustache("a {{x}} <{{y}}>", {{"x", "\"q\" & <t>"}, {"y", "1"}}), "a \"q\" & <t> <1>");
}

TEST(Scaffold, ListsTheTensorflowOpTemplate)
{
  auto templates = scaffold::list_templates();
  auto found = std::find_if(templates.begin(), templates.end(),
                            [](const scaffold::TemplateInfo& t) { return t.name == "tensorflow-op"; });
  ASSERT_NE(found, templates.end());
  EXPECT_NE(found->description.find("TensorFlow custom op"), std::string::npos);
  EXPECT_TRUE(
    std::is_sorted(templates.begin(), templates.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
}

TEST(Scaffold, NewProjectParsesAndNamesFollowTheName)
{
  fs::TempDir dir;
  scaffold::NewOptions options;
  options.name = "fancy-op";
  options.output = dir.path() / "fancy";
  options.target_versions = {"1.12", "2.10.1"};
  scaffold::NewResult result = scaffold::create_project(options);
  EXPECT_EQ(result.op_name, "FancyOp");
  EXPECT_NE(std::find(result.files.begin(), result.files.end(), "src/fancy_op_op.cc"), result.files.end());
  project::Manifest manifest = project::load_manifest(result.root);
  EXPECT_EQ(manifest.name, "fancy_op");
  EXPECT_EQ(manifest.primary_op().name, "FancyOp");
  EXPECT_EQ(manifest.target_versions, (std::vector<std::string>{"1.12", "2.10.1"}));
  EXPECT_NE(fs::read_file(result.root / "src/fancy_op_op.cc").find("REGISTER_OP(\"FancyOp\")"), std::string::npos);
}

TEST(Scaffold, FailuresLeaveNothingBehind)
{
  fs::TempDir dir;
  scaffold::NewOptions options;
  options.output = dir.path() / "p";
  options.target_versions = {"2.10.1"};
  for (const char* bad : {"9x", "a b"}) {
    options.name = bad;
    EXPECT_THROW(scaffold::create_project(options), Error);
  }
  options.name = "ok";
  options.template_name = "no-such-template";
  EXPECT_THROW(scaffold::create_project(options), Error);
  options.template_name = "tensorflow-op";
  options.target_versions = {"2.x"};
  EXPECT_THROW(scaffold::create_project(options), Error);
  EXPECT_TRUE(stdfs::is_empty(dir.path())) << "something was left in " << dir.path();
}
