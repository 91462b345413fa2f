#include "opkit/elf/elf_segments.hpp"

#include "opkit/util/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>

namespace opkit::elf::elf_detail {

namespace {

// The smallest page size of the supported machines: glibc checks alignments
// against the running system's page size, which is at least this.
constexpr uint64_t k_page_size = 4096;

// DT_GNU_HASH's fixed header: nbuckets, symoffset, bloom_size, bloom_shift.
constexpr uint64_t k_gnu_hash_header = 16;
constexpr uint64_t k_gnu_hash_bloom_word = 8; // ELFCLASS64
constexpr uint64_t k_hash_word = 4;

[[noreturn]] void
fail_not_loadable(std::string_view name, std::string_view cause)
{
  fail(ExitCode::usage, "{}: not loadable (the dynamic loader refuses it): {}", name, cause);
}

// Where a virtual address lies in the file: its offset, and how many of its
// segment's file bytes follow it.
struct Place
{
  uint64_t offset = 0;
  uint64_t available = 0;
};

// Maps the addresses in the dynamic section to file bytes the way the
// loader's mapping makes them readable: through the PT_LOAD segments.
class LoadedImage
{
public:
  LoadedImage(Elf* elf, std::string_view image, const Segments& segments, std::string_view name)
    : m_elf(elf)
    , m_image(image)
    , m_segments(segments)
    , m_name(name)
  {
  }

  Place place(uint64_t address, std::string_view what) const
  {
    for (const GElf_Phdr& load : m_segments.loads) {
      if (address >= load.p_vaddr && address - load.p_vaddr < load.p_filesz) {
        uint64_t delta = address - load.p_vaddr;
        return {load.p_offset + delta, load.p_filesz - delta};
      }
    }
    fail_malformed(m_name, fmt::format("{} at {:#x} lies outside the loaded segments", what, address));
  }

  // `size` bytes at `address` as libelf data of `type` (owned by the Elf handle).
  Elf_Data* chunk(uint64_t address, uint64_t size, Elf_Type type, std::string_view what) const
  {
    Place at = place(address, what);
    if (size > at.available || at.offset > INT64_MAX) {
      fail_malformed(m_name, fmt::format("{} extends past its segment", what));
    }
    Elf_Data* data = elf_getdata_rawchunk(m_elf, static_cast<int64_t>(at.offset), size, type);
    if (data == nullptr) {
      fail_libelf(m_name);
    }
    return data;
  }

