#include "opkit/elf/elf_archive.hpp"

#include "opkit/elf/elf_segments.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/format.hpp"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>

#include <fcntl.h>

namespace opkit::elf {

namespace {

using elf_detail::ElfHandle;

// Calls visit(index, symbol, name, data) for each entry of the object's
// .symtab but the first (name "" when unreadable); returns the table's
// section, or null when the object has none.
template<typename Visit>
Elf_Scn*
for_each_symbol(Elf* elf, Visit visit)
{
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    size_t count = data == nullptr ? 0 : data->d_size / header.sh_entsize;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) != nullptr) {
        const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
        visit(i, symbol, std::string_view(name == nullptr ? "" : name), data);
      }
    }
    return section;
  }
  return nullptr;
}

// The global symbols of one relocatable member, from its .symtab.
void
read_member_symbols(Elf* elf, ArchiveMember& member)
{
  for_each_symbol(elf, [&member](size_t, const GElf_Sym& symbol, std::string_view name, Elf_Data*) {
    int binding = GELF_ST_BIND(symbol.st_info);
    if (name.empty() || (binding != STB_GLOBAL && binding != STB_WEAK && binding != STB_GNU_UNIQUE)) {
      return;
    }
    if (symbol.st_shndx == SHN_UNDEF) {
      member.needs.emplace_back(name);
      return;
    }
    member.defines.emplace_back(name);
    if (binding == STB_WEAK) {
      member.weak.emplace_back(name);
    }
    int type = GELF_ST_TYPE(symbol.st_info);
    if (type == STT_OBJECT || type == STT_TLS) {
      member.data.emplace_back(name);
    }
  });
}

// A relocatable object, open for reading or for writing in place; `elf` null
// when the file is not one.
struct RelocatableObject
{
  UniqueFd file; // declared first, so closed after elf ends
  ElfHandle elf;
};

RelocatableObject
open_relocatable(const std::filesystem::path& path, bool write)
{
  elf_detail::init_libelf();
  RelocatableObject object;
  object.file.reset(::open(path.c_str(), (write ? O_RDWR : O_RDONLY) | O_CLOEXEC));
  if (!object.file.valid()) {
    return object;
  }
  object.elf.reset(elf_begin(object.file.get(), write ? ELF_C_RDWR : ELF_C_READ, nullptr));
  GElf_Ehdr ehdr;
  if (object.elf
      && (elf_kind(object.elf.get()) != ELF_K_ELF || gelf_getehdr(object.elf.get(), &ehdr) == nullptr
          || ehdr.e_type != ET_REL)) {
    object.elf.reset();
  }
  return object;
}

} // namespace

std::vector<ArchiveMember>
read_archive_members(const std::filesystem::path& archive)
{
  elf_detail::init_libelf();
  UniqueFd file{::open(archive.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!file.valid()) {
    fail(ExitCode::usage, "{}: cannot open: {}", archive, std::strerror(errno));
  }
  int fd = file.get();
  ElfHandle ar(elf_begin(fd, ELF_C_READ, nullptr));
  if (!ar || elf_kind(ar.get()) != ELF_K_AR) {
    fail(ExitCode::usage, "{}: not a static archive", archive);
  }
  std::vector<ArchiveMember> members;
  Elf_Cmd command = ELF_C_READ;
  for (Elf* raw = elf_begin(fd, command, ar.get()); raw != nullptr; raw = elf_begin(fd, command, ar.get())) {
    ElfHandle member(raw);
    Elf_Arhdr* header = elf_getarhdr(raw);
    if (header != nullptr && header->ar_name != nullptr && header->ar_name[0] != '/' && elf_kind(raw) == ELF_K_ELF) {
      members.push_back({header->ar_name, {}, {}, {}, {}});
      read_member_symbols(raw, members.back());
    }
    command = elf_next(raw);
  }
  return members;
}

void
make_references(const std::filesystem::path& object, const std::vector<std::string>& names)
{
  RelocatableObject file = open_relocatable(object, true);
  if (!file.elf) {
    fail(ExitCode::system, "{}: not a relocatable ELF object that can be written", object);
  }
  std::set<std::string, std::less<>> wanted(names.begin(), names.end());
  size_t changed = 0;
  Elf_Data* table = nullptr;
  for_each_symbol(file.elf.get(), [&](size_t i, GElf_Sym symbol, std::string_view name, Elf_Data* data) {
    if (symbol.st_shndx == SHN_UNDEF || wanted.count(name) == 0) {
      return;
    }
    symbol.st_info = GELF_ST_INFO(STB_GLOBAL, GELF_ST_TYPE(symbol.st_info));
    symbol.st_shndx = SHN_UNDEF;
    symbol.st_value = 0;
    symbol.st_size = 0;
    if (gelf_update_sym(data, static_cast<int>(i), &symbol) == 0) {
      fail(ExitCode::system, "{}: cannot update symbol {}: {}", object, name, elf_errmsg(-1));
    }
    table = data;
    ++changed;
  });
  if (changed == 0) {
    return;
  }
  elf_flagdata(table, ELF_C_SET, ELF_F_DIRTY);
  elf_flagelf(file.elf.get(), ELF_C_SET, ELF_F_LAYOUT); // sizes are unchanged: keep every offset
  if (elf_update(file.elf.get(), ELF_C_WRITE) < 0) {
    fail(ExitCode::system, "{}: cannot write: {}", object, elf_errmsg(-1));
  }
}

std::map<std::string, std::vector<std::string>>
functions_referencing(const std::filesystem::path& object, const std::set<std::string>& names)
{
  std::map<std::string, std::vector<std::string>> users;
  RelocatableObject file = open_relocatable(object, false);
  if (!file.elf) {
    return users;
  }
  Elf* elf = file.elf.get();
  // The symbol table: names by index, and the functions of each section.
  struct Function
  {
    GElf_Addr start;
    GElf_Addr end;
    std::string name;
  };
  std::vector<std::string> symbol_names;
  std::map<size_t, std::vector<Function>> functions; // section index -> its functions
  Elf_Scn* symtab = for_each_symbol(elf, [&](size_t i, const GElf_Sym& symbol, std::string_view name, Elf_Data*) {
    symbol_names.resize(std::max(symbol_names.size(), i + 1));
    symbol_names[i] = name;
    if (GELF_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_shndx != SHN_UNDEF && symbol.st_shndx < SHN_LORESERVE
        && !name.empty()) {
      functions[symbol.st_shndx].push_back({symbol.st_value, symbol.st_value + symbol.st_size, std::string(name)});
    }
  });
  size_t symtab_index = symtab == nullptr ? 0 : elf_ndxscn(symtab);
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_RELA || header.sh_link != symtab_index) {
      continue;
    }
    auto code = functions.find(header.sh_info);
    if (code == functions.end()) {
      continue; // relocations of data, or of code no function symbol covers
    }
    Elf_Data* data = elf_getdata(section, nullptr);
    size_t count = data == nullptr || header.sh_entsize == 0 ? 0 : data->d_size / header.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Rela rela;
      if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr) {
        continue;
      }
      size_t index = GELF_R_SYM(rela.r_info);
      if (index >= symbol_names.size() || names.count(symbol_names[index]) == 0) {
        continue;
      }
      for (const Function& function : code->second) {
        if (rela.r_offset >= function.start && rela.r_offset < function.end) {
          std::vector<std::string>& list = users[symbol_names[index]];
          if (std::find(list.begin(), list.end(), function.name) == list.end()) {
            list.push_back(function.name);
          }
        }
      }
    }
  }
  return users;
}

} // namespace opkit::elf
