#pragma once

#include "opkit/elf/fatbin.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::elf {

// One entry of .dynsym (index 0, the null symbol, is skipped).
struct ElfSymbol
{
  std::string name;            // mangled, as stored
  bool defined = false;        // st_shndx != SHN_UNDEF
  bool weak = false;           // STB_WEAK
  bool global = false;         // STB_GLOBAL or STB_GNU_UNIQUE
  uint8_t type = 0;            // STT_* (STT_FUNC, STT_OBJECT, ...)
  std::string version;         // e.g. "GLIBCXX_3.4.29"; empty when unversioned/local/base
  bool version_hidden = false; // the 0x8000 bit of .gnu.version (foo@VER, not foo@@VER)
};

// A .gnu.version_r entry: a needed file and the versions required from it.
struct ElfVersionNeed
{
  std::string file;                  // e.g. "libstdc++.so.6"
  std::vector<std::string> versions; // e.g. {"GLIBCXX_3.4", "CXXABI_1.3"}
};

// What opkit reads from a shared object's dynamic view.
struct ElfInfo
{
  std::string machine;                          // "x86_64" or "aarch64"
  std::string soname;                           // DT_SONAME, may be empty
  std::vector<std::string> needed;              // DT_NEEDED, in order
  std::vector<std::string> rpath;               // DT_RPATH, split on ':'
  std::vector<std::string> runpath;             // DT_RUNPATH, split on ':'
  std::vector<ElfSymbol> dynamic_symbols;       // .dynsym
  std::vector<std::string> version_definitions; // .gnu.version_d names (excluding the file's base entry)
  std::vector<ElfVersionNeed> version_needs;    // .gnu.version_r
  std::vector<std::string> section_names;       // e.g. ".nv_fatbin" marks CUDA device code; unreadable names skipped
  std::vector<FatbinEntry> fatbin;              // .nv_fatbin's PTX and cubins, when it has any
};

// Which .dynsym entries read_elf reports. A library under check only needs
// its undefined symbols: the names of its definitions (most of a framework
// library's 50k entries) are then not read at all.
enum class SymbolScope
{
  all,
  undefined
};

// Reads a 64-bit little-endian x86-64 or aarch64 ELF shared object (ET_DYN).
// Anything else (not ELF, truncated, 32-bit, big-endian, other machine, an
// executable or relocatable object) throws opkit::Error(ExitCode::usage) with
// "<path>: <what is wrong>"; it never crashes on malformed input.
ElfInfo
read_elf(const std::filesystem::path& path, SymbolScope scope = SymbolScope::all);

// Whether glibc's loader, searching for a dependency of a `machine`
// ("x86_64") process, passes over the file at `path` and searches on, as
// open_verify does for another ELF class (a 32-bit library) or another
// machine: why ("a 32-bit library (ELFCLASS32)", "an aarch64 library"), or ""
// when it takes the file, loadable or not (not ELF, big-endian, truncated:
// the load then fails there, as read_elf says). Reads the first 20 bytes only.
std::string
loader_passes_over(const std::filesystem::path& path, const std::string& machine);
std::string
loader_passes_over_bytes(std::string_view head, const std::string& machine);

// The same over bytes in memory; `name` is used in error messages (fuzzing, tests).
ElfInfo
read_elf_bytes(std::string_view bytes, std::string_view name, SymbolScope scope = SymbolScope::all);

} // namespace opkit::elf
