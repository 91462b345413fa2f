#include "opkit/elf/elf_file.hpp"

#include "opkit/elf/elf_segments.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/core.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>

#include <gelf.h>
#include <libelf.h>

namespace opkit::elf {

namespace elf_detail {

void
init_libelf()
{
  // elf_version must precede every other libelf call; once per process suffices.
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!ready) {
    fail(ExitCode::system, "libelf: cannot initialise: {}", elf_errmsg(-1));
  }
}

// Checks e_ident ourselves so the common wrong inputs get a precise message
// instead of libelf's generic one.
void
check_ident(std::string_view bytes, std::string_view name)
{
  if (bytes.size() < SELFMAG || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    fail(ExitCode::usage, "{}: not an ELF file", name);
  }
  if (bytes.size() < EI_NIDENT) {
    fail_malformed(name, "file is shorter than the ELF identification");
  }
  unsigned char elf_class = static_cast<unsigned char>(bytes[EI_CLASS]);
  if (elf_class == ELFCLASS32) {
    fail(ExitCode::usage, "{}: 32-bit ELF is not supported", name);
  }
  if (elf_class != ELFCLASS64) {
    fail_malformed(name, fmt::format("unknown ELF class {}", elf_class));
  }
  unsigned char data = static_cast<unsigned char>(bytes[EI_DATA]);
  if (data == ELFDATA2MSB) {
    fail(ExitCode::usage, "{}: big-endian ELF is not supported", name);
  }
  if (data != ELFDATA2LSB) {
    fail_malformed(name, fmt::format("unknown ELF data encoding {}", data));
  }
  if (bytes.size() < sizeof(Elf64_Ehdr)) {
    fail_malformed(name, "file is shorter than the ELF header");
  }
}

namespace {

std::string
describe_type(GElf_Half type)
{
  switch (type) {
    case ET_EXEC:
      return "an executable";
    case ET_REL:
      return "a relocatable object (.o)";
    case ET_CORE:
      return "a core dump";
    default:
      return fmt::format("an ELF file of type {}", type);
  }
}

} // namespace

std::string
check_header(Elf* elf, std::string_view name)
{
  GElf_Ehdr header;
  if (!gelf_getehdr(elf, &header)) {
    fail_libelf(name);
  }
  if (header.e_type != ET_DYN) {
    fail(ExitCode::usage, "{}: {}, not a shared library", name, describe_type(header.e_type));
  }
  if (header.e_machine == EM_X86_64) {
    return "x86_64";
  }
  if (header.e_machine == EM_AARCH64) {
    return "aarch64";
  }
  fail(ExitCode::usage, "{}: unsupported machine {} (only x86_64 and aarch64)", name, header.e_machine);
}

} // namespace elf_detail

