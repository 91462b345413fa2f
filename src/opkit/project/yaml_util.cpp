#include "opkit/project/yaml_util.hpp"

#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/suggest.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <cstdlib>

namespace opkit::project::yaml {

std::string
at(const std::string& name, const NodeMark& mark)
{
  if (mark.is_null()) {
    return name;
  }
  return fmt::format("{}:{}:{}", name, mark.line + 1, mark.column + 1);
}

namespace {

Node
require(const Node& map, const char* key, const std::string& name)
{
  if (!map.is_map()) {
    fail(ExitCode::usage, "{}: expected a mapping", where(name, map));
  }
  Node node = map[key];
  if (!node.is_defined() || node.is_null()) {
    fail(ExitCode::usage, "{}: missing required key '{}'", where(name, map), key);
  }
  return node;
}

std::string
scalar(const Node& node, const char* key, const std::string& name)
{
  if (!node.is_scalar()) {
    fail(ExitCode::usage, "{}: '{}' must be a single value", where(name, node), key);
  }
  return node.scalar();
}

// Reads a twin (the YAML as MessagePack) straight into nodes, as yaml-cpp would have
// parsed the YAML: every scalar a string (the twin writes them so), null a null.
class TwinReader : public nlohmann::json_sax<Json>
{
public:
  explicit TwinReader(std::string name)
    : m_name(std::move(name))
  {
  }

  bool null() override { return add(NodeData(NodeKind::null)); }
  bool boolean(bool value) override { return add_scalar(value ? "true" : "false"); }
  bool number_integer(number_integer_t value) override { return add_scalar(std::to_string(value)); }
  bool number_unsigned(number_unsigned_t value) override { return add_scalar(std::to_string(value)); }
  bool number_float(number_float_t, const string_t& text) override { return add_scalar(text); }
  bool string(string_t& value) override { return add_scalar(std::move(value)); }
  bool binary(binary_t&) override { return false; }
  // MessagePack says how many entries follow: each node's children are
  // allocated once, not grown and copied (a check reads four twins).
  bool start_object(size_t entries) override { return open(NodeKind::map, entries, 2); }
  bool key(string_t& value) override { return add_scalar(std::move(value)); }
  bool end_object() override { return close(); }
  bool start_array(size_t items) override { return open(NodeKind::sequence, items, 1); }
  bool end_array() override { return close(); }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& error) override
  {
    fail(ExitCode::system, "{}: the embedded twin is not MessagePack: {}", m_name, error.what());
  }

  NodeData take() { return std::move(m_root); }

private:
  bool add_scalar(std::string text)
  {
    NodeData node(NodeKind::scalar);
    node.text = std::move(text);
    return add(std::move(node));
  }
  bool add(NodeData node)
  {
    if (m_open.empty()) {
      m_root = std::move(node);
    } else {
      m_open.back().children.push_back(std::move(node));
    }
    return true;
  }
  bool open(NodeKind kind, size_t count, size_t nodes_each)
  {
    m_open.emplace_back(kind);
    if (count != static_cast<size_t>(-1) && count <= k_max_reserved) {
      m_open.back().children.reserve(count * nodes_each);
    }
    return true;
  }
  static constexpr size_t k_max_reserved = 1 << 16; // a count is the twin's word: bounded before it is believed
  bool close()
  {
    NodeData done = std::move(m_open.back());
    m_open.pop_back();
    return add(std::move(done));
  }

  std::string m_name;
  std::vector<NodeData> m_open;
  NodeData m_root = NodeData(NodeKind::null);
};

} // namespace

Node
load_embedded(const std::string& path)
{
  // The binary's own files never change: each is read once per process, and
  // its nodes, which nothing can modify, are shared by every reader.
  static std::mutex mutex;
  static std::map<std::string, Node, std::less<>> loaded;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = loaded.find(path); found != loaded.end()) {
      return found->second;
    }
  }
  Node root;
  if (std::optional<std::string_view> twin = find_embedded(path + ".msgpack")) {
    TwinReader reader(path + ".msgpack");
    Json::sax_parse(twin->begin(), twin->end(), &reader, nlohmann::detail::input_format_t::msgpack);
    root = Node(reader.take());
  } else {
    root = load(std::string(require_embedded(path)), path);
  }
  std::lock_guard<std::mutex> lock(mutex);
  return loaded.emplace(path, root).first->second;
}

