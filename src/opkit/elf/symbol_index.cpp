#include "opkit/elf/symbol_index.hpp"

#include "opkit/elf/index_bytes.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include <sys/stat.h>

namespace opkit::elf {

// Layout, format version 4. Every number is an unsigned little-endian
// integer (the mtime is signed); offsets count from the start of the file.
//
//   header, 64 bytes
//     0  magic "OPKITSYM"           32  symbol count N
//     8  format version (4)         36  version count V
//    12  bucket count B (2^k)       40  definition count D
//    16  source size (u64)          44  string table size S
//    24  source mtime, ns (i64)     48  soname: string offset, 52 length
//                                   56  tables check; 60 FNV-1a of bytes 0..59
//   buckets      (B + 1) u32: bucket b holds entries [bucket[b], bucket[b+1])
//   entries      N x 20 bytes: entry check, H(name), name offset, name
//                length, version word (version number | hidden << 31);
//                grouped by bucket: H(name) & (B - 1)
//   versions     V x 8 bytes: string offset, length; number 0 is "" (unversioned)
//   definitions  D u32: version numbers of the library's own version definitions
//   strings      S bytes without terminators: the version names, then the
//                entries' names in the entries' order (a walk over the
//                entries reads them front to back), then the soname
//
// The file is exactly as long as these parts. FNV-1a is the 32-bit one; it
// continues over more bytes by starting from an earlier result. H is
// name_hash below (version 1 used FNV-1a, a byte a step; version 2 laid the
// names out in the library's order; version 3 stored no H, so a lookup
// hashed every name of its bucket). The entry check is FNV-1a over the
// entry's other 16 bytes, so a lookup checks the entries it visits without
// reading their names: it reads a name only where H matches, and a name that
// no longer hashes to its H is caught there. The tables check is FNV-1a over
// the versions and definitions tables, continued over each version name and
// the soname, checked at open.

namespace {

using index_bytes::fnv1a;
using index_bytes::k_fnv_offset;
using index_bytes::load32;
using index_bytes::name_hash;

constexpr std::string_view k_magic = "OPKITSYM";
constexpr uint32_t k_format_version = 4; // 2: name_hash; 3: names in entry order; 4: H in each entry
constexpr size_t k_header_size = 64;
constexpr size_t k_checksummed = 60;
constexpr size_t k_entry_size = 20;
constexpr size_t k_version_size = 8;
constexpr uint32_t k_hidden_bit = 0x80000000U;
constexpr uint32_t k_version_mask = 0x7fffffffU;
// Beyond these the counts cannot come from a real library; refusing them early
// keeps every size computation far from overflow.
constexpr uint32_t k_max_count = 1U << 28;

// An entry's check: FNV-1a over its other four fields, as stored.
uint32_t
entry_check(uint32_t hash, uint32_t name_offset, uint32_t name_length, uint32_t version_word)
{
  uint32_t check = k_fnv_offset;
  for (uint32_t field : {hash, name_offset, name_length, version_word}) {
    for (int shift = 0; shift < 32; shift += 8) {
      check = (check ^ ((field >> shift) & 0xff)) * 16777619U;
    }
  }
  return check;
}

uint64_t
load64(const char* at)
{
  return uint64_t{load32(at)} | uint64_t{load32(at + 4)} << 32;
}

void
put32(std::string& out, uint32_t value)
{
  for (int shift = 0; shift < 32; shift += 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void
put64(std::string& out, uint64_t value)
{
  put32(out, static_cast<uint32_t>(value));
  put32(out, static_cast<uint32_t>(value >> 32));
}

// The string table being built, with the offset/length pairs pointing into it.
class StringsBuilder
{
public:
  std::pair<uint32_t, uint32_t> add(std::string_view text)
  {
    if (m_bytes.size() + text.size() > UINT32_MAX) {
      fail(ExitCode::usage, "symbol index: cannot build: the library's names exceed 4 GiB");
    }
    auto offset = static_cast<uint32_t>(m_bytes.size());
    m_bytes.append(text);
    return {offset, static_cast<uint32_t>(text.size())};
  }

  // Version names are few and repeated on every symbol: each is stored once.
  uint32_t version(std::string_view name)
  {
    auto [it, added] = m_version_numbers.emplace(std::string(name), static_cast<uint32_t>(m_versions.size()));
    if (added) {
      m_versions.push_back(add(name));
    }
    return it->second;
  }

  const std::string& bytes() const { return m_bytes; }
  const std::vector<std::pair<uint32_t, uint32_t>>& versions() const { return m_versions; }

private:
  std::string m_bytes;
  std::map<std::string, uint32_t> m_version_numbers;
  std::vector<std::pair<uint32_t, uint32_t>> m_versions;
};

struct Entry
{
  uint32_t hash; // of the name: picks the bucket
  uint32_t name_offset;
  uint32_t name_length;
  uint32_t version;
};

uint32_t
bucket_count_for(size_t symbols)
{
  uint32_t count = 1;
  while (count < symbols) {
    count <<= 1;
  }
  return count;
}

} // namespace

SourceStamp
stamp_of(const std::filesystem::path& file)
{
  struct stat st
  {};
  if (::stat(file.c_str(), &st) != 0) {
    fail(ExitCode::system, "{}: cannot read: {}", file, std::strerror(errno));
  }
  return {static_cast<uint64_t>(st.st_size), int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

LibraryExports
library_exports(const ElfInfo& elf, const std::filesystem::path& path)
{
  std::vector<ExportedSymbol> symbols;
  for (const ElfSymbol& symbol : elf.dynamic_symbols) {
    if (symbol.defined && (symbol.global || symbol.weak)) {
      symbols.push_back({symbol.name, symbol.version, symbol.version_hidden});
    }
  }
  return {elf.soname.empty() ? path.filename().string() : elf.soname, path.string(), elf.version_definitions,
          std::move(symbols)};
}

std::string
build_symbol_index(const LibraryExports& library, const SourceStamp& source)
{
  StringsBuilder strings;
  strings.version(""); // number 0: unversioned
  std::vector<Entry> entries;
  std::vector<std::string> names;
  library.symbols.for_each([&](std::string_view name, const SymbolDefinition& definition) {
    entries.push_back({name_hash(name), static_cast<uint32_t>(names.size()), 0,
                       strings.version(definition.version) | (definition.hidden ? k_hidden_bit : 0)});
    names.emplace_back(name);
  });
  std::vector<uint32_t> definitions;
  for (const std::string& version : library.versions) {
    definitions.push_back(strings.version(version));
  }
  if (entries.size() >= k_max_count || strings.versions().size() >= k_max_count) {
    fail(ExitCode::usage, "{}: cannot index: {} symbols is too many", library.path, entries.size());
  }

  // Group the entries by bucket, keeping their order within each (a counting sort).
  uint32_t bucket_count = bucket_count_for(entries.size());
  std::vector<uint32_t> starts(bucket_count + 1, 0);
  for (const Entry& entry : entries) {
    ++starts[(entry.hash & (bucket_count - 1)) + 1];
  }
  for (uint32_t b = 0; b < bucket_count; ++b) {
    starts[b + 1] += starts[b];
  }
  std::vector<Entry> grouped(entries.size());
  std::vector<uint32_t> next(starts.begin(), starts.end() - 1);
  for (const Entry& entry : entries) {
    grouped[next[entry.hash & (bucket_count - 1)]++] = entry;
  }
  // The names in the entries' order: a walk over the entries (a refused
  // check's search for twins) then reads the strings front to back.
  for (Entry& entry : grouped) {
    std::tie(entry.name_offset, entry.name_length) = strings.add(names[entry.name_offset]);
  }
  auto [soname_offset, soname_length] = strings.add(library.soname);

  std::string tables;
  for (auto [offset, length] : strings.versions()) {
    put32(tables, offset);
    put32(tables, length);
  }
  for (uint32_t number : definitions) {
    put32(tables, number);
  }
  uint32_t tables_check = fnv1a(tables);
  for (auto [offset, length] : strings.versions()) {
    tables_check = fnv1a(std::string_view(strings.bytes()).substr(offset, length), tables_check);
  }
  tables_check = fnv1a(library.soname, tables_check);

  std::string out(k_magic);
  put32(out, k_format_version);
  put32(out, bucket_count);
  put64(out, source.size);
  put64(out, static_cast<uint64_t>(source.mtime_ns));
  put32(out, static_cast<uint32_t>(entries.size()));
  put32(out, static_cast<uint32_t>(strings.versions().size()));
  put32(out, static_cast<uint32_t>(definitions.size()));
  put32(out, static_cast<uint32_t>(strings.bytes().size()));
  put32(out, soname_offset);
  put32(out, soname_length);
  put32(out, tables_check);
  put32(out, fnv1a(std::string_view(out).substr(0, k_checksummed)));
  for (uint32_t start : starts) {
    put32(out, start);
  }
  for (const Entry& entry : grouped) {
    for (uint32_t field : {entry_check(entry.hash, entry.name_offset, entry.name_length, entry.version), entry.hash,
                           entry.name_offset, entry.name_length, entry.version}) {
      put32(out, field);
    }
  }
  out += tables;
  out += strings.bytes();
  return out;
}

SymbolIndex::Opened
SymbolIndex::open(const std::filesystem::path& path, const std::optional<SourceStamp>& source)
{
  std::shared_ptr<SymbolIndex> index(new SymbolIndex());
  try {
    index->m_file = std::make_unique<fs::MappedFile>(path);
  } catch (const Error& e) {
    std::error_code ec; // asked only here: a check opens a dozen indexes that exist
    return {nullptr, std::filesystem::exists(path, ec) ? e.what() : "missing"};
  }
  index->m_bytes = index->m_file->bytes();
  fs::advise_random(index->m_bytes); // lookups touch a few pages anywhere; a walk prefaults all
  std::string problem = index->load(source);
  return problem.empty() ? Opened{index, ""} : Opened{nullptr, problem, index->m_other_format};
}

SymbolIndex::Opened
SymbolIndex::parse(std::string bytes, const std::optional<SourceStamp>& source)
{
  std::shared_ptr<SymbolIndex> index(new SymbolIndex());
  index->m_owned = std::move(bytes);
  index->m_bytes = index->m_owned;
  std::string problem = index->load(source);
  return problem.empty() ? Opened{index, ""} : Opened{nullptr, problem, index->m_other_format};
}

std::string
SymbolIndex::load(const std::optional<SourceStamp>& source)
{
  const char* base = m_bytes.data();
  if (m_bytes.size() < k_header_size || m_bytes.substr(0, k_magic.size()) != k_magic) {
    return "not an opkit symbol index";
  }
  if (uint32_t format = load32(base + 8); format != k_format_version) {
    m_other_format = format;
    return fmt::format("format version {}, not {}", format, k_format_version);
  }
  if (load32(base + k_checksummed) != fnv1a(m_bytes.substr(0, k_checksummed))) {
    return "corrupt: header checksum mismatch";
  }
  uint32_t buckets = load32(base + 12);
  m_source = {load64(base + 16), static_cast<int64_t>(load64(base + 24))};
  m_symbol_count = load32(base + 32);
  uint32_t versions = load32(base + 36);
  uint32_t definitions = load32(base + 40);
  uint32_t strings = load32(base + 44);
  if (buckets == 0 || (buckets & (buckets - 1)) != 0 || buckets > k_max_count || m_symbol_count > k_max_count
      || versions == 0 || versions > k_max_count || definitions > k_max_count) {
    return "corrupt: impossible table sizes";
  }
  // Each term is below 2^33, so the sum cannot overflow.
  m_buckets = k_header_size;
  m_entries = m_buckets + (uint64_t{buckets} + 1) * 4;
  size_t version_table = m_entries + uint64_t{m_symbol_count} * k_entry_size;
  size_t definition_table = version_table + uint64_t{versions} * k_version_size;
  size_t string_table = definition_table + uint64_t{definitions} * 4;
  if (string_table + strings != m_bytes.size()) {
    return fmt::format("corrupt: {} bytes where its header describes {}", m_bytes.size(), string_table + strings);
  }
  if (source && !(*source == m_source)) {
    return "stale: its library changed since it was made";
  }
  m_strings = m_bytes.substr(string_table, strings);
  auto in_strings = [&](uint32_t offset, uint32_t length) { return uint64_t{offset} + length <= strings; };
  for (uint32_t v = 0; v < versions; ++v) {
    uint32_t offset = load32(base + version_table + v * k_version_size);
    uint32_t length = load32(base + version_table + v * k_version_size + 4);
    if (!in_strings(offset, length)) {
      return "corrupt: a version name lies outside the string table";
    }
    m_versions.push_back(m_strings.substr(offset, length));
  }
  for (uint32_t d = 0; d < definitions; ++d) {
    uint32_t number = load32(base + definition_table + static_cast<size_t>(d) * 4);
    if (number >= versions) {
      return "corrupt: a version definition names no version";
    }
    m_definitions.emplace_back(m_versions[number]);
  }
  uint32_t soname_offset = load32(base + 48);
  uint32_t soname_length = load32(base + 52);
  if (!in_strings(soname_offset, soname_length)) {
    return "corrupt: the soname lies outside the string table";
  }
  m_soname = std::string(m_strings.substr(soname_offset, soname_length));
  uint32_t tables_check = fnv1a(m_bytes.substr(version_table, string_table - version_table));
  for (std::string_view version : m_versions) {
    tables_check = fnv1a(version, tables_check);
  }
  if (fnv1a(m_soname, tables_check) != load32(base + 56)) {
    return "corrupt: the version tables do not match their check";
  }
  m_bucket_mask = buckets - 1;
  m_version_count = versions;
  if (bucket_start(0) != 0 || bucket_start(buckets) != m_symbol_count) {
    return "corrupt: the buckets do not cover the entries";
  }
  return {};
}

// The fields of entry e (which must be below the symbol count), when they
// match their check, name a version and place the name inside the strings.
std::optional<SymbolIndex::EntryFields>
SymbolIndex::fields(uint32_t e) const
{
  const char* entry = m_bytes.data() + m_entries + size_t{e} * k_entry_size;
  EntryFields read{load32(entry + 4), load32(entry + 8), load32(entry + 12), load32(entry + 16)};
  if (entry_check(read.hash, read.name_offset, read.name_length, read.version) != load32(entry)
      || uint64_t{read.name_offset} + read.name_length > m_strings.size()
      || (read.version & k_version_mask) >= m_version_count) {
    return std::nullopt;
  }
  return read;
}

// Every entry of the bucket matches its check and belongs in this bucket,
// and the entries just outside it belong to the buckets before and after:
// the entries are sorted by bucket, so an entry cut off by a damaged start
// would be one of those. No name is read.
bool
SymbolIndex::bucket_is_sound(uint32_t bucket) const
{
  uint32_t begin = bucket_start(bucket);
  uint32_t end = bucket_start(bucket + 1);
  if (begin > end || end > m_symbol_count) {
    return false;
  }
  for (uint32_t e = begin; e < end; ++e) {
    std::optional<EntryFields> entry = fields(e);
    if (!entry || (entry->hash & m_bucket_mask) != bucket) {
      return false;
    }
  }
  if (begin > 0) {
    std::optional<EntryFields> before = fields(begin - 1);
    if (!before || (before->hash & m_bucket_mask) >= bucket) {
      return false;
    }
  }
  if (end < m_symbol_count) {
    std::optional<EntryFields> after = fields(end);
    if (!after || (after->hash & m_bucket_mask) <= bucket) {
      return false;
    }
  }
  return true;
}

bool
SymbolIndex::verify() const
{
  std::call_once(m_verify_once, [this] {
    fs::prefault(m_bytes); // every name is read
    bool sound = true;
    for (uint32_t b = 0; sound && b <= m_bucket_mask; ++b) {
      sound = bucket_is_sound(b);
    }
    for (uint32_t e = 0; sound && e < m_symbol_count; ++e) {
      std::optional<EntryFields> entry = fields(e);
      sound = entry && name_hash(name(e)) == entry->hash;
    }
    m_sound = sound;
  });
  return m_sound;
}

uint32_t
SymbolIndex::bucket_start(uint32_t bucket) const
{
  return load32(m_bytes.data() + m_buckets + size_t{bucket} * 4);
}

std::string_view
SymbolIndex::name(uint32_t entry) const
{
  const char* at = m_bytes.data() + m_entries + size_t{entry} * k_entry_size;
  return m_strings.substr(load32(at + 8), load32(at + 12));
}

SymbolDefinition
SymbolIndex::definition(uint32_t entry) const
{
  uint32_t version = load32(m_bytes.data() + m_entries + size_t{entry} * k_entry_size + 16);
  return {m_versions[version & k_version_mask], (version & k_hidden_bit) != 0};
}

bool
SymbolIndex::find(std::string_view wanted, std::vector<SymbolDefinition>& found) const
{
  uint32_t hash = name_hash(wanted);
  uint32_t bucket = hash & m_bucket_mask;
  // Only this bucket is read, so only this bucket is checked: a lookup costs
  // the pages it touches, not a pass over the whole index.
  if (!bucket_is_sound(bucket)) {
    return false;
  }
  size_t before = found.size();
  for (uint32_t e = bucket_start(bucket), end = bucket_start(bucket + 1); e < end; ++e) {
    // Each entry here matched its check just above: its H is read as stored.
    if (load32(m_bytes.data() + m_entries + size_t{e} * k_entry_size + 4) != hash) {
      continue;
    }
    std::string_view stored = name(e);
    if (stored == wanted) {
      found.push_back(definition(e));
    } else if (name_hash(stored) != hash) {
      found.resize(before); // the name changed since the entry was made
      return false;
    }
  }
  return true;
}

bool
SymbolIndex::for_each(const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
{
  if (!verify()) {
    return false;
  }
  for (uint32_t e = 0; e < m_symbol_count; ++e) {
    visit(name(e), definition(e));
  }
  return true;
}

bool
SymbolIndex::entry_is_sound(uint32_t e) const
{
  std::optional<EntryFields> entry = fields(e);
  if (!entry || name_hash(name(e)) != entry->hash) {
    return false;
  }
  uint32_t bucket = entry->hash & m_bucket_mask;
  return bucket_start(bucket) <= e && e < bucket_start(bucket + 1);
}

bool
SymbolIndex::for_each_matching(const std::function<bool(std::string_view)>& wanted,
                               const std::function<void(std::string_view, const SymbolDefinition&)>& visit) const
{
  fs::prefault(m_bytes); // every name is read
  std::vector<uint32_t> matches;
  for (uint32_t e = 0; e < m_symbol_count; ++e) {
    const char* entry = m_bytes.data() + m_entries + size_t{e} * k_entry_size;
    if (uint64_t{load32(entry + 8)} + load32(entry + 12) > m_strings.size()) {
      return false;
    }
    if (wanted(name(e))) {
      if (!entry_is_sound(e)) {
        return false;
      }
      matches.push_back(e);
    }
  }
  for (uint32_t e : matches) {
    visit(name(e), definition(e));
  }
  return true;
}

LibraryExports
write_symbol_index(const std::filesystem::path& library, const std::filesystem::path& index_file)
{
  SourceStamp stamp = stamp_of(library);
  LibraryExports read = library_exports(read_elf(library), library);
  fs::create_dirs(index_file.parent_path());
  fs::write_file_atomic(index_file, build_symbol_index(read, stamp));
  return read;
}

} // namespace opkit::elf