namespace {

using elf_detail::check_header;
using elf_detail::check_ident;
using elf_detail::DynamicSections;
using elf_detail::ElfHandle;
using elf_detail::fail_libelf;
using elf_detail::fail_malformed;
using elf_detail::init_libelf;
using elf_detail::Section;
using elf_detail::StringTable;

// A .gnu.version entry: the low 15 bits index a version, the top bit marks
// foo@VER (hidden, not the default) as opposed to foo@@VER.
constexpr uint16_t k_versym_hidden = 0x8000;
constexpr uint16_t k_versym_index_mask = 0x7fff;

// Indices 0 (local) and 1 (global, the file's base version) name no version.
constexpr uint16_t k_first_real_version = 2;

// The smallest version record (Elf64_Verdaux) is 8 bytes, so a well-formed
// section cannot hold more records than this; more means a loop or overlap.
constexpr size_t k_min_version_record = 8;

// Version records hold 32-bit fields; libelf reads them in place, so an odd
// offset would be an unaligned access inside libelf.
constexpr size_t k_version_record_align = 4;

using VersionNames = std::map<uint16_t, std::string>;

// libelf may treat a section header table past the end of the image as
// absent, which would make a cut-off file look like one without dynamic
// information; insist that the table is whole. Returns the number of
// sections (0: the file has no section header table).
size_t
check_section_table(Elf* elf, size_t image_size, std::string_view name)
{
  GElf_Ehdr header;
  size_t count = 0;
  if (!gelf_getehdr(elf, &header) || elf_getshdrnum(elf, &count) != 0) {
    fail_libelf(name);
  }
  if (count == 0) {
    return 0;
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    fail_malformed(name, fmt::format("unexpected section header size {}", header.e_shentsize));
  }
  if (header.e_shoff > image_size || (image_size - header.e_shoff) / sizeof(Elf64_Shdr) < count) {
    fail_malformed(name, "section header table extends past the end of the file");
  }
  return count;
}

// Takes the first section of each interesting type; linkers emit one each.
DynamicSections
find_sections(Elf* elf, std::string_view name, std::vector<std::string>& section_names, std::string_view image,
              std::vector<FatbinEntry>& fatbin)
{
  DynamicSections sections;
  size_t shstrndx = 0;
  bool have_names = elf_getshdrstrndx(elf, &shstrndx) == 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) {
      fail_libelf(name);
    }
    // elf_strptr checks the offset against the string table; a bad one is just skipped.
    const char* section_name = have_names ? elf_strptr(elf, shstrndx, header.sh_name) : nullptr;
    if (section_name != nullptr) {
      section_names.emplace_back(section_name);
      // CUDA device code: which PTX ISA (so which CUDA) and GPUs it is for.
      if (section_names.back() == ".nv_fatbin" && header.sh_type == SHT_PROGBITS && header.sh_offset <= image.size()
          && header.sh_size <= image.size() - header.sh_offset) {
        fatbin = read_fatbin_entries(image.substr(header.sh_offset, header.sh_size));
      }
    }
    Section* slot = nullptr;
    switch (header.sh_type) {
      case SHT_DYNAMIC:
        slot = &sections.dynamic;
        break;
      case SHT_DYNSYM:
        slot = &sections.dynsym;
        break;
      case SHT_GNU_versym:
        slot = &sections.versym;
        break;
      case SHT_GNU_verdef:
        slot = &sections.verdef;
        break;
      case SHT_GNU_verneed:
        slot = &sections.verneed;
        break;
      default:
        continue;
    }
    if (slot->data) {
      continue;
    }
    // elf_getdata checks that the section lies inside the file.
    slot->data = elf_getdata(scn, nullptr);
    if (!slot->data) {
      fail_libelf(name);
    }
    slot->strings.section = header.sh_link;
    slot->records = header.sh_info;
  }
  return sections;
}

// How many whole entries of `type` the data holds; capped at INT_MAX because
// the gelf_get* accessors take an int index.
size_t
entry_count(Elf* elf, const Section& section, Elf_Type type, std::string_view name)
{
  size_t entry_size = gelf_fsize(elf, type, 1, EV_CURRENT);
  if (entry_size == 0) {
    fail_libelf(name);
  }
  size_t count = section.data->d_size / entry_size;
  if (count > INT_MAX) {
    fail_malformed(name, "section too large");
  }
  return count;
}

// elf_strptr returns null for a bad section index, a section that is not a
// string table, or an offset whose string is not terminated inside it; a
// table read through program headers gets the same checks here.
std::string
string_at(Elf* elf, const StringTable& strtab, size_t offset, std::string_view name)
{
  if (strtab.from_segments) {
    size_t end = offset < strtab.bytes.size() ? strtab.bytes.find('\0', offset) : std::string_view::npos;
    if (end == std::string_view::npos) {
      fail_malformed(name, fmt::format("bad string offset {} in DT_STRTAB", offset));
    }
    return std::string(strtab.bytes.substr(offset, end - offset));
  }
  const char* text = elf_strptr(elf, strtab.section, offset);
  if (!text) {
    fail_malformed(name, fmt::format("bad string offset {} in section {}", offset, strtab.section));
  }
  return text;
}

std::vector<std::string>
split_path_list(const std::string& value)
{
  std::vector<std::string> parts;
  if (value.empty()) {
    return parts;
  }
  size_t start = 0;
  while (true) {
    size_t end = value.find(':', start);
    parts.push_back(value.substr(start, end - start));
    if (end == std::string::npos) {
      return parts;
    }
    start = end + 1;
  }
}

