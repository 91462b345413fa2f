#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/error.hpp"

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
text_tree(const project::Node& node)
{
  if (node.is_map()) {
    Json map = Json::object();
    for (const auto& entry : node) {
      map[entry.first.scalar()] = text_tree(entry.second);
    }
    return map;
  }
  if (node.is_sequence()) {
    Json list = Json::array();
    for (const project::Node& item : node) {
      list.push_back(text_tree(item));
    }
    return list;
  }
  return node.is_scalar() ? Json(node.scalar()) : Json();
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
    ASSERT_TRUE(find_embedded(path + ".msgpack")) << path << " has no MessagePack twin";
    project::Node from_yaml = project::yaml::load(std::string(file.content), path);
    project::Node from_twin = project::yaml::load_embedded(path);
    EXPECT_EQ(text_tree(from_twin), text_tree(from_yaml)) << path;
    EXPECT_FALSE(from_twin.is_null()) << path;
    (config ? configs : templates) += 1;
  }
  EXPECT_GE(configs, 7U);
  EXPECT_GE(templates, 6U);
}

TEST(ProjectYamlUtil, ValuesBecomeJsonOfTheirYamlType)
{
  project::Node node = project::yaml::load("a: [1, -2, 1.5, 1e3, true, \"7\", '8', x, .5e1, 0x10, nan, 01]\n"
                                           "b: \"line\\nnext \\\"q\\\"\"\n",
                                           "t.yaml");
  Json json = Json::parse(project::yaml::to_json_text(node));
  EXPECT_EQ(json["a"].dump(), R"([1,-2,1.5,1000.0,true,"7","8","x",5.0,"0x10","nan",1])");
  EXPECT_EQ(json["b"].get<std::string>(), "line\nnext \"q\"");
}

TEST(ProjectYamlUtil, NanAndInfinitiesBecomeTaggedObjectsJsonCanHold)
{
  // JSON has no NaN: nlohmann would write null, Python's json NaN, which nlohmann refuses.
  project::Node node = project::yaml::load("a: [.nan, .NaN, .inf, +.INF, -.inf, '.nan', 1.5]\n", "t.yaml");
  Json json = Json::parse(project::yaml::to_json_text(node));
  EXPECT_EQ(json["a"].dump(), R"([{"$float":"nan"},{"$float":"nan"},{"$float":"inf"},{"$float":"inf"},)"
                              R"({"$float":"-inf"},".nan",1.5])");
}

TEST(ProjectNode, MissingKeysAndIndexesAreUndefinedAndMarksAreKept)
{
  project::Node doc = project::yaml::load("a:\n  - x\n  - \"y\"\nb: ~\nc: {d: 1}\n", "t.yaml");
  ASSERT_TRUE(doc.is_map());
  EXPECT_EQ(doc.size(), 3U);
  EXPECT_FALSE(doc["missing"].is_defined());
  EXPECT_FALSE(doc["a"]["key of a list"].is_defined());
  EXPECT_FALSE(doc["a"][7].is_defined());
  EXPECT_EQ(doc["a"][1].scalar(), "y");
  EXPECT_TRUE(doc["a"][1].quoted());
  EXPECT_FALSE(doc["a"][0].quoted());
  EXPECT_TRUE(doc["b"].is_null());
  EXPECT_TRUE(doc["b"].is_defined());
  EXPECT_EQ(doc["c"]["d"].scalar(), "1");
  EXPECT_EQ(project::yaml::where("t.yaml", doc["a"][1]), "t.yaml:3:5");
  std::vector<std::string> keys;
  for (const auto& entry : doc) {
    keys.push_back(entry.first.scalar() + "@" + std::to_string(entry.first.mark().line + 1));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"a@1", "b@4", "c@5"}));
  std::vector<std::string> items;
  for (const project::Node& item : doc["a"]) {
    items.push_back(item.scalar());
  }
  EXPECT_EQ(items, (std::vector<std::string>{"x", "y"}));
  size_t none = 0;
  for (const project::Node& item : doc["b"]) {
    none += item.is_defined() ? 1 : 0;
  }
  EXPECT_EQ(none, 0U);
}

TEST(ProjectNode, DuplicateKeysAndAliasBombsAreRefusedWithTheirPlace)
{
  auto error_of = [](const std::string& text) {
    try {
      project::yaml::load(text, "t.yaml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("a: 1\nb: 2\na: 3\n"), "t.yaml:3:1: duplicate key 'a'");
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) {
      bomb += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    }
    bomb += "]\n";
  }
  EXPECT_NE(error_of(bomb).find("expands to more than 100000 nodes"), std::string::npos) << error_of(bomb);
}
