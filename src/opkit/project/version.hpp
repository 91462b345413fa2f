#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::project {

// A dotted release version such as 2.10.1, with what follows the numbers
// kept as text ("rc0", "-rc0", ".post1", ".dev2", "+local"). Versions order
// as PEP 440 says: 1.0.dev1 < 1.0a1 < 1.0b2.post1 < 1.0rc2 < 1.0rc10 < 1.0
// < 1.0+local < 1.0.post1 < 1.0.1 (trailing zeros of the release do not
// count). A suffix PEP 440 does not know ("-cuda") sorts, as text, before the
// release's PEP 440 versions.
struct Version
{
  std::vector<int> parts;
  std::string suffix;

  std::string str() const;
  // A pre-release or a development release (PEP 440; a suffix PEP 440 does
  // not know counts as one): a version prefix names none of them, as pip's
  // ==2.10.* does not. A post-release or a local version is no pre-release.
  bool prerelease() const;
  friend bool operator<(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b);
};

// Parses "2.10.1", "1.12", "2.11.0-rc1", "2.11.0rc10", "2.10.0.post1",
// "2.12.0.dev20230101"; nothing when malformed.
std::optional<Version>
parse_version(std::string_view text);

// True when `spec` (e.g. "2.10") names `version` (e.g. 2.10.1): the spec's parts are a prefix.
bool
version_matches(const Version& spec, const Version& version);

} // namespace opkit::project
