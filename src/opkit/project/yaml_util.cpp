#include "opkit/project/yaml_util.hpp"

#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <cstdlib>

namespace opkit::project::yaml {

std::string
at(const std::string& name, const YAML::Mark& mark)
{
  if (mark.is_null()) {
    return name;
  }
  return fmt::format("{}:{}:{}", name, mark.line + 1, mark.column + 1);
}

namespace {

YAML::Node
require(const YAML::Node& map, const char* key, const std::string& name)
{
  if (!map.IsMap()) {
    fail(ExitCode::usage, "{}: expected a mapping", where(name, map));
  }
  YAML::Node node = map[key];
  if (!node.IsDefined() || node.IsNull()) {
    fail(ExitCode::usage, "{}: missing required key '{}'", where(name, map), key);
  }
  return node;
}

std::string
scalar(const YAML::Node& node, const char* key, const std::string& name)
{
  if (!node.IsScalar()) {
    fail(ExitCode::usage, "{}: '{}' must be a single value", where(name, node), key);
  }
  return node.Scalar();
}

// Fills `node` (a node of the document being built) with a twin's JSON as
// yaml-cpp would have parsed the YAML: every scalar a string. Each child is made
// in place, in the document's own memory, so no subtree is copied into its parent's.
void
fill_from_json(YAML::Node node, const Json& json)
{
  if (json.is_object()) {
    if (json.empty()) {
      node = YAML::Node(YAML::NodeType::Map);
    }
    for (const auto& [key, value] : json.items()) {
      fill_from_json(node[key], value);
    }
  } else if (json.is_array()) {
    if (json.empty()) {
      node = YAML::Node(YAML::NodeType::Sequence);
    }
    for (size_t i = 0; i < json.size(); ++i) {
      fill_from_json(node[i], json[i]); // node[size()] appends
    }
  } else if (json.is_string()) {
    node = json.get_ref<const std::string&>();
  } else {
    node = YAML::Node(YAML::NodeType::Null);
  }
}

YAML::Node
from_json(const Json& json)
{
  YAML::Node root(YAML::NodeType::Null); // a node of its own, which the fills below share
  fill_from_json(root, json);
  return root;
}

} // namespace

YAML::Node
load_embedded(const std::string& path)
{
  if (std::optional<std::string_view> twin = find_embedded(path + ".json")) {
    return from_json(Json::parse(*twin));
  }
  return load(std::string(require_embedded(path)), path);
}

namespace {

// What no opkit file needs, and what a hostile one would use to make every
// later walk of it explode (an alias "bomb": each alias doubles the paths).
constexpr size_t k_max_nodes = 100000;
constexpr size_t k_max_depth = 64;

// Refuses duplicate keys (yaml-cpp keeps the first silently) and documents
// that expand past the limits, counting every path as the readers walk them.
void
check_document(const YAML::Node& node, const std::string& name, size_t depth, size_t& nodes)
{
  if (++nodes > k_max_nodes) {
    fail(ExitCode::usage, "{}: the document expands to more than {} nodes (aliases repeating aliases?)",
         at(name, node.Mark()), k_max_nodes);
  }
  if (depth > k_max_depth) {
    fail(ExitCode::usage, "{}: nested more than {} levels deep", at(name, node.Mark()), k_max_depth);
  }
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      check_document(item, name, depth + 1, nodes);
    }
  } else if (node.IsMap()) {
    std::set<std::string> keys;
    for (const auto& entry : node) {
      if (entry.first.IsScalar() && !keys.insert(entry.first.Scalar()).second) {
        fail(ExitCode::usage, "{}: duplicate key '{}'", at(name, entry.first.Mark()), entry.first.Scalar());
      }
      check_document(entry.first, name, depth + 1, nodes);
      check_document(entry.second, name, depth + 1, nodes);
    }
  }
}

} // namespace

YAML::Node
load(const std::string& text, const std::string& name)
{
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    fail(ExitCode::usage, "{}: invalid YAML: {}", at(name, e.mark), e.msg);
  }
  size_t nodes = 0;
  check_document(doc, name, 0, nodes);
  return doc;
}

std::string
where(const std::string& name, const YAML::Node& node)
{
  return at(name, node.Mark());
}

std::string
get_string(const YAML::Node& map, const char* key, const std::string& name)
{
  return scalar(require(map, key, name), key, name);
}

