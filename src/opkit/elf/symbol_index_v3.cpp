#include "opkit/elf/symbol_index.hpp"

#include "opkit/elf/index_bytes.hpp"

namespace opkit::elf {

// Format 3, as opkit 0.1.0 wrote it until format 4 (symbol_index.cpp): the
// same 64-byte header, buckets, versions, definitions and strings, with
// entries of 16 bytes (entry check, name offset, name length, version word)
// whose check is H(name) with FNV-1a continued over the version word. Read
// here once, to remake an index kept without its library (an SDK's process
// libraries) in the current format; every entry is checked.

namespace {

constexpr size_t k_v3_header = 64;
constexpr size_t k_v3_entry = 16;
constexpr uint32_t k_v3_max_count = 1U << 28;

uint32_t
v3_load32(std::string_view bytes, size_t at)
{
  return index_bytes::load32(bytes.data() + at);
}

} // namespace

std::optional<LibraryExports>
read_format_3_index(std::string_view bytes, SourceStamp& source)
{
  if (bytes.size() < k_v3_header || bytes.substr(0, 8) != "OPKITSYM" || v3_load32(bytes, 8) != 3
      || v3_load32(bytes, 60) != index_bytes::fnv1a(bytes.substr(0, 60))) {
    return std::nullopt;
  }
  uint32_t buckets = v3_load32(bytes, 12);
  uint32_t symbols = v3_load32(bytes, 32);
  uint32_t versions = v3_load32(bytes, 36);
  uint32_t definitions = v3_load32(bytes, 40);
  uint32_t strings = v3_load32(bytes, 44);
  if (buckets > k_v3_max_count || symbols > k_v3_max_count || versions == 0 || versions > k_v3_max_count
      || definitions > k_v3_max_count) {
    return std::nullopt;
  }
  uint64_t entries = k_v3_header + (uint64_t{buckets} + 1) * 4;
  uint64_t version_table = entries + uint64_t{symbols} * k_v3_entry;
  uint64_t definition_table = version_table + uint64_t{versions} * 8;
  uint64_t string_table = definition_table + uint64_t{definitions} * 4;
  if (string_table + strings != bytes.size()) {
    return std::nullopt;
  }
  std::string_view text = bytes.substr(string_table, strings);
  auto string_at = [&](uint64_t at) -> std::optional<std::string_view> {
    uint32_t offset = v3_load32(bytes, at);
    uint32_t length = v3_load32(bytes, at + 4);
    if (uint64_t{offset} + length > text.size()) {
      return std::nullopt;
    }
    return text.substr(offset, length);
  };
  LibraryExports library;
  std::vector<std::string_view> names;
  for (uint32_t v = 0; v < versions; ++v) {
    std::optional<std::string_view> name = string_at(version_table + uint64_t{v} * 8);
    if (!name) {
      return std::nullopt;
    }
    names.push_back(*name);
  }
  for (uint32_t d = 0; d < definitions; ++d) {
    uint32_t number = v3_load32(bytes, definition_table + uint64_t{d} * 4);
    if (number >= versions) {
      return std::nullopt;
    }
    library.versions.emplace_back(names[number]);
  }
  std::optional<std::string_view> soname = string_at(48);
  if (!soname) {
    return std::nullopt;
  }
  library.soname = std::string(*soname);
  uint32_t tables_check = index_bytes::fnv1a(bytes.substr(version_table, string_table - version_table));
  for (std::string_view name : names) {
    tables_check = index_bytes::fnv1a(name, tables_check);
  }
  if (index_bytes::fnv1a(library.soname, tables_check) != v3_load32(bytes, 56)) {
    return std::nullopt;
  }
  std::vector<ExportedSymbol> exports;
  for (uint32_t e = 0; e < symbols; ++e) {
    uint64_t at = entries + uint64_t{e} * k_v3_entry;
    std::optional<std::string_view> name = string_at(at + 4);
    uint32_t word = v3_load32(bytes, at + 12);
    if (!name || (word & 0x7fffffffU) >= versions) {
      return std::nullopt;
    }
    uint32_t check = index_bytes::name_hash(*name);
    for (int shift = 0; shift < 32; shift += 8) {
      check = (check ^ ((word >> shift) & 0xff)) * 16777619U;
    }
    if (check != v3_load32(bytes, at)) {
      return std::nullopt;
    }
    exports.push_back({std::string(*name), std::string(names[word & 0x7fffffffU]), (word & 0x80000000U) != 0});
  }
  library.symbols = ExportedSymbols(std::move(exports));
  source = {uint64_t{v3_load32(bytes, 16)} | uint64_t{v3_load32(bytes, 20)} << 32,
            static_cast<int64_t>(uint64_t{v3_load32(bytes, 24)} | uint64_t{v3_load32(bytes, 28)} << 32)};
  return library;
}

} // namespace opkit::elf
