#pragma once

// Internal to check/ (elf_file.cpp): the ELF reader's view of a library's
// dynamic information, and how the dynamic loader sees it: through program
// headers. A library stripped of its section headers (sstrip) still loads with
// dlopen, so the reader must be able to read it the way the loader does.

#include <gelf.h>
#include <libelf.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <string_view>
#include <vector>

namespace opkit::elf::elf_detail {

// A little-endian unsigned value of T's width at `offset` of `bytes` (the
// reader accepts only little-endian files), read without libelf; the caller
// has checked that it lies inside.
template<typename T>
T
little_endian_at(std::string_view bytes, uint64_t offset)
{
  T value = 0;
  for (uint64_t i = sizeof(T); i-- > 0;) {
    value = static_cast<T>((value << 8) | static_cast<unsigned char>(bytes[offset + i]));
  }
  return value;
}

// The string table a section's names index: a section libelf resolves by its
// index (sh_link), or, read through program headers, the bytes that
// DT_STRTAB and DT_STRSZ name inside the image.
struct StringTable
{
  size_t section = 0;
  std::string_view bytes;
  bool from_segments = false;
};

// One part of the dynamic view, with its (converted) data.
struct Section
{
  Elf_Data* data = nullptr; // null when the file has no such part
  StringTable strings;      // what its name offsets index
  size_t records = 0;       // version sections: how many entries (sh_info, DT_VERNEEDNUM, DT_VERDEFNUM)
};

struct DynamicSections
{
  Section dynamic;
  Section dynsym;
  Section versym;
  Section verdef;
  Section verneed;
};

// The program headers the loader maps: PT_LOAD segments, in order, and PT_DYNAMIC.
struct Segments
{
  std::vector<GElf_Phdr> loads;
  GElf_Phdr dynamic{};
};

// Owns an Elf handle so elf_end runs on every exit path, throws included.
struct ElfCloser
{
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

// elf_version, once per process; Error(system) when libelf cannot start.
void
init_libelf();

// Checks e_ident: ELF, 64-bit, little-endian, a whole ELF header; else
// Error(usage) naming what is wrong.
void
check_ident(std::string_view bytes, std::string_view name);

// An ET_DYN's machine, "x86_64" or "aarch64"; anything else is Error(usage).
std::string
check_header(Elf* elf, std::string_view name);

[[noreturn]] void
fail_malformed(std::string_view name, std::string_view cause);

[[noreturn]] void
fail_libelf(std::string_view name);

// Checks the program headers as glibc's loader does before it maps a library
// (open_verify, _dl_map_object_from_fd): the entry size, a count the loader
// reads as it is (PN_XNUM, 65535, is refused: the loader does not read the
// real count from section 0), the table inside the file, at least one PT_LOAD
// whose address and file offset agree modulo the page size, every PT_LOAD's file bytes
// inside the file, and a non-empty PT_DYNAMIC inside a loaded segment.
// Throws Error(usage) "<name>: not loadable: <cause>" or a truncation error.
Segments
check_loadable(Elf* elf, size_t image_size, std::string_view name);

// The dynamic view read as the loader reads it, for a file without section
// headers: PT_DYNAMIC's entries, DT_STRTAB/DT_STRSZ, DT_SYMTAB with its count
// from DT_GNU_HASH (or DT_HASH), DT_VERSYM, DT_VERNEED/DT_VERNEEDNUM and
// DT_VERDEF/DT_VERDEFNUM. Every address is mapped to file bytes through the
// PT_LOAD segments and checked to lie inside them.
DynamicSections
sections_from_segments(Elf* elf, std::string_view image, const Segments& segments, std::string_view name);

} // namespace opkit::elf::elf_detail
