#include "opkit/package/wheel_tag.hpp"

#include "opkit/check/checker.hpp"
#include "opkit/check/target.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::package {

namespace {

std::pair<int, int>
glibc_of(const PolicyVerdict& verdict)
{
  for (const std::string& tag : verdict.tags) {
    if (std::optional<std::pair<int, int>> glibc = manylinux_glibc(tag)) {
      return *glibc;
    }
  }
  return {1000, 0}; // a policy without a manylinux tag ranks last
}

} // namespace

std::optional<std::pair<int, int>>
manylinux_glibc(const std::string& tag)
{
  // manylinux_<major>_<minor> (PEP 600), each a number of at most 4 digits.
  const std::string prefix = "manylinux_";
  if (tag.compare(0, prefix.size(), prefix) != 0) {
    return std::nullopt;
  }
  std::vector<std::string> parts = split(std::string_view(tag).substr(prefix.size()), '_');
  auto number = [](const std::string& part) {
    return !part.empty() && part.size() <= 4 && std::all_of(part.begin(), part.end(), is_ascii_digit);
  };
  if (parts.size() != 2 || !number(parts[0]) || !number(parts[1])) {
    return std::nullopt;
  }
  return std::make_pair(std::stoi(parts[0]), std::stoi(parts[1]));
}

std::string
choose_platform_tag(const std::vector<PolicyVerdict>& verdicts, const std::string& arch)
{
  const PolicyVerdict* best = nullptr;
  for (const PolicyVerdict& verdict : verdicts) {
    if (verdict.passes && !verdict.tags.empty() && (best == nullptr || glibc_of(verdict) < glibc_of(*best))) {
      best = &verdict;
    }
  }
  if (best == nullptr) {
    return "linux_" + arch;
  }
  std::vector<std::string> tags;
  tags.reserve(best->tags.size());
  for (const std::string& tag : best->tags) {
    tags.push_back(std::string(tag).append("_").append(arch));
  }
  return join(tags, ".");
}

PlatformTag
wheel_platform_tag(const std::vector<BuiltLibrary>& built, const std::string& arch)
{
  PlatformTag result;
  for (const std::string& name : project::runtime_policy_names()) {
    project::RuntimePolicy policy = project::load_runtime_policy(name);
    if (policy.wheel_tags.empty()) {
      continue;
    }
    PolicyVerdict verdict{policy.name, policy.wheel_tags, true, {}};
    for (const BuiltLibrary& lib : built) {
      check::CheckReport report = check::check_library(lib.path, check::make_check_target(lib.sdk, policy.name, {}));
      if (!report.loads) {
        auto fatal =
          std::find_if(report.findings.begin(), report.findings.end(), [](const auto& f) { return f.fatal; });
        verdict.passes = false;
        verdict.failure = fmt::format("{} for {} {}: {}", lib.path.filename().string(),
                                      project::FrameworkTable::get(lib.sdk.framework).label(), lib.version(),
                                      fatal == report.findings.end() ? "does not load" : fatal->summary);
        break;
      }
    }
    result.verdicts.push_back(verdict);
  }
  std::sort(result.verdicts.begin(), result.verdicts.end(),
            [](const auto& a, const auto& b) { return glibc_of(a) < glibc_of(b); });
  result.tag = choose_platform_tag(result.verdicts, arch);
  return result;
}

} // namespace opkit::package
