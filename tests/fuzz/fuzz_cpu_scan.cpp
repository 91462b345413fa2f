// libFuzzer target for the CPU-feature scan: elf/elf_code's reader of a
// library's code and load-time entry points, then cpu/scan's disassembly.
//
// scan_library_bytes must turn every malformed input into opkit::Error; only
// that exception is swallowed here. Its seed corpus is the ELF reader's.

#include "opkit/cpu/scan.hpp"
#include "opkit/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  opkit::cpu::ScanLimits limits;
  limits.max_instructions = 200'000; // a fuzz input runs in milliseconds
  try {
    opkit::cpu::CpuScan scan = opkit::cpu::scan_library_bytes(bytes, "fuzz-input", limits);
    volatile size_t total = scan.load_time.size() + scan.other.size() + scan.features_all.size();
    (void)total;
  } catch (const opkit::Error&) {
    // Malformed input, reported the documented way.
  }
  return 0;
}