namespace {

// What no opkit file needs, and what a hostile one would use to make every
// later walk of it explode (an alias "bomb": each alias doubles the paths).
constexpr size_t k_max_nodes = 100000;
constexpr size_t k_max_depth = 64;

NodeMark
mark_of(const YAML::Node& node)
{
  YAML::Mark mark = node.Mark();
  if (mark.is_null()) {
    return {};
  }
  return {mark.line, mark.column};
}

// Makes opkit's nodes of a yaml-cpp document, refusing duplicate keys (yaml-cpp
// keeps the first silently) and documents that expand past the limits,
// counting every path as the copy walks it.
NodeData
convert(const YAML::Node& node, const std::string& name, size_t depth, size_t& nodes)
{
  if (++nodes > k_max_nodes) {
    fail(ExitCode::usage, "{}: the document expands to more than {} nodes (aliases repeating aliases?)",
         at(name, mark_of(node)), k_max_nodes);
  }
  if (depth > k_max_depth) {
    fail(ExitCode::usage, "{}: nested more than {} levels deep", at(name, mark_of(node)), k_max_depth);
  }
  NodeData data;
  data.mark = mark_of(node);
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
      data.kind = NodeKind::undefined;
      break;
    case YAML::NodeType::Null:
      data.kind = NodeKind::null;
      break;
    case YAML::NodeType::Scalar:
      data.kind = NodeKind::scalar;
      data.text = node.Scalar();
      data.quoted = node.Tag() == "!";
      break;
    case YAML::NodeType::Sequence:
      data.kind = NodeKind::sequence;
      data.children.reserve(node.size());
      for (const YAML::Node& item : node) {
        data.children.push_back(convert(item, name, depth + 1, nodes));
      }
      break;
    case YAML::NodeType::Map: {
      data.kind = NodeKind::map;
      data.children.reserve(node.size() * 2);
      std::set<std::string> keys;
      for (const auto& entry : node) {
        if (entry.first.IsScalar() && !keys.insert(entry.first.Scalar()).second) {
          fail(ExitCode::usage, "{}: duplicate key '{}'", at(name, mark_of(entry.first)), entry.first.Scalar());
        }
        data.children.push_back(convert(entry.first, name, depth + 1, nodes));
        data.children.push_back(convert(entry.second, name, depth + 1, nodes));
      }
      break;
    }
  }
  return data;
}

} // namespace

Node
load(const std::string& text, const std::string& name)
{
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    fail(ExitCode::usage, "{}: invalid YAML: {}", at(name, {e.mark.line, e.mark.column}), e.msg);
  }
  size_t nodes = 0;
  return Node(convert(doc, name, 0, nodes));
}

std::string
where(const std::string& name, const Node& node)
{
  return at(name, node.mark());
}

std::string
get_string(const Node& map, const char* key, const std::string& name)
{
  return scalar(require(map, key, name), key, name);
}

std::string
get_string_or(const Node& map, const char* key, const std::string& name, const std::string& fallback)
{
  if (!map[key].is_defined() || map[key].is_null()) {
    return fallback;
  }
  return scalar(map[key], key, name);
}

int
get_int(const Node& map, const char* key, const std::string& name)
{
  Node node = require(map, key, name);
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
get_bool_or(const Node& map, const char* key, const std::string& name, bool fallback)
{
  Node node = map[key];
  if (!node.is_defined() || node.is_null()) {
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

std::vector<Node>
get_list(const Node& map, const char* key, const std::string& name)
{
  Node node = map[key];
  if (!node.is_defined() || node.is_null()) {
    return {};
  }
  if (!node.is_sequence()) {
    fail(ExitCode::usage, "{}: '{}' must be a list", where(name, node), key);
  }
  return {node.begin(), node.end()};
}

std::vector<std::string>
get_string_list(const Node& map, const char* key, const std::string& name)
{
  std::vector<std::string> result;
  for (const Node& item : get_list(map, key, name)) {
    result.push_back(scalar(item, key, name));
  }
  return result;
}

namespace {

// A plain scalar that reads as a decimal number or a bool is one; a quoted
// one ("1") and everything else is a string.
Json
scalar_json(const Node& node)
{
  const std::string& value = node.scalar();
  if (node.quoted()) {
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
node_json(const Node& node)
{
  if (node.is_sequence()) {
    Json list = Json::array();
    for (const Node& item : node) {
      list.push_back(node_json(item));
    }
    return list;
  }
  if (node.is_map()) {
    Json map = Json::object();
    for (const auto& entry : node) {
      map[entry.first.scalar()] = node_json(entry.second);
    }
    return map;
  }
  return node.is_scalar() ? scalar_json(node) : Json();
}

} // namespace

std::string
to_json_text(const Node& node)
{
  return json_text(node_json(node));
}

void
expect_keys(const Node& map, const std::vector<std::string>& allowed, const std::string& name)
{
  if (!map.is_map()) {
    fail(ExitCode::usage, "{}: expected a mapping", where(name, map));
  }
  for (const auto& entry : map) {
    const std::string key = entry.first.scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::optional<std::string> meant = nearest(key, allowed);
      fail(ExitCode::usage, "{}: unknown key '{}' ({}expected one of: {})", where(name, entry.first), key,
           meant ? fmt::format("did you mean '{}'? ", *meant) : "", fmt::join(allowed, ", "));
    }
  }
}

} // namespace opkit::project::yaml
