#include "opkit/elf/elf_code.hpp"

#include "opkit/elf/elf_segments.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <climits>
#include <optional>

#include <gelf.h>
#include <libelf.h>

namespace opkit::elf {

namespace {

using elf_detail::ElfHandle;
using elf_detail::fail_libelf;
using elf_detail::fail_malformed;
using elf_detail::little_endian_at;
using elf_detail::Segments;
using elf_detail::StringTable;

constexpr uint64_t k_word = 8;                 // an init_array / .ctors / GOT entry
constexpr uint64_t k_rela_size = 24;           // Elf64_Rela
constexpr uint64_t k_dyn_size = 16;            // Elf64_Dyn
constexpr uint64_t k_ctors_end = ~uint64_t{0}; // .ctors' -1 sentinel

// Addresses mapped to file bytes through the PT_LOAD segments, as the loader maps them.
class Image
{
public:
  Image(std::string_view bytes, const Segments& segments)
    : m_bytes(bytes)
    , m_segments(segments)
  {
  }

  // The `size` file bytes at `address`, or nullopt when they are not all inside one segment's file bytes.
  std::optional<std::string_view> at(uint64_t address, uint64_t size) const
  {
    for (const GElf_Phdr& load : m_segments.loads) {
      if (address < load.p_vaddr || address - load.p_vaddr >= load.p_filesz) {
        continue;
      }
      uint64_t delta = address - load.p_vaddr;
      if (size > load.p_filesz - delta || load.p_offset + delta > m_bytes.size()
          || size > m_bytes.size() - (load.p_offset + delta)) {
        return std::nullopt;
      }
      return m_bytes.substr(load.p_offset + delta, size);
    }
    return std::nullopt;
  }

  std::string_view bytes() const { return m_bytes; }

private:
  std::string_view m_bytes;
  const Segments& m_segments;
};

// The first value of each tag in PT_DYNAMIC, up to DT_NULL.
std::map<int64_t, uint64_t>
dynamic_values(const Image& image, const Segments& segments, std::string_view name)
{
  const GElf_Phdr& dynamic = segments.dynamic;
  if (dynamic.p_offset > image.bytes().size() || dynamic.p_filesz > image.bytes().size() - dynamic.p_offset) {
    fail_malformed(name, "PT_DYNAMIC extends past the end of the file");
  }
  std::string_view entries = image.bytes().substr(dynamic.p_offset, dynamic.p_filesz);
  std::map<int64_t, uint64_t> values;
  for (uint64_t at = 0; at + k_dyn_size <= entries.size(); at += k_dyn_size) {
    auto tag = static_cast<int64_t>(little_endian_at<uint64_t>(entries, at));
    if (tag == DT_NULL) {
      break;
    }
    values.emplace(tag, little_endian_at<uint64_t>(entries, at + k_word));
  }
  return values;
}

uint64_t
value_or(const std::map<int64_t, uint64_t>& values, int64_t tag, uint64_t fallback)
{
  auto found = values.find(tag);
  return found == values.end() ? fallback : found->second;
}

// An address range whose words the loader may relocate: DT_INIT_ARRAY, .ctors.
struct WordRange
{
  uint64_t address = 0;
  uint64_t size = 0;
  bool contains(uint64_t slot) const { return slot >= address && slot - address < size; }
};

// The string at `offset` of a symbol table's string table, or nullopt when it
// is not terminated inside it.
std::optional<std::string>
string_at(Elf* elf, const StringTable& strings, size_t offset)
{
  if (strings.from_segments) {
    size_t end = offset < strings.bytes.size() ? strings.bytes.find('\0', offset) : std::string_view::npos;
    if (end == std::string_view::npos) {
      return std::nullopt;
    }
    return std::string(strings.bytes.substr(offset, end - offset));
  }
  const char* text = elf_strptr(elf, strings.section, offset);
  return text ? std::optional<std::string>(text) : std::nullopt;
}

// What the reader collects from the sections (or, without them, the segments).
struct Tables
{
  Elf_Data* symtab = nullptr;
  StringTable symtab_strings;
  Elf_Data* dynsym = nullptr;
  StringTable dynsym_strings;
  WordRange ctors;
};

// A symbol table: its functions (when `functions` is set) and names; for
// .dynsym also each entry's defined-function address (0 for anything else),
// which the GOT relocations index.
class SymbolReader
{
public:
  SymbolReader(Elf* elf, const ElfCodeLimits& limits, std::string_view name, ElfCode& code)
    : m_elf(elf)
    , m_limits(limits)
    , m_name(name)
    , m_code(code)
  {
  }

