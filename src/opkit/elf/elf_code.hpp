#pragma once

// The code of an x86-64 shared library, for the instruction scan in cpu/:
// its executable bytes, its functions, and what runs when it is loaded.
// Read with the same bounds checks as elf_file: a malformed file is an
// Error(usage), never a crash.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::elf {

// Executable bytes at a virtual address: an SHF_EXECINSTR section (".text",
// ".init", ".plt"...), or an executable PT_LOAD segment when the file has no
// section headers.
struct CodeRegion
{
  std::string name; // ".text"; "PT_LOAD[1]" for a segment
  uint64_t address = 0;
  std::string bytes;
};

// A defined STT_FUNC or STT_GNU_IFUNC symbol (one per address: aliases are
// dropped, a global name preferred over a local one).
struct CodeFunction
{
  std::string name; // mangled, as stored
  uint64_t address = 0;
  uint64_t size = 0;  // st_size; 0 for a hand-written symbol without one
  bool ifunc = false; // STT_GNU_IFUNC: `address` is its resolver, run at load time
};

struct ElfCode
{
  std::vector<CodeRegion> regions;
  std::vector<CodeFunction> functions; // by address; from .symtab when present, else .dynsym
  bool from_symtab = false;
  // Code the loader runs before dlopen returns: DT_INIT, the entries of
  // DT_INIT_ARRAY (the stored value, or the addend of the R_X86_64_RELATIVE
  // relocation that fills the slot), of .ctors, and the ifunc resolvers of
  // R_X86_64_IRELATIVE relocations, in that order, no duplicates.
  std::vector<uint64_t> init_functions;
  // GOT slots (R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT) bound to a function this
  // library defines: slot address -> the function's address. A call through
  // the PLT or `call *foo@GOTPCREL(%rip)` to the library's own function.
  std::map<uint64_t, uint64_t> own_got_functions;
  // libgcc's CPU model defined here (__cpu_model, __cpu_features2: what
  // __builtin_cpu_supports reads): address -> size.
  std::map<uint64_t, uint64_t> cpu_model_data;
  std::set<std::string> symbol_names; // every name of the symbol table read and .dynsym, defined or not
};

// libgcc's CPU model, what __builtin_cpu_supports reads (ElfCode::cpu_model_data).
constexpr std::string_view k_cpu_model_data[] = {"__cpu_model", "__cpu_features2"};

// Caps on what a hostile file can make the reader do.
struct ElfCodeLimits
{
  uint64_t max_code_bytes = uint64_t{1} << 30; // executable bytes copied, in all
  size_t max_symbols = 4'000'000;              // symbol table entries read
  size_t max_relocations = 8'000'000;          // .rela.dyn + .rela.plt entries read
  size_t max_init_entries = 65'536;            // DT_INIT_ARRAY + .ctors entries
};

// Reads an x86-64 shared object. Not ELF, truncated, malformed, or another
// machine: Error(usage) "<path>: <what is wrong>". Past a limit the rest is
// left out (ElfCode says nothing about it).
ElfCode
read_elf_code(const std::filesystem::path& path, const ElfCodeLimits& limits = {});

// The same over bytes in memory; `name` is used in error messages (fuzzing, tests).
ElfCode
read_elf_code_bytes(std::string_view bytes, std::string_view name, const ElfCodeLimits& limits = {});

} // namespace opkit::elf
