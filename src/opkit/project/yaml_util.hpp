#pragma once

// yaml-cpp stays inside project/: these helpers turn its nodes into opkit
// values and its errors into "file:line:col: message" Errors.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace opkit::project::yaml {

// Parses text; a syntax error becomes Error(usage) "name:line:col: cause".
YAML::Node
load(const std::string& text, const std::string& name);

// An embedded config (e.g. "configs/frameworks/tensorflow.yaml"): from the JSON
// twin the build made of it (CMakeLists.txt), which loads several times faster
// than yaml-cpp scans the YAML, else from the YAML itself. Nodes from a twin
// carry no line:col (the YAML parsed when opkit was built). Error(system) when
// this binary has neither.
YAML::Node
load_embedded(const std::string& path);

// "name:line:col" of a node (1-based), for messages.
std::string
where(const std::string& name, const YAML::Node& node);
// "name:line:col" of a mark (just "name" when the mark is null).
std::string
at(const std::string& name, const YAML::Mark& mark);

// Typed field access; a missing or mistyped field is Error(usage) with its location.
std::string
get_string(const YAML::Node& map, const char* key, const std::string& name);
std::string
get_string_or(const YAML::Node& map, const char* key, const std::string& name, const std::string& fallback);
int
get_int(const YAML::Node& map, const char* key, const std::string& name);
bool
get_bool_or(const YAML::Node& map, const char* key, const std::string& name, bool fallback);
std::vector<std::string>
get_string_list(const YAML::Node& map, const char* key, const std::string& name);
// The items of a list value (none when the key is absent or null); a value
// that is not a list (a scalar or a mapping) is "file:line:col: 'key' must be a list".
std::vector<YAML::Node>
get_list(const YAML::Node& map, const char* key, const std::string& name);

// A YAML value (scalars, lists, maps) as JSON text; numbers stay numbers.
std::string
to_json_text(const YAML::Node& node);

// Requires a map and rejects keys not in `allowed`, naming the first unknown one.
void
expect_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& name);

} // namespace opkit::project::yaml
