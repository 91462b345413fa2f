#include "opkit/cpu/isa.hpp"

#include <algorithm>
#include <utility>

namespace opkit::cpu {

const std::vector<FeatureInfo>&
known_features()
{
  static const std::vector<FeatureInfo> features{
    // x86-64: every x86-64 CPU has these, so the scan never reports them
    {"cmov", "CMOVcc"},
    {"cx8", "CMPXCHG8B"},
    {"x87", "x87 floating point"},
    {"fxsr", "FXSAVE/FXRSTOR"},
    {"mmx", "MMX"},
    {"sse", "SSE"},
    {"sse2", "SSE2"},
    // x86-64-v2
    {"cx16", "CMPXCHG16B"},
    {"sahf", "LAHF/SAHF in 64-bit mode"},
    {"popcnt", "POPCNT"},
    {"sse3", "SSE3"},
    {"ssse3", "SSSE3"},
    {"sse4.1", "SSE4.1"},
    {"sse4.2", "SSE4.2 (also CRC32)"},
    // x86-64-v3
    {"avx", "AVX (256-bit floating-point vectors, VEX encoding)"},
    {"avx2", "AVX2 (256-bit integer vectors)"},
    {"bmi", "BMI1 (ANDN, BEXTR, BLSI...; TZCNT is not counted: it runs as BSF)"},
    {"bmi2", "BMI2 (SHLX, PDEP, MULX...)"},
    {"f16c", "F16C (half-precision conversions)"},
    {"fma", "FMA3 (fused multiply-add)"},
    {"lzcnt", "LZCNT"},
    {"movbe", "MOVBE"},
    // x86-64-v4
    {"avx512f", "AVX-512 Foundation (any EVEX-encoded instruction, or an opmask instruction)"},
    {"avx512bw", "AVX-512 byte and word instructions"},
    {"avx512cd", "AVX-512 conflict detection"},
    {"avx512dq", "AVX-512 doubleword and quadword instructions"},
    {"avx512vl", "AVX-512 on 128- and 256-bit vectors"},
    // outside the levels
    {"avx512er", "AVX-512 exponential and reciprocal (Xeon Phi)"},
    {"avx512pf", "AVX-512 prefetch (Xeon Phi)"},
    {"aes", "AES-NI"},
    {"pclmul", "PCLMULQDQ (carry-less multiply)"},
    {"sha", "SHA extensions"},
    {"adx", "ADX (ADCX, ADOX)"},
    {"rdrnd", "RDRAND"},
    {"rdseed", "RDSEED"},
    {"xsave", "XSAVE family"},
    {"fsgsbase", "RDFSBASE/WRFSBASE..."},
    {"rtm", "transactional memory (XBEGIN, XEND)"},
    {"sse4a", "SSE4a (AMD)"},
    {"fma4", "FMA4 (AMD)"},
    {"xop", "XOP (AMD)"},
    {"tbm", "TBM (AMD)"},
    {"3dnow", "3DNow! (AMD)"},
  };
  return features;
}

bool
is_known_feature(std::string_view name)
{
  const std::vector<FeatureInfo>& features = known_features();
  return std::any_of(features.begin(), features.end(), [name](const FeatureInfo& info) { return info.name == name; });
}

std::string
feature_from_cpuinfo_flag(std::string_view flag)
{
  static const std::pair<std::string_view, std::string_view> k_aliases[] = {
    {"pni", "sse3"}, {"sse4_1", "sse4.1"},    {"sse4_2", "sse4.2"}, {"lahf_lm", "sahf"}, {"abm", "lzcnt"},
    {"bmi1", "bmi"}, {"pclmulqdq", "pclmul"}, {"sha_ni", "sha"},    {"rdrand", "rdrnd"}, {"3dnowprefetch", ""},
  };
  for (const auto& [alias, name] : k_aliases) {
    if (flag == alias) {
      return std::string(name);
    }
  }
  // Any other flag as it is: the scan names the extensions it has no alias
  // for as /proc/cpuinfo does (amx_tile, avx512_fp16, gfni, vaes...).
  return std::string(flag);
}

} // namespace opkit::cpu
