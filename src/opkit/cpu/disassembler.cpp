#include "opkit/cpu/disassembler.hpp"

#include "opkit/util/error.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <Zydis/Zydis.h>

namespace opkit::cpu::detail {

namespace {

// Zydis's ISA extensions that name a feature (isa.hpp's names). The x86-64
// baseline (BASE, LONGMODE, SSE, SSE2, MMX, X87, CMOV, FXSAVE...) and what a
// CPU without it ignores (PAUSE, prefetch and CET hints) name none.
struct ExtensionName
{
  ZydisISAExt ext;
  std::string_view name;
};
constexpr ExtensionName k_extensions[] = {
  {ZYDIS_ISA_EXT_SSE3, "sse3"},
  {ZYDIS_ISA_EXT_SSSE3, "ssse3"},
  {ZYDIS_ISA_EXT_SSE4A, "sse4a"},
  {ZYDIS_ISA_EXT_AVX, "avx"},
  {ZYDIS_ISA_EXT_AVX2, "avx2"},
  {ZYDIS_ISA_EXT_AVX2GATHER, "avx2"},
  {ZYDIS_ISA_EXT_AVX512EVEX, "avx512f"},
  {ZYDIS_ISA_EXT_AVX512VEX, "avx512f"}, // the opmask (k-register) instructions
  {ZYDIS_ISA_EXT_AVXAES, "aes"},
  {ZYDIS_ISA_EXT_FMA, "fma"},
  {ZYDIS_ISA_EXT_FMA4, "fma4"},
  {ZYDIS_ISA_EXT_XOP, "xop"},
  {ZYDIS_ISA_EXT_F16C, "f16c"},
  {ZYDIS_ISA_EXT_BMI1, "bmi"},
  {ZYDIS_ISA_EXT_BMI2, "bmi2"},
  {ZYDIS_ISA_EXT_TBM, "tbm"},
  {ZYDIS_ISA_EXT_ADOX_ADCX, "adx"},
  {ZYDIS_ISA_EXT_AES, "aes"},
  {ZYDIS_ISA_EXT_PCLMULQDQ, "pclmul"},
  {ZYDIS_ISA_EXT_VPCLMULQDQ, "pclmul"},
  {ZYDIS_ISA_EXT_SHA, "sha"},
  {ZYDIS_ISA_EXT_LZCNT, "lzcnt"},
  {ZYDIS_ISA_EXT_MOVBE, "movbe"},
  {ZYDIS_ISA_EXT_RDRAND, "rdrnd"},
  {ZYDIS_ISA_EXT_RDSEED, "rdseed"},
  {ZYDIS_ISA_EXT_XSAVE, "xsave"},
  {ZYDIS_ISA_EXT_XSAVEC, "xsave"},
  {ZYDIS_ISA_EXT_XSAVEOPT, "xsave"},
  {ZYDIS_ISA_EXT_XSAVES, "xsave"},
  {ZYDIS_ISA_EXT_RDWRFSGS, "fsgsbase"},
  {ZYDIS_ISA_EXT_RTM, "rtm"},
  {ZYDIS_ISA_EXT_AMD3DNOW, "3dnow"},
};

// Finer names from the ISA set: SSE4's two halves, the AVX-512 subsets, and
// the instructions the x86-64 baseline lacks inside an extension it has.
struct SetName
{
  ZydisISASet set;
  std::string_view name;
};
constexpr SetName k_sets[] = {
  {ZYDIS_ISA_SET_SSE4, "sse4.1"},
  {ZYDIS_ISA_SET_SSE42, "sse4.2"},
  {ZYDIS_ISA_SET_POPCNT, "popcnt"},
  {ZYDIS_ISA_SET_LAHF, "sahf"},
  {ZYDIS_ISA_SET_CMPXCHG16B, "cx16"},
  {ZYDIS_ISA_SET_AVX512BW_128, "avx512bw"},
  {ZYDIS_ISA_SET_AVX512BW_128N, "avx512bw"},
  {ZYDIS_ISA_SET_AVX512BW_256, "avx512bw"},
  {ZYDIS_ISA_SET_AVX512BW_512, "avx512bw"},
  {ZYDIS_ISA_SET_AVX512BW_KOP, "avx512bw"},
  {ZYDIS_ISA_SET_AVX512CD_128, "avx512cd"},
  {ZYDIS_ISA_SET_AVX512CD_256, "avx512cd"},
  {ZYDIS_ISA_SET_AVX512CD_512, "avx512cd"},
  {ZYDIS_ISA_SET_AVX512DQ_128, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512DQ_128N, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512DQ_256, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512DQ_512, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512DQ_KOP, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512DQ_SCALAR, "avx512dq"},
  {ZYDIS_ISA_SET_AVX512ER_512, "avx512er"},
  {ZYDIS_ISA_SET_AVX512ER_SCALAR, "avx512er"},
  {ZYDIS_ISA_SET_AVX512PF_512, "avx512pf"},
};

void
add_feature(Decoded& out, std::string_view name)
{
  if (std::find(out.features.begin(), out.features.end(), name) == out.features.end()) {
    out.features.push_back(name);
  }
}

// "_128"/"_256" sets of an EVEX instruction: the vector-length extension.
bool
vector_length_set(const ZydisDecodedInstruction& instruction)
{
  return instruction.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX && instruction.avx.vector_length != 512
         && instruction.meta.isa_ext == ZYDIS_ISA_EXT_AVX512EVEX;
}

void
read_features(const ZydisDecodedInstruction& instruction, Decoded& out)
{
  // TZCNT is REP BSF: a CPU without BMI runs it as BSF, and GCC emits it for
  // __builtin_ctz on every target, so it does not count as BMI.
  // CPUID and XGETBV ask the CPU what it has (libgcc's __cpu_indicator_init
  // runs XGETBV only after CPUID says OSXSAVE): dispatch evidence, no feature.
  if (instruction.mnemonic == ZYDIS_MNEMONIC_TZCNT || instruction.mnemonic == ZYDIS_MNEMONIC_XGETBV
      || instruction.mnemonic == ZYDIS_MNEMONIC_CPUID) {
    return;
  }
  for (const ExtensionName& extension : k_extensions) {
    if (instruction.meta.isa_ext == extension.ext) {
      add_feature(out, extension.name);
    }
  }
  for (const SetName& set : k_sets) {
    if (instruction.meta.isa_set == set.set) {
      add_feature(out, set.name);
    }
  }
  if (instruction.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX) {
    add_feature(out, "avx512f");
    if (vector_length_set(instruction)) {
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
