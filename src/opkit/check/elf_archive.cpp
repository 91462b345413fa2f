#include "opkit/check/elf_archive.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <gelf.h>
#include <libelf.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

namespace opkit::check {

namespace {

struct FileCloser
{
  int fd;
  ~FileCloser() { ::close(fd); }
};

struct ElfCloser
{
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

// The global symbols of one relocatable member, from its .symtab.
void
read_member_symbols(Elf* elf, ArchiveMember& member)
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
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) {
        continue;
      }
      int binding = GELF_ST_BIND(symbol.st_info);
      if (binding != STB_GLOBAL && binding != STB_WEAK && binding != STB_GNU_UNIQUE) {
        continue;
      }
      const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (name == nullptr || *name == '\0') {
        continue;
      }
      if (symbol.st_shndx == SHN_UNDEF) {
        member.needs.emplace_back(name);
        continue;
      }
      member.defines.emplace_back(name);
      if (binding == STB_WEAK) {
        member.weak.emplace_back(name);
      }
    }
  }
}

} // namespace

std::vector<ArchiveMember>
read_archive_members(const std::filesystem::path& archive)
{
  if (elf_version(EV_CURRENT) == EV_NONE) {
    fail(ExitCode::system, "libelf: cannot initialise: {}", elf_errmsg(-1));
  }
  int fd = ::open(archive.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fail(ExitCode::usage, "{}: cannot open: {}", archive, std::strerror(errno));
  }
  FileCloser closer{fd};
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
      members.push_back({header->ar_name, {}, {}});
      read_member_symbols(raw, members.back());
    }
    command = elf_next(raw);
  }
  return members;
}

} // namespace opkit::check
