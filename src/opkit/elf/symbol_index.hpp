#pragma once

#include "opkit/elf/elf_file.hpp"
#include "opkit/elf/symbol_table.hpp"
#include "opkit/util/fs.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::elf {

// The file an index was made from, as it was then: a different size or
// modification time means the index is stale.
struct SourceStamp
{
  uint64_t size = 0;
  int64_t mtime_ns = 0;

  bool operator==(const SourceStamp& other) const { return size == other.size && mtime_ns == other.mtime_ns; }
};

// The stamp of a file as it is now; Error(system) when it cannot be stat'ed.
SourceStamp
stamp_of(const std::filesystem::path& file);

// A symbol index is a small binary file that answers "does this library
// export name (at version)?" without reading the library: a header (magic,
// format version, the source's stamp), a hash table over the exported names,
// and their version names and strings. symbol_index.cpp documents the layout.

// What an index holds of a library: its soname, version definitions and exports.
struct LibraryExports
{
  std::string soname;
  std::string path; // where it was read, for errors
  std::vector<std::string> versions;
  ExportedSymbols symbols;
};

// The exports of a library as read_elf read it: its defined global and weak
// dynamic symbols; its soname, or the file's name when it has none.
LibraryExports
library_exports(const ElfInfo& elf, const std::filesystem::path& path);

// The bytes of an index of `library`, as made from a file with stamp `source`.
std::string
build_symbol_index(const LibraryExports& library, const SourceStamp& source);

// Reads `library` and writes its index to `index_file` atomically (opkit sdk
// add: into the staging folder, so the index is part of the import); returns
// what it read. The stamp is taken before the read: a change during the read
// leaves a stale index (remade next time), never a current-looking index of
// old contents. Errors: those of read_elf, Error(system) when it cannot write.
LibraryExports
write_symbol_index(const std::filesystem::path& library, const std::filesystem::path& index_file);

// The library an index of format 3 (the one before the current) describes,
// and its stamp; nothing when the bytes are not a sound index of that format.
// Every entry is checked. For remaking, in the current format, an index kept
// without its library.
std::optional<LibraryExports>
read_format_3_index(std::string_view bytes, SourceStamp& source);

// An index read back. Opening checks the header, the sizes against the file
// and the small tables; the hash table is checked where it is read (the
// bucket a lookup visits, everything before a walk), so a lookup costs the
// pages it touches. Nothing is ever read outside the file: a truncated,
// foreign or stale file is refused at open, a corrupt entry reported by the
// lookup or walk that meets it.
class SymbolIndex
{
public:
  // What opening an index gave: the index, or why it cannot be used
  // ("missing", "stale: ...", "corrupt: ...", "format version 7, not 2").
  struct Opened
  {
    std::shared_ptr<const SymbolIndex> index;
    std::string problem;
    uint32_t other_format = 0; // an opkit index of that format version, not this one's
  };

  // Maps `path`; `source` is the stamp the index must carry (none: an index
  // kept without its library, whose stamp is not checked).
  static Opened open(const std::filesystem::path& path, const std::optional<SourceStamp>& source);
  // Reads an index from bytes (tests, fuzzing); with `source`, checks its stamp too.
  static Opened parse(std::string bytes, const std::optional<SourceStamp>& source = std::nullopt);

  const std::string& soname() const { return m_soname; }
  const std::vector<std::string>& version_definitions() const { return m_definitions; }
  const SourceStamp& source() const { return m_source; }
  size_t size() const { return m_symbol_count; }

  // Appends every definition of `name` to `found`; false (nothing appended)
  // when the bucket it reads is corrupt.
  bool find(std::string_view name, std::vector<SymbolDefinition>& found) const;
  // Visits every symbol; false (nothing visited) when any entry is corrupt.
  bool for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const;
  // Visits the symbols whose name `wanted` accepts. Every entry must lie
  // inside the file, and each accepted one is checked as a lookup checks it
  // (its hash, bucket and version) before any is visited: false (nothing
  // visited) when one is corrupt. The others' names are only read, not
  // hashed, so this costs a fraction of a full walk.
  bool for_each_matching(const std::function<bool(std::string_view)>& wanted,
                         const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const;
  // Checks every bucket and entry, once; false when any is corrupt.
  bool verify() const;

private:
  SymbolIndex() = default;
  // Checks the header and small tables of m_bytes and fills the fields; the problem, or empty.
  std::string load(const std::optional<SourceStamp>& source);
  struct EntryFields
  {
    uint32_t hash;
    uint32_t name_offset;
    uint32_t name_length;
    uint32_t version;
  };
  std::optional<EntryFields> fields(uint32_t entry) const;
  bool bucket_is_sound(uint32_t bucket) const;
  bool entry_is_sound(uint32_t entry) const;
  SymbolDefinition definition(uint32_t entry) const;
  std::string_view name(uint32_t entry) const;
  uint32_t bucket_start(uint32_t bucket) const;

  std::unique_ptr<fs::MappedFile> m_file; // when mapped
  std::string m_owned;                    // when parsed from bytes
  std::string_view m_bytes;
  SourceStamp m_source;
  uint32_t m_symbol_count = 0;
  uint32_t m_bucket_mask = 0;
  uint32_t m_version_count = 0;
  size_t m_buckets = 0; // offsets of the sections in m_bytes
  size_t m_entries = 0;
  std::string_view m_strings;
  std::vector<std::string_view> m_versions; // by version number; 0 is the empty one
  std::string m_soname;
  std::vector<std::string> m_definitions;
  uint32_t m_other_format = 0;
  mutable std::once_flag m_verify_once;
  mutable bool m_sound = false;
};

} // namespace opkit::elf
