#pragma once

// The one place nlohmann::json is included: opkit code names it opkit::Json.
#include <nlohmann/json.hpp>

namespace opkit {
using Json = nlohmann::ordered_json;
} // namespace opkit
