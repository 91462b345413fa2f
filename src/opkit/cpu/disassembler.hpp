#pragma once

// Internal to cpu/: Zydis behind opkit's types. One instruction at a
// time, with the features it needs (isa.hpp's names) and where it goes.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::cpu::detail {

enum class Flow
{
  next,        // falls through
  call,        // call
  jump,        // unconditional jmp
  conditional, // jcc, loop, jrcxz
  stop,        // ret, ud2, hlt: nothing after it runs
};

struct Decoded
{
  uint64_t address = 0;
  uint64_t size = 0;  // at least 1, also for bytes that decode to nothing
  bool valid = false; // false: bytes no decoder knows (skipped like data)
  std::vector<std::string_view> features;
  std::string text; // "vpaddd zmm2, zmm1, zmm0"; filled only when `features` is not empty
  Flow flow = Flow::next;
  uint64_t target = 0;   // a direct call/jmp/jcc: where it goes
  uint64_t slot = 0;     // call/jmp qword ptr [rip + d]: the address of the pointer it reads
  bool cpuid = false;    // cpuid or xgetbv: the code asks the CPU what it has
  uint64_t rip_data = 0; // a [rip + d] memory operand of any instruction: the address it reads or writes
};

class Disassembler
{
public:
  Disassembler(); // Error(system) when the decoder cannot start
  ~Disassembler();
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;

  // Decodes the instruction at the start of `code` (at `address`). Bytes no
  // instruction starts with are skipped one byte (valid false).
  Decoded decode(std::string_view code, uint64_t address);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace opkit::cpu::detail
