#pragma once

#include "opkit/check/checker.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace opkit::builder {

// The last verdict on a built library, kept beside it (opkit-check.json), so
// a no-op `opkit build` checks nothing: it is reused while the library, the
// target (SDK, runtime or profile) and opkit itself are unchanged.
struct CheckCacheKey
{
  std::string value; // those stamps, as text
};

CheckCacheKey
check_cache_key(const std::filesystem::path& library, const sdk::Sdk& sdk, const std::string& runtime,
                const std::filesystem::path& profile_file, const std::string& cpu = "");

// The stored report when its key is `key`; nullopt when absent, stale or unreadable.
std::optional<check::CheckReport>
load_cached_check(const std::filesystem::path& file, const CheckCacheKey& key);

void
store_check(const std::filesystem::path& file, const CheckCacheKey& key, const check::CheckReport& report);

} // namespace opkit::builder