  std::vector<uint64_t> read(Elf_Data* data, const StringTable& strings, bool functions)
  {
    size_t entry_size = gelf_fsize(m_elf, ELF_T_SYM, 1, EV_CURRENT);
    if (entry_size == 0) {
      fail_libelf(m_name);
    }
    size_t count = std::min({data->d_size / entry_size, m_limits.max_symbols, size_t{INT_MAX}});
    std::vector<uint64_t> function_at(count, 0);
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol)) {
        fail_libelf(m_name);
      }
      std::optional<std::string> text = string_at(m_elf, strings, symbol.st_name);
      if (!text || text->empty()) {
        continue;
      }
      m_code.symbol_names.insert(*text);
      unsigned char type = GELF_ST_TYPE(symbol.st_info);
      bool defined = symbol.st_shndx != SHN_UNDEF && symbol.st_value != 0;
      if (defined && type == STT_OBJECT && (*text == k_cpu_model_data[0] || *text == k_cpu_model_data[1])) {
        m_code.cpu_model_data[symbol.st_value] = std::max<uint64_t>(symbol.st_size, 1);
      }
      if (!defined || (type != STT_FUNC && type != STT_GNU_IFUNC)) {
        continue;
      }
      function_at[i] = symbol.st_value;
      if (functions) {
        bool global = GELF_ST_BIND(symbol.st_info) != STB_LOCAL;
        m_functions.push_back({{std::move(*text), symbol.st_value, symbol.st_size, type == STT_GNU_IFUNC}, global});
      }
    }
    return function_at;
  }

  // One function per address, a global name before a local one.
  std::vector<CodeFunction> functions()
  {
    std::stable_sort(m_functions.begin(), m_functions.end(), [](const Candidate& a, const Candidate& b) {
      return a.function.address != b.function.address ? a.function.address < b.function.address : a.global > b.global;
    });
    std::vector<CodeFunction> unique;
    for (Candidate& candidate : m_functions) {
      if (unique.empty() || unique.back().address != candidate.function.address) {
        unique.push_back(std::move(candidate.function));
      } else {
        unique.back().size = std::max(unique.back().size, candidate.function.size);
        unique.back().ifunc = unique.back().ifunc || candidate.function.ifunc;
      }
    }
    return unique;
  }

private:
  struct Candidate
  {
    CodeFunction function;
    bool global = false;
  };
  Elf* m_elf;
  const ElfCodeLimits& m_limits;
  std::string_view m_name;
  ElfCode& m_code;
  std::vector<Candidate> m_functions;
};

void
add_region(ElfCode& code, uint64_t& budget, std::string name, uint64_t address, std::string_view bytes)
{
  if (bytes.empty() || budget == 0) {
    return;
  }
  bytes = bytes.substr(0, std::min<uint64_t>(bytes.size(), budget));
  budget -= bytes.size();
  code.regions.push_back({std::move(name), address, std::string(bytes)});
}

Tables
read_sections(Elf* elf, std::string_view image, const ElfCodeLimits& limits, std::string_view name, ElfCode& code)
{
  Tables tables;
  size_t shstrndx = 0;
  bool have_names = elf_getshdrstrndx(elf, &shstrndx) == 0;
  uint64_t budget = limits.max_code_bytes;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) {
      fail_libelf(name);
    }
    const char* section_name = have_names ? elf_strptr(elf, shstrndx, header.sh_name) : nullptr;
    std::string text = section_name ? section_name : "";
    if (header.sh_type == SHT_PROGBITS && (header.sh_flags & SHF_EXECINSTR) != 0 && header.sh_size > 0) {
      if (header.sh_offset > image.size() || header.sh_size > image.size() - header.sh_offset) {
        fail_malformed(name, fmt::format("section {} extends past the end of the file", text));
      }
      add_region(code, budget, text, header.sh_addr, image.substr(header.sh_offset, header.sh_size));
    } else if ((header.sh_type == SHT_SYMTAB && !tables.symtab) || (header.sh_type == SHT_DYNSYM && !tables.dynsym)) {
      // elf_getdata checks that the section lies inside the file.
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) {
        fail_libelf(name);
      }
      bool symtab = header.sh_type == SHT_SYMTAB;
      (symtab ? tables.symtab : tables.dynsym) = data;
      (symtab ? tables.symtab_strings : tables.dynsym_strings).section = header.sh_link;
    } else if (text == ".ctors") {
      tables.ctors = {header.sh_addr, header.sh_size};
    }
  }
  return tables;
}

