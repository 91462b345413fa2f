#pragma once

// CUDA fatbinaries (.nv_fatbin): which PTX and device code they carry. The
// bytes are untrusted: every offset and length is checked, and anything that
// does not parse ends the walk without a result for it, never a crash.
#include <cstdint>
#include <string_view>
#include <vector>

namespace opkit::elf {

struct FatbinEntry
{
  bool ptx = false; // PTX (kind 1); else device code (kind 2, a cubin)
  int major = 0;    // PTX: the PTX ISA version (7.8); cubin: its ABI version
  int minor = 0;
  int arch = 0; // sm_XY as XY
};

// Every entry of every fatbinary container in a .nv_fatbin section's bytes.
std::vector<FatbinEntry>
read_fatbin_entries(std::string_view section);

} // namespace opkit::elf
