#pragma once

// The x86-64 instruction-set extensions opkit reports, by GCC's names (the
// -m<name> flags and __attribute__((target("<name>")))): what a developer
// writes to enable them, and what configs/cpu/baselines.yaml lists.
//
// The architectural x86-64 baseline (x87, MMX, SSE, SSE2, CMOV, CMPXCHG8B,
// FXSR) is never reported: every x86-64 CPU has it, so it cannot exceed one.

#include <string>
#include <string_view>
#include <vector>

namespace opkit::cpu {

struct FeatureInfo
{
  std::string_view name; // "avx2"
  std::string_view what; // "AVX2 (256-bit integer vectors)"
};

// Every feature name, in the order of the psABI levels (x86-64, v2, v3, v4),
// then extensions outside them. The x86-64 ones are named (baselines list
// them) but never reported.
const std::vector<FeatureInfo>&
known_features();

bool
is_known_feature(std::string_view name);

// A flag of /proc/cpuinfo (its "flags" line) as the feature opkit names it:
// "pni" -> "sse3", "sse4_1" -> "sse4.1", "lahf_lm" -> "sahf", "abm" -> "lzcnt",
// "bmi1" -> "bmi", "pclmulqdq" -> "pclmul", "sha_ni" -> "sha", "rdrand" ->
// "rdrnd"; any other flag as it is (the scan names the extensions it knows no
// alias for as /proc/cpuinfo does: amx_tile, avx512_fp16, gfni, vaes).
std::string
feature_from_cpuinfo_flag(std::string_view flag);

} // namespace opkit::cpu
