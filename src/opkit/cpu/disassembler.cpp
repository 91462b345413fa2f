#include "opkit/cpu/disassembler.hpp"

#include "opkit/util/error.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <capstone/capstone.h>

namespace opkit::cpu::detail {

namespace {

// Capstone's x86 groups that name an extension, by isa.hpp's names. SSE1,
// SSE2, MMX, CMOV and FPU are every x86-64 CPU's, so they are left out;
// HLE's prefixes are ignored by CPUs without it, so it is too.
struct GroupName
{
  uint8_t group;
  std::string_view name;
};
constexpr GroupName k_groups[] = {
  {X86_GRP_SSE3, "sse3"},     {X86_GRP_SSSE3, "ssse3"},       {X86_GRP_SSE41, "sse4.1"},   {X86_GRP_SSE42, "sse4.2"},
  {X86_GRP_SSE4A, "sse4a"},   {X86_GRP_AVX, "avx"},           {X86_GRP_AVX2, "avx2"},      {X86_GRP_FMA, "fma"},
  {X86_GRP_FMA4, "fma4"},     {X86_GRP_XOP, "xop"},           {X86_GRP_F16C, "f16c"},      {X86_GRP_BMI, "bmi"},
  {X86_GRP_BMI2, "bmi2"},     {X86_GRP_TBM, "tbm"},           {X86_GRP_ADX, "adx"},        {X86_GRP_AES, "aes"},
  {X86_GRP_PCLMUL, "pclmul"}, {X86_GRP_SHA, "sha"},           {X86_GRP_AVX512, "avx512f"}, {X86_GRP_CDI, "avx512cd"},
  {X86_GRP_ERI, "avx512er"},  {X86_GRP_PFI, "avx512pf"},      {X86_GRP_DQI, "avx512dq"},   {X86_GRP_BWI, "avx512bw"},
  {X86_GRP_VLX, "avx512vl"},  {X86_GRP_FSGSBASE, "fsgsbase"}, {X86_GRP_RTM, "rtm"},        {X86_GRP_3DNOW, "3dnow"},
};

// Instructions capstone 4 puts in no extension group, by id.
struct InstructionName
{
  unsigned id;
  std::string_view name;
};
constexpr InstructionName k_instructions[] = {
  {X86_INS_POPCNT, "popcnt"},  {X86_INS_LZCNT, "lzcnt"},      {X86_INS_MOVBE, "movbe"},   {X86_INS_CMPXCHG16B, "cx16"},
  {X86_INS_LAHF, "sahf"},      {X86_INS_SAHF, "sahf"},        {X86_INS_RDRAND, "rdrnd"},  {X86_INS_RDSEED, "rdseed"},
  {X86_INS_XSAVE, "xsave"},    {X86_INS_XSAVE64, "xsave"},    {X86_INS_XSAVEC, "xsave"},  {X86_INS_XSAVEC64, "xsave"},
  {X86_INS_XSAVEOPT, "xsave"}, {X86_INS_XSAVEOPT64, "xsave"}, {X86_INS_XSAVES, "xsave"},  {X86_INS_XSAVES64, "xsave"},
  {X86_INS_XRSTOR, "xsave"},   {X86_INS_XRSTOR64, "xsave"},   {X86_INS_XRSTORS, "xsave"}, {X86_INS_XRSTORS64, "xsave"},
};

constexpr unsigned char k_evex = 0x62; // in 64-bit mode always EVEX (BOUND does not exist there)
constexpr unsigned char k_vex3 = 0xc4; // in 64-bit mode always VEX (LES/LDS do not exist there)
constexpr unsigned char k_vex2 = 0xc5;

// The length of an instruction's ModRM byte and what follows it up to the
// immediate (SIB, displacement), or 0 when `code` is too short.
size_t
modrm_length(std::string_view code, size_t at)
{
  if (at >= code.size()) {
    return 0;
  }
  auto modrm = static_cast<unsigned char>(code[at]);
  unsigned mod = modrm >> 6;
  unsigned rm = modrm & 7;
  size_t length = 1;
  if (mod != 3 && rm == 4) {
    if (at + 1 >= code.size()) {
      return 0;
    }
    length += 1;
    if (mod == 0 && (static_cast<unsigned char>(code[at + 1]) & 7) == 5) {
      length += 4;
    }
  }
  if (mod == 0 && rm == 5) {
    length += 4; // rip-relative
  } else if (mod == 1) {
    length += 1;
  } else if (mod == 2) {
    length += 4;
  }
  return length;
}

// A VEX or EVEX instruction capstone 4 cannot decode (vpternlogd, kmovq,
// AVX512-VNNI, VBMI...), measured from its prefix, opcode map and ModRM so
// the scan stays in step; 0 when it does not look like one.
size_t
vex_length(std::string_view code, unsigned& map, unsigned char& opcode)
{
  auto first = static_cast<unsigned char>(code[0]);
  size_t prefix = first == k_evex ? 4 : first == k_vex3 ? 3 : first == k_vex2 ? 2 : 0;
  if (prefix == 0 || code.size() <= prefix) {
    return 0;
  }
  map = first == k_vex2 ? 1 : static_cast<unsigned char>(code[1]) & (first == k_evex ? 0x07 : 0x1f);
  opcode = static_cast<unsigned char>(code[prefix]);
  size_t modrm = modrm_length(code, prefix + 1);
  if (modrm == 0 || map == 0 || map > 3) {
    return 0;
  }
  bool immediate = map == 3 || (map == 1 && ((opcode >= 0x70 && opcode <= 0x73) || (opcode >= 0xc2 && opcode <= 0xc6)));
  size_t length = prefix + 1 + modrm + (immediate ? 1 : 0);
  return length <= code.size() ? length : 0;
}

// VEX opcodes of map 1 that are AVX-512 opmask instructions (kmov, kand, kor, kshift...).
bool
is_opmask_opcode(unsigned char opcode)
{
  return (opcode >= 0x41 && opcode <= 0x4b) || (opcode >= 0x90 && opcode <= 0x93) || opcode == 0x98 || opcode == 0x99;
}

Decoded
undecodable(std::string_view code, uint64_t address)
{
  Decoded out;
  out.address = address;
  out.size = 1;
  unsigned map = 0;
  unsigned char opcode = 0;
  size_t length = vex_length(code, map, opcode);
  if (length == 0) {
    return out;
  }
  out.size = length;
  bool evex = static_cast<unsigned char>(code[0]) == k_evex;
  bool opmask = !evex && map == 1 && is_opmask_opcode(opcode);
  out.features.push_back(evex || opmask ? "avx512f" : "avx");
  std::string bytes;
  for (size_t i = 0; i < length; ++i) {
    bytes += fmt::format("{}{:02x}", i == 0 ? "" : " ", static_cast<unsigned char>(code[i]));
  }
  out.text = fmt::format("({} instruction capstone 4 cannot decode: {})", evex ? "EVEX" : "VEX", bytes);
  return out;
}

void
add_feature(Decoded& out, std::string_view name)
{
  if (std::find(out.features.begin(), out.features.end(), name) == out.features.end()) {
    out.features.push_back(name);
  }
}

void
read_features(const cs_insn& insn, Decoded& out)
{
  const cs_detail& detail = *insn.detail;
  for (uint8_t i = 0; i < detail.groups_count; ++i) {
    for (const GroupName& group : k_groups) {
      if (detail.groups[i] == group.group) {
        add_feature(out, group.name);
      }
    }
  }
  for (const InstructionName& instruction : k_instructions) {
    if (insn.id == instruction.id) {
      add_feature(out, instruction.name);
    }
  }
  // TZCNT is REP BSF: a CPU without BMI runs it as BSF, and GCC emits it for
  // __builtin_ctz on every target, so it does not count as BMI.
  if (insn.id == X86_INS_TZCNT) {
    out.features.erase(std::remove(out.features.begin(), out.features.end(), "bmi"), out.features.end());
  }
  bool evex = insn.bytes[0] == k_evex;
  bool avx512_part = std::any_of(out.features.begin(), out.features.end(),
                                 [](std::string_view name) { return name.substr(0, 6) == "avx512"; });
  if (evex || avx512_part) {
    add_feature(out, "avx512f");
  } else if ((insn.bytes[0] == k_vex3 || insn.bytes[0] == k_vex2) && out.features.empty()) {
    add_feature(out, "avx"); // a VEX instruction capstone put in no group: AVX at least
  }
}

bool
has_group(const cs_detail& detail, uint8_t group)
{
  return std::find(detail.groups, detail.groups + detail.groups_count, group) != detail.groups + detail.groups_count;
}

void
read_flow(const cs_insn& insn, Decoded& out)
{
  const cs_detail& detail = *insn.detail;
  bool call = has_group(detail, X86_GRP_CALL);
  bool jump = has_group(detail, X86_GRP_JUMP);
  if (has_group(detail, X86_GRP_RET) || insn.id == X86_INS_UD2 || insn.id == X86_INS_HLT) {
    out.flow = Flow::stop;
    return;
  }
  if (!call && !jump) {
    return;
  }
  out.flow = call ? Flow::call : insn.id == X86_INS_JMP ? Flow::jump : Flow::conditional;
  if (detail.x86.op_count != 1) {
    return;
  }
  const cs_x86_op& operand = detail.x86.operands[0];
  if (operand.type == X86_OP_IMM) {
    out.target = static_cast<uint64_t>(operand.imm);
  } else if (operand.type == X86_OP_MEM && operand.mem.base == X86_REG_RIP && operand.mem.index == X86_REG_INVALID) {
    out.slot = insn.address + insn.size + static_cast<uint64_t>(operand.mem.disp);
  }
}

std::string
text_of(const cs_insn& insn)
{
  std::string text = insn.op_str[0] ? fmt::format("{} {}", insn.mnemonic, insn.op_str) : std::string(insn.mnemonic);
  // capstone 4 writes "zmm2 , zmm1" after an EVEX destination.
  for (size_t at = text.find(" ,"); at != std::string::npos; at = text.find(" ,", at)) {
    text.erase(at, 1);
  }
  return text;
}

} // namespace

struct Disassembler::Impl
{
  csh handle = 0;
  cs_insn* insn = nullptr;
};

Disassembler::Disassembler()
  : m_impl(std::make_unique<Impl>())
{
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &m_impl->handle) != CS_ERR_OK) {
    fail(ExitCode::system, "capstone: cannot open an x86-64 disassembler");
  }
  cs_option(m_impl->handle, CS_OPT_DETAIL, CS_OPT_ON);
  m_impl->insn = cs_malloc(m_impl->handle);
  if (!m_impl->insn) {
    cs_close(&m_impl->handle);
    fail(ExitCode::system, "capstone: out of memory");
  }
}

Disassembler::~Disassembler()
{
  cs_free(m_impl->insn, 1);
  cs_close(&m_impl->handle);
}

Decoded
Disassembler::decode(std::string_view code, uint64_t address)
{
  const auto* bytes = reinterpret_cast<const uint8_t*>(code.data());
  size_t size = code.size();
  uint64_t at = address;
  // Without CS_OPT_SKIPDATA, capstone says which bytes it does not know, and
  // undecodable() measures the VEX/EVEX ones that capstone 4 lacks.
  if (code.empty()) {
    Decoded nothing;
    nothing.address = address;
    nothing.size = 1;
    return nothing;
  }
  if (!cs_disasm_iter(m_impl->handle, &bytes, &size, &at, m_impl->insn)) {
    return undecodable(code, address);
  }
  const cs_insn& insn = *m_impl->insn;
  Decoded out;
  out.address = address;
  out.size = insn.size;
  out.valid = true;
  out.cpuid = insn.id == X86_INS_CPUID || insn.id == X86_INS_XGETBV;
  read_features(insn, out);
  read_flow(insn, out);
  if (!out.features.empty()) {
    out.text = text_of(insn);
  }
  return out;
}

} // namespace opkit::cpu::detail
