// The Zydis functions cpu/disassembler.cpp calls, forwarding to libZydis opened
// on first use (util/lazy_library.hpp says why): only a CPU scan decodes code,
// and a check whose findings are kept needs none.

#include "opkit/util/lazy_library.hpp"

#include <Zydis/Zydis.h>

namespace {

constexpr opkit::LazyLibrary k_zydis(OPKIT_ZYDIS_SONAME, "libzydis4.0");

} // namespace

extern "C"
{

  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisDecoderInit,
                     (ZydisDecoder * decoder, ZydisMachineMode machine_mode, ZydisStackWidth stack_width),
                     (decoder, machine_mode, stack_width))
  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisFormatterInit, (ZydisFormatter * formatter, ZydisFormatterStyle style),
                     (formatter, style))
  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisDecoderDecodeInstruction,
                     (const ZydisDecoder* decoder, ZydisDecoderContext* context, const void* buffer, ZyanUSize length,
                      ZydisDecodedInstruction* instruction),
                     (decoder, context, buffer, length, instruction))
  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisDecoderDecodeOperands,
                     (const ZydisDecoder* decoder, const ZydisDecoderContext* context,
                      const ZydisDecodedInstruction* instruction, ZydisDecodedOperand* operands, ZyanU8 operand_count),
                     (decoder, context, instruction, operands, operand_count))
  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisCalcAbsoluteAddress,
                     (const ZydisDecodedInstruction* instruction, const ZydisDecodedOperand* operand,
                      ZyanU64 runtime_address, ZyanU64* result_address),
                     (instruction, operand, runtime_address, result_address))
  OPKIT_LAZY_FORWARD(k_zydis, ZyanStatus, ZydisFormatterFormatInstruction,
                     (const ZydisFormatter* formatter, const ZydisDecodedInstruction* instruction,
                      const ZydisDecodedOperand* operands, ZyanU8 operand_count, char* buffer, ZyanUSize length,
                      ZyanU64 runtime_address, void* user_data),
                     (formatter, instruction, operands, operand_count, buffer, length, runtime_address, user_data))
  OPKIT_LAZY_FORWARD(k_zydis, const char*, ZydisISAExtGetString, (ZydisISAExt isa_ext), (isa_ext))
  OPKIT_LAZY_FORWARD(k_zydis, const char*, ZydisISASetGetString, (ZydisISASet isa_set), (isa_set))

} // extern "C"
