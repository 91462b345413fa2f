#pragma once

// yaml-cpp stays inside yaml_util.cpp: these helpers turn its documents into
// opkit's nodes (project/node.hpp) and its errors into "file:line:col: message"
// Errors, and read opkit values from the nodes.
#include "opkit/project/node.hpp"

#include <string>
#include <vector>

namespace opkit::project::yaml {

// Parses text; a syntax error becomes Error(usage) "name:line:col: cause".
Node
load(const std::string& text, const std::string& name);

// An embedded config (e.g. "configs/frameworks/tensorflow.yaml"): from the JSON
// twin the build made of it (CMakeLists.txt), which loads several times faster
// than yaml-cpp scans the YAML (straight into nodes, no yaml-cpp graph), else
// from the YAML itself. Nodes from a twin
// carry no line:col (the YAML parsed when opkit was built). Error(system) when
// this binary has neither.
Node
load_embedded(const std::string& path);

// "name:line:col" of a node (1-based), for messages.
std::string
where(const std::string& name, const Node& node);
// "name:line:col" of a mark (just "name" when the mark is null).
std::string
at(const std::string& name, const NodeMark& mark);

// Typed field access; a missing or mistyped field is Error(usage) with its location.
std::string
get_string(const Node& map, const char* key, const std::string& name);
std::string
get_string_or(const Node& map, const char* key, const std::string& name, const std::string& fallback);
int
get_int(const Node& map, const char* key, const std::string& name);
bool
get_bool_or(const Node& map, const char* key, const std::string& name, bool fallback);
std::vector<std::string>
get_string_list(const Node& map, const char* key, const std::string& name);
// The items of a list value (none when the key is absent or null); a value
// that is not a list (a scalar or a mapping) is "file:line:col: 'key' must be a list".
std::vector<Node>
get_list(const Node& map, const char* key, const std::string& name);

// A YAML value (scalars, lists, maps) as JSON text; numbers stay numbers.
std::string
to_json_text(const Node& node);

// Requires a map and rejects keys not in `allowed`, naming the first unknown one.
void
expect_keys(const Node& map, const std::vector<std::string>& allowed, const std::string& name);

} // namespace opkit::project::yaml