std::string
get_string_or(const YAML::Node& map, const char* key, const std::string& name, const std::string& fallback)
{
  if (!map[key].IsDefined() || map[key].IsNull()) {
    return fallback;
  }
  return scalar(map[key], key, name);
}

int
get_int(const YAML::Node& map, const char* key, const std::string& name)
{
  YAML::Node node = require(map, key, name);
  std::string text = scalar(node, key, name);
  try {
    size_t used = 0;
    int value = std::stoi(text, &used);
    if (used == text.size()) {
      return value;
    }
  } catch (const std::exception&) {
  }
  fail(ExitCode::usage, "{}: '{}' must be an integer, got '{}'", where(name, node), key, text);
}

bool
get_bool_or(const YAML::Node& map, const char* key, const std::string& name, bool fallback)
{
  YAML::Node node = map[key];
  if (!node.IsDefined() || node.IsNull()) {
    return fallback;
  }
  std::string text = scalar(node, key, name);
  if (text == "true") {
    return true;
  }
  if (text == "false") {
    return false;
  }
  fail(ExitCode::usage, "{}: '{}' must be true or false, got '{}'", where(name, node), key, text);
}

std::vector<YAML::Node>
get_list(const YAML::Node& map, const char* key, const std::string& name)
{
  YAML::Node node = map[key];
  if (!node.IsDefined() || node.IsNull()) {
    return {};
  }
  if (!node.IsSequence()) {
    fail(ExitCode::usage, "{}: '{}' must be a list", where(name, node), key);
  }
  return {node.begin(), node.end()};
}

std::vector<std::string>
get_string_list(const YAML::Node& map, const char* key, const std::string& name)
{
  std::vector<std::string> result;
  for (const YAML::Node& item : get_list(map, key, name)) {
    result.push_back(scalar(item, key, name));
  }
  return result;
}

namespace {

// A plain scalar that reads as a decimal number or a bool is one; a quoted
// one ("1") and everything else is a string.
Json
scalar_json(const YAML::Node& node)
{
  const std::string& value = node.Scalar();
  if (node.Tag() == "!") {
    return value;
  }
  if (value == "true" || value == "false") {
    return value == "true";
  }
  // YAML's .nan and .inf, which JSON has no number for: {"$float": "nan" | "inf" | "-inf"},
  // as run_vectors.py reads and writes them.
  static const std::map<std::string, std::string> k_special = {
    {".nan", "nan"},  {".NaN", "nan"},  {".NAN", "nan"},  {".inf", "inf"},   {".Inf", "inf"},   {".INF", "inf"},
    {"+.inf", "inf"}, {"+.Inf", "inf"}, {"+.INF", "inf"}, {"-.inf", "-inf"}, {"-.Inf", "-inf"}, {"-.INF", "-inf"}};
  if (auto special = k_special.find(value); special != k_special.end()) {
    return Json{{"$float", special->second}};
  }
  bool decimal = !value.empty() && value.find_first_not_of("0123456789+-.eE") == std::string::npos
                 && value.find_first_of("0123456789") != std::string::npos;
  if (decimal) {
    char* end = nullptr;
    long long integer = std::strtoll(value.c_str(), &end, 10);
    if (*end == '\0') {
      return integer;
    }
    double number = std::strtod(value.c_str(), &end);
    if (*end == '\0') {
      return number;
    }
  }
  return value;
}

Json
node_json(const YAML::Node& node)
{
  if (node.IsSequence()) {
    Json list = Json::array();
    for (const YAML::Node& item : node) {
      list.push_back(node_json(item));
    }
    return list;
  }
  if (node.IsMap()) {
    Json map = Json::object();
    for (const auto& entry : node) {
      map[entry.first.Scalar()] = node_json(entry.second);
    }
    return map;
  }
  return node.IsScalar() ? scalar_json(node) : Json();
}

} // namespace

std::string
to_json_text(const YAML::Node& node)
{
  return json_text(node_json(node));
}

void
expect_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& name)
{
  if (!map.IsMap()) {
    fail(ExitCode::usage, "{}: expected a mapping", where(name, map));
  }
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      fail(ExitCode::usage, "{}: unknown key '{}' (expected one of: {})", where(name, entry.first), key,
           fmt::join(allowed, ", "));
    }
  }
}

} // namespace opkit::project::yaml
