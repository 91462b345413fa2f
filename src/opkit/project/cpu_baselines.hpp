#pragma once

#include <set>
#include <string>
#include <vector>

namespace opkit::project {

// A row of configs/cpu/baselines.yaml: an x86-64 psABI level and every CPU
// feature (cpu/isa.hpp's names) a machine of that level has, its own and
// those of the levels it extends.
struct CpuBaseline
{
  std::string name;  // "x86-64-v3"
  std::string march; // the -march value that targets it
  std::string description;
  std::set<std::string> features;
};

// Every level, lowest first.
const std::vector<CpuBaseline>&
cpu_baselines();

// One level by name; an unknown name is Error(usage) naming the known ones.
const CpuBaseline&
cpu_baseline(const std::string& name);

} // namespace opkit::project
