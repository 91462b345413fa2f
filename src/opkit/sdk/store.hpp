#pragma once

#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::sdk {

// $OPKIT_HOME, or ~/.cache/opkit.
std::filesystem::path opkit_home();

// The folder holding every imported SDK: <home>/sdks.
std::filesystem::path sdk_store_dir();

// Every SDK in the store, sorted by version.
std::vector<Sdk> list_sdks();

// The SDK for a version spec: an exact version ("2.10.1") or a prefix ("2.10")
// meaning the newest matching one. Missing: Error(missing) naming `opkit sdk add`.
Sdk resolve_sdk(const std::string& spec);

} // namespace opkit::sdk
