#pragma once

// The one place nlohmann::json is included: opkit code names it opkit::Json.
#include <nlohmann/json.hpp>

#include <string>

namespace opkit {
using Json = nlohmann::ordered_json;

// The JSON text of a value. A string that is not valid UTF-8 (a symbol name
// read from an untrusted ELF file) is written with U+FFFD for its bad bytes
// instead of throwing.
inline std::string
json_text(const Json& value, int indent = -1)
{
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}
} // namespace opkit
