#include "opkit/project/version.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace opkit::project {

std::string
Version::str() const
{
  std::vector<std::string> text;
  for (int part : parts) {
    text.push_back(std::to_string(part));
  }
  return join(text, ".") + suffix;
}

bool
operator<(const Version& a, const Version& b)
{
  if (a.parts != b.parts) {
    return a.parts < b.parts;
  }
  // A release sorts after its pre-releases: 2.11.0-rc1 < 2.11.0.
  if (a.suffix.empty() != b.suffix.empty()) {
    return !a.suffix.empty();
  }
  return a.suffix < b.suffix;
}

bool
operator==(const Version& a, const Version& b)
{
  return a.parts == b.parts && a.suffix == b.suffix;
}

std::optional<Version>
parse_version(std::string_view text)
{
  Version version;
  size_t dash = text.find_first_of("-abr");
  std::string_view numbers = text.substr(0, dash);
  if (dash != std::string_view::npos) {
    version.suffix = std::string(text.substr(dash));
    // A pre-release or build suffix ("-rc0", "rc1", "-cuda"): short, and only
    // characters that are safe in a path, a YAML scalar and a file name.
    bool safe = version.suffix.size() <= 32 && version.suffix.find("..") == std::string::npos
                && std::all_of(version.suffix.begin(), version.suffix.end(), [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == '_';
                   });
    if (!safe) {
      return std::nullopt;
    }
  }
  for (const std::string& part : split(numbers, '.')) {
    if (part.empty() || part.size() > 6
        || !std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return std::nullopt;
    }
    version.parts.push_back(std::stoi(part));
  }
  if (version.parts.empty() || version.parts.size() > 4) {
    return std::nullopt;
  }
  return version;
}

bool
version_matches(const Version& spec, const Version& version)
{
  if (spec.parts.size() > version.parts.size()) {
    return false;
  }
  if (!std::equal(spec.parts.begin(), spec.parts.end(), version.parts.begin())) {
    return false;
  }
  return spec.suffix.empty() || spec.suffix == version.suffix;
}

} // namespace opkit::project