void
read_dynamic(Elf* elf, const Section& dynamic, ElfInfo& info, std::string_view name)
{
  size_t count = entry_count(elf, dynamic, ELF_T_DYN, name);
  const StringTable& strtab = dynamic.strings;
  for (size_t i = 0; i < count; ++i) {
    GElf_Dyn entry;
    if (!gelf_getdyn(dynamic.data, static_cast<int>(i), &entry)) {
      fail_libelf(name);
    }
    switch (entry.d_tag) {
      case DT_NULL:
        return;
      case DT_NEEDED:
        info.needed.push_back(string_at(elf, strtab, entry.d_un.d_val, name));
        break;
      case DT_SONAME:
        info.soname = string_at(elf, strtab, entry.d_un.d_val, name);
        break;
      case DT_RPATH:
        info.rpath = split_path_list(string_at(elf, strtab, entry.d_un.d_val, name));
        break;
      case DT_RUNPATH:
        info.runpath = split_path_list(string_at(elf, strtab, entry.d_un.d_val, name));
        break;
      default:
        break;
    }
  }
}

// Walks the vd_next/vn_next/vda_next/vna_next chains of one version section.
// Every offset is checked against the section before libelf sees it, and a
// budget of records stops chains that loop back on themselves.
class VersionWalker
{
public:
  VersionWalker(const Section& section, std::string_view name)
    : m_data(section.data)
    , m_budget(section.data->d_size / k_min_version_record + 1)
    , m_name(name)
  {
  }

  // Converts a record offset into the int that gelf_get* wants.
  int offset(size_t value)
  {
    if (m_budget == 0) {
      fail_malformed(m_name, "version records loop or overlap");
    }
    --m_budget;
    if (value > m_data->d_size || value > INT_MAX) {
      fail_malformed(m_name, "version record outside its section");
    }
    if (value % k_version_record_align != 0) {
      fail_malformed(m_name, "misaligned version record");
    }
    return static_cast<int>(value);
  }

  Elf_Data* data() const { return m_data; }
  std::string_view name() const { return m_name; }

private:
  Elf_Data* m_data;
  size_t m_budget;
  std::string_view m_name;
};

// Only the first auxiliary entry names the definition; the others name parents.
// Returns vd_next, the distance to the next definition (0 at the end).
uint32_t
read_one_definition(Elf* elf, VersionWalker& walker, const StringTable& strtab, size_t offset, ElfInfo& info,
                    VersionNames& names)
{
  GElf_Verdef definition;
  if (!gelf_getverdef(walker.data(), walker.offset(offset), &definition)) {
    fail_libelf(walker.name());
  }
  if (definition.vd_cnt == 0) {
    return definition.vd_next;
  }
  GElf_Verdaux aux;
  if (!gelf_getverdaux(walker.data(), walker.offset(offset + definition.vd_aux), &aux)) {
    fail_libelf(walker.name());
  }
  std::string version = string_at(elf, strtab, aux.vda_name, walker.name());
  // The base entry is the file's own name (its soname), not a version.
  if (!(definition.vd_flags & VER_FLG_BASE)) {
    info.version_definitions.push_back(version);
  }
  names[definition.vd_ndx & k_versym_index_mask] = std::move(version);
  return definition.vd_next;
}

void
read_version_definitions(Elf* elf, const Section& verdef, ElfInfo& info, VersionNames& names, std::string_view name)
{
  VersionWalker walker(verdef, name);
  size_t offset = 0;
  for (size_t i = 0; i < verdef.records; ++i) {
    uint32_t next = read_one_definition(elf, walker, verdef.strings, offset, info, names);
    if (next == 0) {
      return;
    }
    offset += next;
  }
}

