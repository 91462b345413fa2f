#include "opkit/cpu/disassembler.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <Zydis/Zydis.h>

namespace opkit::cpu::detail {

namespace {

// What every x86-64 CPU runs (the psABI's baseline: BASE, LONGMODE, SSE,
// SSE2, MMX, X87, CLFLUSH, PAUSE), and hints a CPU without the extension runs
// as NOPs (CET's endbr64, MPX's bnd prefix, prefetchw): no feature.
constexpr ZydisISAExt k_baseline[] = {
  ZYDIS_ISA_EXT_BASE,
  ZYDIS_ISA_EXT_LONGMODE,
  ZYDIS_ISA_EXT_SSE,
  ZYDIS_ISA_EXT_SSE2,
  ZYDIS_ISA_EXT_MMX,
  ZYDIS_ISA_EXT_X87,
  ZYDIS_ISA_EXT_CLFSH,
  ZYDIS_ISA_EXT_PAUSE,
  ZYDIS_ISA_EXT_CET,
  ZYDIS_ISA_EXT_MPX,
  ZYDIS_ISA_EXT_AMD3DNOW_PREFETCH,
};

// Zydis's names (lowercased; an ISA set without its _128/_256/_512/_SCALAR/
// _KOP suffix) that /proc/cpuinfo and GCC spell otherwise. Every other
// extension is named as Zydis names it, lowercased, which is /proc/cpuinfo's
// name for most (amx_tile, avx_vnni, gfni, vaes, avx512_fp16...).
constexpr std::pair<std::string_view, std::string_view> k_renames[] = {
  {"sse4", "sse4.1"},
  {"sse42", "sse4.2"},
  {"bmi1", "bmi"},
  {"adox_adcx", "adx"},
  {"pclmulqdq", "pclmul"},
  {"avxaes", "aes"},
  {"rdrand", "rdrnd"},
  {"rdwrfsgs", "fsgsbase"},
  {"amd3dnow", "3dnow"},
  {"lahf", "sahf"},
  {"cmpxchg16b", "cx16"},
  {"avx2gather", "avx2"},
  {"xsavec", "xsave"},
  {"xsaveopt", "xsave"},
  {"xsaves", "xsave"},
  {"avx512_vbmi", "avx512vbmi"},
  {"avx512_ifma", "avx512ifma"},
  {"avx512_gfni", "gfni"},
  {"avx512_vaes", "vaes"},
  {"avx512_vpclmulqdq", "vpclmulqdq"},
  {"avx512evex", "avx512f"},
  {"avx512vex", "avx512f"},
};

// ISA sets whose own name is finer than their extension's.
constexpr std::string_view k_set_prefixes[] = {"avx512", "sse4", "popcnt", "lahf", "cmpxchg16b"};

std::string
feature_name(std::string zydis)
{
  zydis = ascii_lower(zydis);
  for (std::string_view suffix : {"_128n", "_128", "_256", "_512", "_scalar", "_kop"}) {
    if (zydis.size() > suffix.size() && zydis.compare(zydis.size() - suffix.size(), suffix.size(), suffix) == 0) {
      zydis.resize(zydis.size() - suffix.size());
      break;
    }
  }
  for (const auto& [from, to] : k_renames) {
    if (zydis == from) {
      return std::string(to);
    }
  }
  return zydis;
}

// The names, built once per extension and set (Zydis's enums are small).
class FeatureNames
{
public:
  FeatureNames()
  {
    for (int ext = 0; ext <= ZYDIS_ISA_EXT_MAX_VALUE; ++ext) {
      auto value = static_cast<ZydisISAExt>(ext);
      const char* text = ZydisISAExtGetString(value);
      bool baseline = std::find(std::begin(k_baseline), std::end(k_baseline), value) != std::end(k_baseline);
      m_extensions.push_back(baseline || text == nullptr ? std::string() : feature_name(text));
    }
    for (int set = 0; set <= ZYDIS_ISA_SET_MAX_VALUE; ++set) {
      const char* text = ZydisISASetGetString(static_cast<ZydisISASet>(set));
      std::string name = text == nullptr ? std::string() : feature_name(text);
      bool finer = std::any_of(std::begin(k_set_prefixes), std::end(k_set_prefixes),
                               [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; })
                   || name == "sse4.1" || name == "sse4.2" || name == "sahf" || name == "cx16";
      m_sets.push_back(finer ? name : std::string());
    }
  }
  const std::string& extension(ZydisISAExt ext) const { return m_extensions.at(static_cast<size_t>(ext)); }
  const std::string& set(ZydisISASet set) const { return m_sets.at(static_cast<size_t>(set)); }

private:
  std::vector<std::string> m_extensions;
  std::vector<std::string> m_sets;
};

const FeatureNames&
feature_names()
{
  static const FeatureNames names;
  return names;
}

void
add_feature(Decoded& out, std::string_view name)
{
  if (!name.empty() && std::find(out.features.begin(), out.features.end(), name) == out.features.end()) {
    out.features.push_back(name);
  }
}

void
read_features(const ZydisDecodedInstruction& instruction, Decoded& out)
{
  // TZCNT is REP BSF: a CPU without BMI runs it as BSF, and GCC emits it for
  // __builtin_ctz on every target, so it does not count as BMI. CPUID and
  // XGETBV ask the CPU what it has (libgcc's __cpu_indicator_init runs XGETBV
  // only after CPUID says OSXSAVE): dispatch evidence, no feature.
  if (instruction.mnemonic == ZYDIS_MNEMONIC_TZCNT || instruction.mnemonic == ZYDIS_MNEMONIC_XGETBV
      || instruction.mnemonic == ZYDIS_MNEMONIC_CPUID) {
    return;
  }
  const FeatureNames& names = feature_names();
  const std::string& set = names.set(instruction.meta.isa_set);
  const std::string& extension = names.extension(instruction.meta.isa_ext);
  // The set is finer where it has its own name (avx512bw, sse4.2, popcnt);
  // SSE4's extension name says only that it is one of the two.
  if (!set.empty()) {
    add_feature(out, set);
  } else if (instruction.meta.isa_ext != ZYDIS_ISA_EXT_SSE4) {
    add_feature(out, extension);
  }
  if (instruction.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX || instruction.meta.isa_ext == ZYDIS_ISA_EXT_AVX512VEX) {
    add_feature(out, "avx512f");
    if (instruction.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && instruction.avx.vector_length != 512) {
      add_feature(out, "avx512vl");
    }
  }
}

bool
is_flow(const ZydisDecodedInstruction& instruction)
{
  ZydisInstructionCategory category = instruction.meta.category;
  return category == ZYDIS_CATEGORY_CALL || category == ZYDIS_CATEGORY_COND_BR || category == ZYDIS_CATEGORY_UNCOND_BR
         || category == ZYDIS_CATEGORY_RET;
}

} // namespace

struct Disassembler::Impl
{
  ZydisDecoder decoder;
  ZydisFormatter formatter;
};

Disassembler::Disassembler()
  : m_impl(std::make_unique<Impl>())
{
  if (!ZYAN_SUCCESS(ZydisDecoderInit(&m_impl->decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))
      || !ZYAN_SUCCESS(ZydisFormatterInit(&m_impl->formatter, ZYDIS_FORMATTER_STYLE_INTEL))) {
    fail(ExitCode::system, "zydis: cannot start an x86-64 decoder");
  }
}

Disassembler::~Disassembler() = default;

Decoded
Disassembler::decode(std::string_view code, uint64_t address)
{
  Decoded out;
  out.address = address;
  out.size = 1;
  if (code.empty()) {
    return out;
  }
  ZydisDecoderContext context;
  ZydisDecodedInstruction instruction;
  if (!ZYAN_SUCCESS(
        ZydisDecoderDecodeInstruction(&m_impl->decoder, &context, code.data(), code.size(), &instruction))) {
    return out; // bytes no x86-64 instruction starts with: skipped like data
  }
  out.size = instruction.length;
  out.valid = true;
  out.cpuid = instruction.mnemonic == ZYDIS_MNEMONIC_CPUID || instruction.mnemonic == ZYDIS_MNEMONIC_XGETBV;
  // mod 00, r/m 101 is [rip + disp32] in 64-bit mode: no operand decoding needed.
  if ((instruction.attributes & ZYDIS_ATTRIB_HAS_MODRM) != 0 && instruction.raw.modrm.mod == 0
      && instruction.raw.modrm.rm == 5) {
    out.rip_data = address + instruction.length + static_cast<uint64_t>(instruction.raw.disp.value);
  }
  read_features(instruction, out);
  bool flow = is_flow(instruction);
  if (instruction.meta.category == ZYDIS_CATEGORY_RET || instruction.mnemonic == ZYDIS_MNEMONIC_UD2
      || instruction.mnemonic == ZYDIS_MNEMONIC_HLT) {
    out.flow = Flow::stop;
    flow = false;
  }
  if (!flow && out.features.empty()) {
    return out; // most instructions: no operands to decode
  }
  std::array<ZydisDecodedOperand, ZYDIS_MAX_OPERAND_COUNT> operands;
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&m_impl->decoder, &context, &instruction, operands.data(),
                                               instruction.operand_count))) {
    return out;
  }
  if (flow) {
    ZydisInstructionCategory category = instruction.meta.category;
    out.flow = category == ZYDIS_CATEGORY_CALL              ? Flow::call
               : instruction.mnemonic == ZYDIS_MNEMONIC_JMP ? Flow::jump
                                                            : Flow::conditional;
    if (instruction.operand_count_visible == 1) {
      const ZydisDecodedOperand& operand = operands[0];
      ZyanU64 where = 0;
      if (operand.type == ZYDIS_OPERAND_TYPE_IMMEDIATE && operand.imm.is_relative
          && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&instruction, &operand, address, &where))) {
        out.target = where;
      } else if (operand.type == ZYDIS_OPERAND_TYPE_MEMORY && operand.mem.base == ZYDIS_REGISTER_RIP
                 && operand.mem.index == ZYDIS_REGISTER_NONE
                 && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&instruction, &operand, address, &where))) {
        out.slot = where;
      }
    }
  }
  if (!out.features.empty()) {
    char text[256];
    if (ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&m_impl->formatter, &instruction, operands.data(),
                                                     instruction.operand_count_visible, text, sizeof(text), address,
                                                     nullptr))) {
      out.text = text;
    }
  }
  return out;
}

} // namespace opkit::cpu::detail
