#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opkit::project {

// A system library as a runtime policy describes it: which symbol versions it
// provides, as a ceiling per version family ("GLIBC" -> "2.17").
struct PolicyLibrary
{
  std::string soname;
  std::map<std::string, std::string> ceilings;
  std::vector<std::string> extra_versions; // non-numeric nodes such as CXXABI_TM_1
  // Not part of every such system (no stock TF process maps it): the
  // packages that provide it, e.g. "libgomp1 (Debian, Ubuntu), libgomp
  // (CentOS, RHEL)". An op needing it gets a warning naming them.
  std::string optional_package;
};

// configs/runtimes/<name>.yaml: the system part of a target process.
struct RuntimePolicy
{
  std::string name;
  std::string description;
  std::vector<std::string> search_paths;
  std::vector<PolicyLibrary> libraries;
  // The platform tags, without "_<arch>", of a wheel whose libraries all pass
  // this policy (PEP 600's first: "manylinux_2_17", "manylinux2014"); empty
  // for a policy that is no wheel platform.
  std::vector<std::string> wheel_tags;
  // The CPU baseline the runtime assumes (configs/cpu/baselines.yaml): what
  // opkit check holds a library's load-time code to. Empty: none.
  std::string cpu;
};

RuntimePolicy
parse_runtime_policy(const std::string& text, const std::string& name);

// The policy embedded as configs/runtimes/<name>.yaml; Error(usage) listing
// the known names when there is none.
RuntimePolicy
load_runtime_policy(const std::string& name);

// The names of every embedded runtime policy.
std::vector<std::string>
runtime_policy_names();

// The release that introduced a symbol version ("GLIBCXX_3.4.29" -> "GCC 11.1.0",
// "GLIBC_2.32" -> "glibc 2.32"), from configs/runtimes/symbol-versions.yaml.
std::optional<std::string>
release_of_version(const std::string& version);

} // namespace opkit::project