ElfVersionNeed
read_one_need(Elf* elf, VersionWalker& walker, const StringTable& strtab, size_t offset, const GElf_Verneed& need,
              VersionNames& names)
{
  ElfVersionNeed result;
  result.file = string_at(elf, strtab, need.vn_file, walker.name());
  size_t aux_offset = offset + need.vn_aux;
  for (size_t i = 0; i < need.vn_cnt; ++i) {
    GElf_Vernaux aux;
    if (!gelf_getvernaux(walker.data(), walker.offset(aux_offset), &aux)) {
      fail_libelf(walker.name());
    }
    std::string version = string_at(elf, strtab, aux.vna_name, walker.name());
    names[aux.vna_other & k_versym_index_mask] = version;
    result.versions.push_back(std::move(version));
    if (aux.vna_next == 0) {
      break;
    }
    aux_offset += aux.vna_next;
  }
  return result;
}

void
read_version_needs(Elf* elf, const Section& verneed, ElfInfo& info, VersionNames& names, std::string_view name)
{
  VersionWalker walker(verneed, name);
  size_t offset = 0;
  for (size_t i = 0; i < verneed.records; ++i) {
    GElf_Verneed need;
    if (!gelf_getverneed(verneed.data, walker.offset(offset), &need)) {
      fail_libelf(name);
    }
    info.version_needs.push_back(read_one_need(elf, walker, verneed.strings, offset, need, names));
    if (need.vn_next == 0) {
      return;
    }
    offset += need.vn_next;
  }
}

void
apply_version(const Section& versym, size_t index, const VersionNames& names, ElfSymbol& symbol, std::string_view name)
{
  GElf_Versym entry;
  if (!gelf_getversym(versym.data, static_cast<int>(index), &entry)) {
    fail_libelf(name);
  }
  symbol.version_hidden = (entry & k_versym_hidden) != 0;
  uint16_t version_index = entry & k_versym_index_mask;
  if (version_index < k_first_real_version) {
    return;
  }
  auto found = names.find(version_index);
  if (found == names.end()) {
    // The symbol's name is left out: it comes from the same suspect file.
    fail_malformed(name, fmt::format("symbol {} has undefined version index {}", index, version_index));
  }
  symbol.version = found->second;
}

// Reads entry `index` of .dynsym; nullopt for a definition when only
// undefined symbols are wanted (its name is then never looked at).
std::optional<ElfSymbol>
read_symbol(Elf* elf, const Section& dynsym, size_t index, SymbolScope scope, std::string_view name)
{
  GElf_Sym raw;
  if (!gelf_getsym(dynsym.data, static_cast<int>(index), &raw)) {
    fail_libelf(name);
  }
  ElfSymbol symbol;
  symbol.defined = raw.st_shndx != SHN_UNDEF;
  if (symbol.defined && scope == SymbolScope::undefined) {
    return std::nullopt;
  }
  symbol.name = string_at(elf, dynsym.strings, raw.st_name, name);
  unsigned char binding = GELF_ST_BIND(raw.st_info);
  symbol.weak = binding == STB_WEAK;
  // STB_GNU_UNIQUE is a global that the dynamic linker keeps process-wide unique.
  symbol.global = binding == STB_GLOBAL || binding == STB_GNU_UNIQUE;
  symbol.type = GELF_ST_TYPE(raw.st_info);
  return symbol;
}

void
read_symbols(Elf* elf, const DynamicSections& sections, const VersionNames& names, SymbolScope scope, ElfInfo& info,
             std::string_view name)
{
  size_t count = entry_count(elf, sections.dynsym, ELF_T_SYM, name);
  bool versioned = sections.versym.data != nullptr;
  // .gnu.version is indexed like .dynsym; a shorter one would be read past its end.
  if (versioned && entry_count(elf, sections.versym, ELF_T_HALF, name) < count) {
    fail_malformed(name, ".gnu.version has fewer entries than .dynsym");
  }
  // Index 0 is the reserved null symbol.
  for (size_t i = 1; i < count; ++i) {
    std::optional<ElfSymbol> symbol = read_symbol(elf, sections.dynsym, i, scope, name);
    if (!symbol) {
      continue;
    }
    if (versioned) {
      apply_version(sections.versym, i, names, *symbol, name);
    }
    info.dynamic_symbols.push_back(std::move(*symbol));
  }
}

