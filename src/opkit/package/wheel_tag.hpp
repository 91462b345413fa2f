#pragma once

#include "opkit/package/package.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opkit::package {

// One candidate wheel platform (a runtime policy with wheel_tags) and whether
// every library of the wheel passes `opkit check` against it.
struct PolicyVerdict
{
  std::string policy;            // "manylinux2014"
  std::vector<std::string> tags; // "manylinux_2_17", "manylinux2014"
  bool passes = false;
  std::string failure; // the first library and finding that does not, when it does not
};

// The glibc a PEP 600 tag states: "manylinux_2_17" -> (2, 17); nothing for
// anything else (the legacy aliases follow it in a policy's wheel_tags).
std::optional<std::pair<int, int>>
manylinux_glibc(const std::string& tag);

// The wheel's platform tag as auditwheel chooses it: among the policies every
// library passes, the most compatible one (the oldest glibc), its tags each
// with "_<arch>" and joined by '.' ("manylinux_2_17_x86_64.manylinux2014_x86_64");
// "linux_<arch>" when none passes.
std::string
choose_platform_tag(const std::vector<PolicyVerdict>& verdicts, const std::string& arch);

// What the wheel's libraries are checked against: every embedded runtime policy
// with wheel_tags, each library with its own SDK's framework library (the
// framework and what TF's process provides are not the wheel's to bring).
struct PlatformTag
{
  std::string tag;                     // "manylinux_2_17_x86_64.manylinux2014_x86_64" or "linux_x86_64"
  std::vector<PolicyVerdict> verdicts; // one per candidate policy, oldest glibc first
};
PlatformTag
wheel_platform_tag(const std::vector<BuiltLibrary>& built, const std::string& arch);

} // namespace opkit::package
