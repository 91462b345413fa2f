// libFuzzer target for opkit's ELF reader.
//
// read_elf_bytes must turn every malformed input into opkit::Error; only that
// exception is swallowed here. Anything else (another exception type, a
// sanitizer report, a crash) escapes so that the fuzzer records the input.
// README.md in this folder says how to build and run it; replay_main.cpp runs
// the same entry point over the seed corpus as an ordinary CTest test.

#include "opkit/elf/elf_file.hpp"
#include "opkit/elf/fatbin.hpp"
#include "opkit/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Both ways opkit reads a library: whole (profiles, indexes) and, for the
  // library under check, its undefined symbols only.
  for (opkit::elf::SymbolScope scope : {opkit::elf::SymbolScope::all, opkit::elf::SymbolScope::undefined}) {
    try {
      opkit::elf::ElfInfo info = opkit::elf::read_elf_bytes(bytes, "fuzz-input", scope);
      // Touch the result so the reader's output is materialised, not optimised away.
      volatile size_t total = info.machine.size() + info.soname.size() + info.needed.size() + info.rpath.size()
                              + info.runpath.size() + info.dynamic_symbols.size() + info.version_definitions.size()
                              + info.version_needs.size();
      (void)total;
    } catch (const opkit::Error&) {
      // Malformed input, reported the documented way.
    }
  }
  // A .nv_fatbin section's bytes (reached above only inside a valid ELF): never throws.
  volatile size_t entries = opkit::elf::read_fatbin_entries(bytes).size();
  (void)entries;
  return 0;
}