// The loader reads a library through its program headers; opkit reads the
// section headers where there are any (they also name sections, such as
// CUDA's), and otherwise, as for a library stripped of them, what the
// program headers point to.
ElfInfo
read_info(Elf* elf, std::string_view image, SymbolScope scope, std::string_view name)
{
  ElfInfo info;
  info.machine = check_header(elf, name);
  elf_detail::Segments segments = elf_detail::check_loadable(elf, image.size(), name);
  DynamicSections sections = check_section_table(elf, image.size(), name) == 0
                               ? elf_detail::sections_from_segments(elf, image, segments, name)
                               : find_sections(elf, name, info.section_names, image, info.fatbin);
  // Every shared library has one; without it there is nothing to report, and
  // an empty answer would read as "needs nothing".
  if (!sections.dynamic.data) {
    fail_malformed(name, "no .dynamic section");
  }
  read_dynamic(elf, sections.dynamic, info, name);
  VersionNames names;
  if (sections.verdef.data) {
    read_version_definitions(elf, sections.verdef, info, names, name);
  }
  if (sections.verneed.data) {
    read_version_needs(elf, sections.verneed, info, names, name);
  }
  if (sections.dynsym.data) {
    read_symbols(elf, sections, names, scope, info, name);
  }
  return info;
}

// Works on a buffer the caller owns and keeps alive: elf_memory wants a
// mutable image and the handle points into it until elf_end.
ElfInfo
read_image(char* image, size_t size, SymbolScope scope, std::string_view name)
{
  check_ident(std::string_view(image, size), name);
  init_libelf();
  ElfHandle handle(elf_memory(image, size));
  if (!handle.get()) {
    fail_libelf(name);
  }
  if (elf_kind(handle.get()) != ELF_K_ELF) {
    fail(ExitCode::usage, "{}: not an ELF file", name);
  }
  return read_info(handle.get(), std::string_view(image, size), scope, name);
}

} // namespace

ElfInfo
read_elf(const std::filesystem::path& path, SymbolScope scope)
{
  // Map the file rather than read it: a framework library is tens of MB and
  // only its dynamic sections are touched. A private copy gives elf_memory the
  // mutable image it wants without ever writing to the file.
  fs::MappedFile image(path, fs::MappedFile::Mode::private_copy);
  return read_image(image.data(), image.size(), scope, path.string());
}

ElfInfo
read_elf_bytes(std::string_view bytes, std::string_view name, SymbolScope scope)
{
  std::string copy(bytes);
  return read_image(copy.data(), copy.size(), scope, name);
}

std::string
loader_passes_over_bytes(std::string_view head, const std::string& machine)
{
  // e_ident (16 bytes), then e_type and e_machine: the same offsets in 32- and 64-bit headers.
  if (head.size() < EI_NIDENT + 4 || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0) {
    return ""; // not ELF, or too short: glibc takes it and fails ("invalid ELF header", "file too short")
  }
  if (static_cast<unsigned char>(head[EI_CLASS]) != ELFCLASS64) {
    return fmt::format("a {} library (ELFCLASS{})", head[EI_CLASS] == ELFCLASS32 ? "32-bit" : "non-64-bit",
                       head[EI_CLASS] == ELFCLASS32 ? 32 : static_cast<int>(head[EI_CLASS]));
  }
  if (static_cast<unsigned char>(head[EI_DATA]) != ELFDATA2LSB) {
    return ""; // the right class in another encoding: glibc stops the load there ("data encoding")
  }
  unsigned em =
    static_cast<unsigned char>(head[18]) | (static_cast<unsigned>(static_cast<unsigned char>(head[19])) << 8);
  std::string name = em == EM_X86_64 ? "x86_64" : em == EM_AARCH64 ? "aarch64" : "";
  if (name == machine) {
    return "";
  }
  return name.empty() ? fmt::format("a library for ELF machine {}", em) : fmt::format("an {} library", name);
}

std::string
loader_passes_over(const std::filesystem::path& path, const std::string& machine)
{
  std::ifstream in(path, std::ios::binary);
  char head[EI_NIDENT + 4] = {};
  in.read(head, sizeof head);
  return loader_passes_over_bytes(std::string_view(head, static_cast<size_t>(in.gcount())), machine);
}

} // namespace opkit::elf
