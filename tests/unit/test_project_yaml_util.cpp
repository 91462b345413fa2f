#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/json.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

bool
ends_with_yaml(std::string_view path)
{
  return path.size() > 5 && path.substr(path.size() - 5) == ".yaml";
}

// A twin keeps every scalar as a string (configs read their scalars as
// text): the tree with each scalar as its text.
Json
text_tree(const YAML::Node& node)
{
  if (node.IsMap()) {
    Json map = Json::object();
    for (const auto& entry : node) {
      map[entry.first.Scalar()] = text_tree(entry.second);
    }
    return map;
  }
  if (node.IsSequence()) {
    Json list = Json::array();
    for (const YAML::Node& item : node) {
      list.push_back(text_tree(item));
    }
    return list;
  }
  return node.IsScalar() ? Json(node.Scalar()) : Json();
}

} // namespace

TEST(ProjectYamlUtil, EveryEmbeddedConfigLoadsFromItsTwinAsFromItsYaml)
{
  size_t configs = 0;
  size_t templates = 0;
  for (const EmbeddedFile& file : embedded_files()) {
    std::string path(file.path);
    bool config = path.rfind("configs/", 0) == 0 && ends_with_yaml(path);
    bool template_spec =
      path.rfind("templates/", 0) == 0 && path.size() > 14 && path.substr(path.size() - 14) == "/template.yaml";
    if (!config && !template_spec) {
      continue;
    }
    ASSERT_TRUE(find_embedded(path + ".json")) << path << " has no JSON twin";
    YAML::Node from_yaml = project::yaml::load(std::string(file.content), path);
    YAML::Node from_twin = project::yaml::load_embedded(path);
    EXPECT_EQ(text_tree(from_twin), text_tree(from_yaml)) << path;
    EXPECT_FALSE(from_twin.IsNull()) << path;
    (config ? configs : templates) += 1;
  }
  EXPECT_GE(configs, 7U);
  EXPECT_GE(templates, 6U);
}

TEST(ProjectYamlUtil, ValuesBecomeJsonOfTheirYamlType)
{
  YAML::Node node = project::yaml::load("a: [1, -2, 1.5, 1e3, true, \"7\", '8', x, .5e1, 0x10, nan, 01]\n"
                                        "b: \"line\\nnext \\\"q\\\"\"\n",
                                        "t.yaml");
  Json json = Json::parse(project::yaml::to_json_text(node));
  EXPECT_EQ(json["a"].dump(), R"([1,-2,1.5,1000.0,true,"7","8","x",5.0,"0x10","nan",1])");
  EXPECT_EQ(json["b"].get<std::string>(), "line\nnext \"q\"");
}

TEST(ProjectYamlUtil, NanAndInfinitiesBecomeTaggedObjectsJsonCanHold)
{
  // JSON has no NaN: nlohmann would write null, Python's json NaN, which nlohmann refuses.
  YAML::Node node = project::yaml::load("a: [.nan, .NaN, .inf, +.INF, -.inf, '.nan', 1.5]\n", "t.yaml");
  Json json = Json::parse(project::yaml::to_json_text(node));
  EXPECT_EQ(json["a"].dump(), R"([{"$float":"nan"},{"$float":"nan"},{"$float":"inf"},{"$float":"inf"},)"
                              R"({"$float":"-inf"},".nan",1.5])");
}
