#pragma once

#include "opkit/builder/builder.hpp"
#include "opkit/util/json.hpp"

#include <string>

namespace opkit::builder {

// "built", "up to date", "FAILED", "CHECK FAILED" or "planned" (a dry run).
std::string
target_status(const TargetResult& target, bool dry_run);

// The report as JSON, schema "opkit.build/1" (schemas/opkit.build-1.schema.json).
Json
to_json(const BuildReport& report);

} // namespace opkit::builder