Tables
read_segments(Elf* elf, std::string_view image, const Segments& segments, const ElfCodeLimits& limits,
              std::string_view name, ElfCode& code)
{
  uint64_t budget = limits.max_code_bytes;
  for (size_t i = 0; i < segments.loads.size(); ++i) {
    const GElf_Phdr& load = segments.loads[i];
    if ((load.p_flags & PF_X) != 0) {
      // check_loadable checked that every PT_LOAD's file bytes lie inside the file.
      add_region(code, budget, fmt::format("PT_LOAD[{}]", i), load.p_vaddr, image.substr(load.p_offset, load.p_filesz));
    }
  }
  elf_detail::DynamicSections sections = elf_detail::sections_from_segments(elf, image, segments, name);
  Tables tables;
  tables.dynsym = sections.dynsym.data;
  tables.dynsym_strings = sections.dynsym.strings;
  return tables;
}

struct Relocations
{
  std::map<uint64_t, uint64_t> init_slots; // slot inside an init range -> the value the loader writes
  std::vector<uint64_t> irelative;         // R_X86_64_IRELATIVE addends: resolvers run at load time
};

void
read_relocation_table(const Image& image, uint64_t address, uint64_t size, const std::vector<uint64_t>& dyn_functions,
                      const std::vector<WordRange>& init_ranges, size_t& budget, Relocations& relocations,
                      ElfCode& code)
{
  if (address == 0 || size == 0) {
    return;
  }
  std::optional<std::string_view> table = image.at(address, size - size % k_rela_size);
  if (!table) {
    return; // a table outside the file bytes: the loader would crash; nothing to learn here
  }
  for (uint64_t at = 0; at + k_rela_size <= table->size() && budget > 0; at += k_rela_size, --budget) {
    uint64_t offset = little_endian_at<uint64_t>(*table, at);
    uint64_t info = little_endian_at<uint64_t>(*table, at + k_word);
    uint64_t addend = little_endian_at<uint64_t>(*table, at + 2 * k_word);
    uint64_t type = ELF64_R_TYPE(info);
    uint64_t symbol = ELF64_R_SYM(info);
    uint64_t function = symbol < dyn_functions.size() ? dyn_functions[symbol] : 0;
    if (type == R_X86_64_IRELATIVE) {
      relocations.irelative.push_back(addend);
    } else if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && function != 0) {
      code.own_got_functions[offset] = function;
    }
    bool in_init = std::any_of(init_ranges.begin(), init_ranges.end(),
                               [offset](const WordRange& range) { return range.contains(offset); });
    if (in_init && type == R_X86_64_RELATIVE) {
      relocations.init_slots[offset] = addend;
    } else if (in_init && type == R_X86_64_64 && function != 0) {
      relocations.init_slots[offset] = function + addend;
    }
  }
}

void
add_init(ElfCode& code, uint64_t address)
{
  if (address != 0 && address != k_ctors_end
      && std::find(code.init_functions.begin(), code.init_functions.end(), address) == code.init_functions.end()) {
    code.init_functions.push_back(address);
  }
}

void
read_init_words(const Image& image, const WordRange& range, const Relocations& relocations, size_t& budget,
                ElfCode& code)
{
  for (uint64_t slot = range.address; slot - range.address + k_word <= range.size && budget > 0;
       slot += k_word, --budget) {
    auto relocated = relocations.init_slots.find(slot);
    if (relocated != relocations.init_slots.end()) {
      add_init(code, relocated->second);
    } else if (std::optional<std::string_view> word = image.at(slot, k_word)) {
      add_init(code, little_endian_at<uint64_t>(*word, 0));
    }
  }
}

