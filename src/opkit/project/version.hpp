#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::project {

// A dotted release version such as 2.10.1 (a pre-release suffix like "-rc0" is kept as text).
struct Version
{
  std::vector<int> parts;
  std::string suffix;

  std::string str() const;
  friend bool operator<(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b);
};

// Parses "2.10.1", "1.12", "2.11.0-rc1"; nothing when malformed.
std::optional<Version>
parse_version(std::string_view text);

// True when `spec` (e.g. "2.10") names `version` (e.g. 2.10.1): the spec's parts are a prefix.
bool
version_matches(const Version& spec, const Version& version);

} // namespace opkit::project
