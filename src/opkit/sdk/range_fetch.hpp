#pragma once

#include "opkit/util/http.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace opkit::sdk {

struct RangeFetch
{
  bool ranged = false;           // false: the server does not serve byte ranges, nothing was written
  std::uint64_t wheel_bytes = 0; // the whole wheel's size
  std::uint64_t wire_bytes = 0;  // body bytes received over all requests (also when not ranged)
  int requests = 0;
  std::size_t members = 0; // members fetched
};

// Fetches only the members of a wheel that an SDK import reads (see
// subset_members) with HTTP range requests on one connection: the end of the
// file, with its central directory; then those members' bytes, in a few
// coalesced ranges. Writes `output` (atomically) as a zip of those members,
// which import_sdk imports as it would the whole wheel, checking each kept
// member against the wheel's RECORD. A hostile or damaged central directory
// is Error(usage) naming `filename`.
RangeFetch
fetch_wheel_subset(const std::string& url, const std::string& filename, const std::filesystem::path& output,
                   const HttpOptions& options);

} // namespace opkit::sdk
