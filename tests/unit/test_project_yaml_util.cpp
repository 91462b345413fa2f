#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

bool
ends_with_yaml(std::string_view path)
{
  return path.size() > 5 && path.substr(path.size() - 5) == ".yaml";
}

} // namespace

TEST(ProjectYamlUtil, EveryEmbeddedConfigLoadsFromItsTwinAsFromItsYaml)
{
  size_t configs = 0;
  for (const EmbeddedFile& file : embedded_under("configs/")) {
    if (!ends_with_yaml(file.path)) {
      continue;
    }
    std::string path(file.path);
    ASSERT_TRUE(find_embedded(path + ".json")) << path << " has no JSON twin";
    YAML::Node from_yaml = project::yaml::load(std::string(file.content), path);
    YAML::Node from_twin = project::yaml::load_embedded(path);
    EXPECT_EQ(project::yaml::to_json_text(from_twin), project::yaml::to_json_text(from_yaml)) << path;
    ++configs;
  }
  EXPECT_GE(configs, 7U);
}

TEST(ProjectYamlUtil, AFileWithoutTwinIsParsedAsYaml)
{
  // Templates ship no twins; their specs load from the YAML.
  YAML::Node spec = project::yaml::load_embedded("templates/tensorflow-op/template.yaml");
  EXPECT_TRUE(spec.IsMap());
  EXPECT_NE(spec.Mark().line, -1); // parsed here, so it knows where it came from
}
