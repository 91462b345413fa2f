#include "opkit/project/cpu_baselines.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::project {

namespace {

const char* k_file = "configs/cpu/baselines.yaml";

std::vector<CpuBaseline>
load_baselines()
{
  Node root = yaml::load_embedded(k_file);
  yaml::expect_keys(root, {"baselines"}, k_file);
  std::vector<CpuBaseline> baselines;
  for (const Node& node : yaml::get_list(root, "baselines", k_file)) {
    yaml::expect_keys(node, {"name", "march", "extends", "description", "features"}, k_file);
    CpuBaseline baseline;
    baseline.name = yaml::get_string(node, "name", k_file);
    baseline.march = yaml::get_string(node, "march", k_file);
    baseline.description = yaml::get_string(node, "description", k_file);
    std::string extends = yaml::get_string_or(node, "extends", k_file, "");
    if (!extends.empty()) {
      auto base = std::find_if(baselines.begin(), baselines.end(),
                               [&](const CpuBaseline& earlier) { return earlier.name == extends; });
      if (base == baselines.end()) {
        fail(ExitCode::usage, "{}: '{}' extends '{}', which no earlier baseline names", yaml::where(k_file, node),
             baseline.name, extends);
      }
      baseline.features = base->features;
    }
    for (const std::string& feature : yaml::get_string_list(node, "features", k_file)) {
      baseline.features.insert(feature);
    }
    baselines.push_back(std::move(baseline));
  }
  return baselines;
}

} // namespace

const std::vector<CpuBaseline>&
cpu_baselines()
{
  static const std::vector<CpuBaseline> baselines = load_baselines();
  return baselines;
}

const CpuBaseline&
cpu_baseline(const std::string& name)
{
  const std::vector<CpuBaseline>& all = cpu_baselines();
  for (const CpuBaseline& baseline : all) {
    if (baseline.name == name) {
      return baseline;
    }
  }
  std::vector<std::string> names;
  for (const CpuBaseline& baseline : all) {
    names.push_back(baseline.name);
  }
  fail(ExitCode::usage, "'{}': unknown CPU baseline (known: {})", name, fmt::join(names, ", "));
}

} // namespace opkit::project