// libelf may treat a section header table past the end of the image as
// absent; a cut-off table is refused, as elf_file does.
bool
has_section_table(Elf* elf, size_t image_size, std::string_view name)
{
  GElf_Ehdr header;
  size_t count = 0;
  if (!gelf_getehdr(elf, &header) || elf_getshdrnum(elf, &count) != 0) {
    fail_libelf(name);
  }
  if (count == 0) {
    return false;
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shoff > image_size
      || (image_size - header.e_shoff) / sizeof(Elf64_Shdr) < count) {
    fail_malformed(name, "section header table extends past the end of the file");
  }
  return true;
}

ElfCode
read_code(Elf* elf, std::string_view bytes, const ElfCodeLimits& limits, std::string_view name)
{
  if (elf_detail::check_header(elf, name) != "x86_64") {
    fail(ExitCode::usage, "{}: not x86-64 code (only x86-64 instructions are scanned)", name);
  }
  Segments segments = elf_detail::check_loadable(elf, bytes.size(), name);
  ElfCode code;
  Tables tables = has_section_table(elf, bytes.size(), name) ? read_sections(elf, bytes, limits, name, code)
                                                             : read_segments(elf, bytes, segments, limits, name, code);
  SymbolReader symbols(elf, limits, name, code);
  code.from_symtab = tables.symtab != nullptr;
  if (tables.symtab) {
    symbols.read(tables.symtab, tables.symtab_strings, true);
  }
  std::vector<uint64_t> dyn_functions;
  if (tables.dynsym) {
    dyn_functions = symbols.read(tables.dynsym, tables.dynsym_strings, !tables.symtab);
  }
  code.functions = symbols.functions();

  Image image(bytes, segments);
  std::map<int64_t, uint64_t> dynamic = dynamic_values(image, segments, name);
  WordRange init_array{value_or(dynamic, DT_INIT_ARRAY, 0), value_or(dynamic, DT_INIT_ARRAYSZ, 0)};
  std::vector<WordRange> init_ranges{init_array, tables.ctors};
  Relocations relocations;
  size_t budget = limits.max_relocations;
  read_relocation_table(image, value_or(dynamic, DT_RELA, 0), value_or(dynamic, DT_RELASZ, 0), dyn_functions,
                        init_ranges, budget, relocations, code);
  if (value_or(dynamic, DT_PLTREL, DT_RELA) == DT_RELA) {
    read_relocation_table(image, value_or(dynamic, DT_JMPREL, 0), value_or(dynamic, DT_PLTRELSZ, 0), dyn_functions,
                          init_ranges, budget, relocations, code);
  }
  add_init(code, value_or(dynamic, DT_INIT, 0));
  size_t entries = limits.max_init_entries;
  read_init_words(image, init_array, relocations, entries, code);
  read_init_words(image, tables.ctors, relocations, entries, code);
  for (uint64_t resolver : relocations.irelative) {
    add_init(code, resolver);
  }
  return code;
}

ElfCode
read_code_image(char* image, size_t size, const ElfCodeLimits& limits, std::string_view name)
{
  elf_detail::check_ident(std::string_view(image, size), name);
  elf_detail::init_libelf();
  ElfHandle handle(elf_memory(image, size));
  if (!handle.get()) {
    fail_libelf(name);
  }
  if (elf_kind(handle.get()) != ELF_K_ELF) {
    fail(ExitCode::usage, "{}: not an ELF file", name);
  }
  return read_code(handle.get(), std::string_view(image, size), limits, name);
}

} // namespace

ElfCode
read_elf_code(const std::filesystem::path& path, const ElfCodeLimits& limits)
{
  fs::MappedFile image(path, fs::MappedFile::Mode::private_copy);
  return read_code_image(image.data(), image.size(), limits, path.string());
}

ElfCode
read_elf_code_bytes(std::string_view bytes, std::string_view name, const ElfCodeLimits& limits)
{
  std::string copy(bytes);
  return read_code_image(copy.data(), copy.size(), limits, name);
}

} // namespace opkit::elf