  std::string_view image() const { return m_image; }
  std::string_view name() const { return m_name; }

private:
  Elf* m_elf;
  std::string_view m_image;
  const Segments& m_segments;
  std::string_view m_name;
};

// The number of .dynsym entries, as DT_GNU_HASH implies it: one past the
// highest symbol index reachable from a bucket (the end of its chain has bit 0 set).
uint64_t
count_from_gnu_hash(const LoadedImage& image, uint64_t address)
{
  Place at = image.place(address, "DT_GNU_HASH");
  if (at.available < k_gnu_hash_header) {
    fail_malformed(image.name(), "DT_GNU_HASH extends past its segment");
  }
  uint64_t buckets = little_endian_at<uint32_t>(image.image(), at.offset);
  uint64_t symbol_offset = little_endian_at<uint32_t>(image.image(), at.offset + 4);
  uint64_t bloom_words = little_endian_at<uint32_t>(image.image(), at.offset + 8);
  uint64_t bucket_start = k_gnu_hash_header + bloom_words * k_gnu_hash_bloom_word;
  uint64_t chain_start = bucket_start + buckets * k_hash_word;
  if (chain_start > at.available) {
    fail_malformed(image.name(), "DT_GNU_HASH extends past its segment");
  }
  uint64_t highest = 0;
  for (uint64_t i = 0; i < buckets; ++i) {
    highest = std::max<uint64_t>(highest,
                                 little_endian_at<uint32_t>(image.image(), at.offset + bucket_start + i * k_hash_word));
  }
  if (highest == 0) {
    return symbol_offset; // no hashed symbols: only the ones before symoffset
  }
  if (highest < symbol_offset) {
    fail_malformed(image.name(), "DT_GNU_HASH bucket below its symbol offset");
  }
  // Each step reads inside the segment, so the walk ends within its size.
  for (uint64_t index = highest;; ++index) {
    uint64_t entry = chain_start + (index - symbol_offset) * k_hash_word;
    if (entry > at.available - k_hash_word) {
      fail_malformed(image.name(), "DT_GNU_HASH chain runs past its segment");
    }
    if (little_endian_at<uint32_t>(image.image(), at.offset + entry) & 1U) {
      return index + 1;
    }
  }
}

// DT_HASH's nchain is the number of symbols.
uint64_t
count_from_hash(const LoadedImage& image, uint64_t address)
{
  Place at = image.place(address, "DT_HASH");
  if (at.available < 2 * k_hash_word) {
    fail_malformed(image.name(), "DT_HASH extends past its segment");
  }
  return little_endian_at<uint32_t>(image.image(), at.offset + k_hash_word);
}

// The dynamic entries opkit follows; a later entry of a tag replaces an
// earlier one, as glibc's elf_get_dynamic_info does.
std::map<int64_t, uint64_t>
dynamic_values(Elf_Data* dynamic, std::string_view name)
{
  std::map<int64_t, uint64_t> values;
  size_t count = dynamic->d_size / sizeof(Elf64_Dyn);
  for (size_t i = 0; i < count && i <= INT_MAX; ++i) {
    GElf_Dyn entry;
    if (!gelf_getdyn(dynamic, static_cast<int>(i), &entry)) {
      fail_libelf(name);
    }
    if (entry.d_tag == DT_NULL) {
      break;
    }
    values[entry.d_tag] = entry.d_un.d_val;
  }
  return values;
}

uint64_t
value_or(const std::map<int64_t, uint64_t>& values, int64_t tag, uint64_t fallback)
{
  auto found = values.find(tag);
  return found == values.end() ? fallback : found->second;
}

// A version section's records form a chain of offsets; its data reaches to
// the end of its segment, and the walk checks every offset against that.
Section
version_section(const LoadedImage& image, uint64_t address, Elf_Type type, uint64_t records, const StringTable& strings,
                std::string_view what)
{
  Place at = image.place(address, what);
  return {image.chunk(address, at.available, type, what), strings, records};
}

} // namespace

void
fail_malformed(std::string_view name, std::string_view cause)
{
  fail(ExitCode::usage, "{}: truncated or malformed ELF: {}", name, cause);
}

void
fail_libelf(std::string_view name)
{
  fail_malformed(name, elf_errmsg(-1));
}

Segments
check_loadable(Elf* elf, size_t image_size, std::string_view name)
{
  GElf_Ehdr header;
  if (!gelf_getehdr(elf, &header)) {
    fail_libelf(name);
  }
  // open_verify's checks of the identification and header.
  if (header.e_ident[EI_VERSION] != EV_CURRENT || header.e_version != EV_CURRENT) {
    fail_not_loadable(name, "ELF version is not the current one");
  }
  unsigned char abi = header.e_ident[EI_OSABI];
  if (abi != ELFOSABI_SYSV && abi != ELFOSABI_GNU) {
    fail_not_loadable(name, fmt::format("OS ABI {} (the loader takes System V or GNU)", abi));
  }
  if (abi == ELFOSABI_SYSV && header.e_ident[EI_ABIVERSION] != 0) {
    fail_not_loadable(name, fmt::format("ABI version {}", header.e_ident[EI_ABIVERSION]));
  }
  for (size_t i = EI_PAD; i < EI_NIDENT; ++i) {
    if (header.e_ident[i] != 0) {
      fail_not_loadable(name, "nonzero padding in the ELF identification");
    }
  }
  if (header.e_phentsize != sizeof(Elf64_Phdr)) {
    fail_not_loadable(
      name, fmt::format("program header size {} (the loader wants {})", header.e_phentsize, sizeof(Elf64_Phdr)));
  }
  if (header.e_phnum == PN_XNUM) {
    fail_not_loadable(name, "e_phnum is PN_XNUM (65535): the loader reads that many program headers and never "
                            "looks for the real count in section 0");
  }
  uint64_t table = uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (header.e_phoff > image_size || image_size - header.e_phoff < table) {
    fail_malformed(name, "program header table extends past the end of the file");
  }
  Segments segments;
  bool have_dynamic = false;
  for (size_t i = 0; i < header.e_phnum; ++i) {
    GElf_Phdr segment;
    if (!gelf_getphdr(elf, static_cast<int>(i), &segment)) {
      fail_libelf(name);
    }
    if (segment.p_type == PT_LOAD) {
      if (((segment.p_vaddr - segment.p_offset) & (k_page_size - 1)) != 0) {
        fail_not_loadable(name, fmt::format("segment {}: address and file offset are not page-aligned", i));
      }
      if (segment.p_offset > image_size || image_size - segment.p_offset < segment.p_filesz) {
        fail_malformed(name, fmt::format("segment {} extends past the end of the file", i));
      }
      segments.loads.push_back(segment);
    } else if (segment.p_type == PT_DYNAMIC) {
      if (segment.p_filesz == 0) {
        fail_not_loadable(name, "an empty dynamic segment (PT_DYNAMIC)");
      }
      segments.dynamic = segment; // the last one wins, as in the loader
      have_dynamic = true;
    }
  }
  if (segments.loads.empty()) {
    fail_not_loadable(name, "no loadable segment (PT_LOAD)");
  }
  if (!have_dynamic) {
    fail_not_loadable(name, "no dynamic segment (PT_DYNAMIC)");
  }
  return segments;
}

DynamicSections
sections_from_segments(Elf* elf, std::string_view image_bytes, const Segments& segments, std::string_view name)
{
  LoadedImage image(elf, image_bytes, segments, name);
  DynamicSections sections;
  uint64_t dynamic_size = segments.dynamic.p_filesz / sizeof(Elf64_Dyn) * sizeof(Elf64_Dyn);
  if (dynamic_size == 0) {
    fail_malformed(name, "PT_DYNAMIC holds no entry");
  }
  Elf_Data* dynamic = image.chunk(segments.dynamic.p_vaddr, dynamic_size, ELF_T_DYN, "PT_DYNAMIC");
  std::map<int64_t, uint64_t> values = dynamic_values(dynamic, name);

  uint64_t strtab = value_or(values, DT_STRTAB, 0);
  uint64_t strsz = value_or(values, DT_STRSZ, 0);
  if (strtab == 0) {
    fail_malformed(name, "no DT_STRTAB");
  }
  Place strings_at = image.place(strtab, "DT_STRTAB");
  if (strsz > strings_at.available) {
    fail_malformed(name, "DT_STRTAB extends past its segment");
  }
  StringTable strings;
  strings.bytes = image_bytes.substr(strings_at.offset, strsz);
  strings.from_segments = true;
  sections.dynamic = {dynamic, strings, 0};

  uint64_t symtab = value_or(values, DT_SYMTAB, 0);
  if (symtab == 0) {
    return sections;
  }
  if (value_or(values, DT_SYMENT, sizeof(Elf64_Sym)) != sizeof(Elf64_Sym)) {
    fail_malformed(name, fmt::format("DT_SYMENT {} (expected {})", values[DT_SYMENT], sizeof(Elf64_Sym)));
  }
  uint64_t count = 0;
  if (values.count(DT_GNU_HASH) != 0) {
    count = count_from_gnu_hash(image, values[DT_GNU_HASH]);
  } else if (values.count(DT_HASH) != 0) {
    count = count_from_hash(image, values[DT_HASH]);
  } else {
    fail_malformed(name, "neither DT_GNU_HASH nor DT_HASH: the number of dynamic symbols is unknown");
  }
  // Checked against the segment before the multiplication can overflow.
  if (count > INT_MAX || count > image.place(symtab, "DT_SYMTAB").available / sizeof(Elf64_Sym)) {
    fail_malformed(name, "DT_SYMTAB extends past its segment");
  }
  if (count > 0) {
    sections.dynsym = {image.chunk(symtab, count * sizeof(Elf64_Sym), ELF_T_SYM, "DT_SYMTAB"), strings, 0};
    if (uint64_t versym = value_or(values, DT_VERSYM, 0); versym != 0) {
      sections.versym = {image.chunk(versym, count * sizeof(Elf64_Half), ELF_T_HALF, "DT_VERSYM"), strings, 0};
    }
  }
  if (uint64_t verneed = value_or(values, DT_VERNEED, 0); verneed != 0) {
    sections.verneed =
      version_section(image, verneed, ELF_T_VNEED, value_or(values, DT_VERNEEDNUM, 0), strings, "DT_VERNEED");
  }
  if (uint64_t verdef = value_or(values, DT_VERDEF, 0); verdef != 0) {
    sections.verdef =
      version_section(image, verdef, ELF_T_VDEF, value_or(values, DT_VERDEFNUM, 0), strings, "DT_VERDEF");
  }
  return sections;
}

} // namespace opkit::elf::elf_detail
