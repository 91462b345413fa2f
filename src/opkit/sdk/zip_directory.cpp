#include "opkit/sdk/zip_directory.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <algorithm>
#include <numeric>

namespace opkit::sdk {

namespace {

// The zip format's numbers (APPNOTE.TXT).
const std::uint32_t k_local_signature = 0x04034b50;
const std::uint32_t k_central_signature = 0x02014b50;
const std::uint32_t k_end_signature = 0x06054b50;
const std::uint32_t k_zip64_end_signature = 0x06064b50;
const std::uint32_t k_zip64_locator_signature = 0x07064b50;
const std::size_t k_central_fixed = 46;
const std::size_t k_end_fixed = 22;
const std::size_t k_zip64_end_fixed = 56;
const std::size_t k_zip64_locator_size = 20;
const std::size_t k_max_comment = 0xffff;
const std::uint16_t k_zip64_extra_id = 0x0001;
const std::uint16_t k_flag_data_descriptor = 1 << 3;
const std::uint16_t k_version_zip64 = 45;
const std::uint64_t k_max_directory = 64ull << 20; // larger than any wheel's (2.10.1's: 1.1 MB for 9884 members)
const std::uint32_t k_max16 = 0xffff;
const std::uint32_t k_max32 = 0xffffffff;

[[noreturn]] void
damaged(std::string_view subject, std::string_view what)
{
  fail(ExitCode::usage, "{}: damaged archive: {}", subject, what);
}

// Little-endian fields of a byte string; every access is bounds-checked.
class Fields
{
public:
  Fields(std::string_view subject, std::string_view bytes)
    : m_subject(subject)
    , m_bytes(bytes)
  {
  }

  std::uint64_t get(std::size_t at, std::size_t width, std::string_view what) const
  {
    if (at > m_bytes.size() || width > m_bytes.size() - at) {
      damaged(m_subject, fmt::format("{} is truncated", what));
    }
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;) {
      value = (value << 8) | static_cast<unsigned char>(m_bytes[at + i]);
    }
    return value;
  }
  std::uint16_t u16(std::size_t at, std::string_view what) const
  {
    return static_cast<std::uint16_t>(get(at, 2, what));
  }
  std::uint32_t u32(std::size_t at, std::string_view what) const
  {
    return static_cast<std::uint32_t>(get(at, 4, what));
  }
  std::uint64_t u64(std::size_t at, std::string_view what) const { return get(at, 8, what); }

  std::string_view bytes(std::size_t at, std::size_t count, std::string_view what) const
  {
    if (at > m_bytes.size() || count > m_bytes.size() - at) {
      damaged(m_subject, fmt::format("{} is truncated", what));
    }
    return m_bytes.substr(at, count);
  }

private:
  std::string_view m_subject;
  std::string_view m_bytes;
};

void
put(std::string& out, std::uint64_t value, std::size_t width)
{
  for (std::size_t i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

// The archive's bytes: the tail held in memory, the rest through the reader.
class Source
{
public:
  Source(std::string_view subject, std::uint64_t size, std::string_view tail, const ZipReader& read)
    : m_subject(subject)
    , m_size(size)
    , m_tail(tail)
    , m_read(read)
  {
    if (tail.size() > size) {
      fail(ExitCode::system, "{}: {} bytes of tail for a file of {}", subject, tail.size(), size);
    }
  }

  std::uint64_t tail_start() const { return m_size - m_tail.size(); }

  std::string get(std::uint64_t offset, std::uint64_t count, std::string_view what) const
  {
    if (offset > m_size || count > m_size - offset) {
      damaged(m_subject, fmt::format("{} lies outside the file", what));
    }
    std::uint64_t split = std::max(offset, std::min(offset + count, tail_start()));
    std::string bytes = split > offset ? m_read(offset, split - offset) : std::string();
    if (bytes.size() != split - offset) {
      damaged(m_subject, fmt::format("{} is truncated", what));
    }
    if (offset + count > split) { // then split >= tail_start()
      bytes.append(m_tail.substr(split - tail_start(), offset + count - split));
    }
    return bytes;
  }

private:
  std::string_view m_subject;
  std::uint64_t m_size;
  std::string_view m_tail;
  const ZipReader& m_read;
};

// Where the central directory lies, from the end records.
struct DirectoryEnd
{
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
  std::uint64_t limit = 0; // where the end records start: the directory must end here
  bool zip64 = false;
  std::string comment;
};

DirectoryEnd
find_end(std::string_view subject, const Source& source, std::uint64_t file_size)
{
  std::uint64_t span = std::min<std::uint64_t>(file_size, k_end_fixed + k_max_comment);
  std::string end = source.get(file_size - span, span, "the end of the file");
  if (end.size() < k_end_fixed) {
    damaged(subject, "no end of central directory record (the file is too short)");
  }
  Fields fields(subject, end);
  // From the back: the record whose comment reaches exactly the end of the file.
  for (std::size_t at = end.size() - k_end_fixed + 1; at-- > 0;) {
    if (fields.u32(at, "the end record") != k_end_signature
        || at + k_end_fixed + fields.u16(at + 20, "the end record") != end.size()) {
      continue;
    }
    DirectoryEnd found;
    std::uint64_t position = file_size - span + at;
    if (fields.u16(at + 4, "the end record") != 0 || fields.u16(at + 6, "the end record") != 0
        || fields.u16(at + 8, "the end record") != fields.u16(at + 10, "the end record")) {
      damaged(subject, "the archive spans several disks");
    }
    found.entries = fields.u16(at + 10, "the end record");
    found.size = fields.u32(at + 12, "the end record");
    found.offset = fields.u32(at + 16, "the end record");
    found.comment = std::string(fields.bytes(at + k_end_fixed, end.size() - at - k_end_fixed, "the comment"));
    found.limit = position;
    if (position < k_zip64_locator_size) {
      return found;
    }
    std::string locator = source.get(position - k_zip64_locator_size, k_zip64_locator_size, "the ZIP64 locator");
    Fields loc(subject, locator);
    if (loc.u32(0, "the ZIP64 locator") != k_zip64_locator_signature) {
      return found;
    }
    if (loc.u32(4, "the ZIP64 locator") != 0 || loc.u32(16, "the ZIP64 locator") > 1) {
      damaged(subject, "the archive spans several disks");
    }
    std::uint64_t record_at = loc.u64(8, "the ZIP64 locator");
    if (record_at > position - k_zip64_locator_size
        || position - k_zip64_locator_size - record_at < k_zip64_end_fixed) {
      damaged(subject, "the ZIP64 end record lies outside the file");
    }
    std::string record = source.get(record_at, k_zip64_end_fixed, "the ZIP64 end record");
    Fields z(subject, record);
    if (z.u32(0, "the ZIP64 end record") != k_zip64_end_signature) {
      damaged(subject, "no ZIP64 end record where the locator points");
    }
    if (z.u32(16, "the ZIP64 end record") != 0 || z.u32(20, "the ZIP64 end record") != 0
        || z.u64(24, "the ZIP64 end record") != z.u64(32, "the ZIP64 end record")) {
      damaged(subject, "the archive spans several disks");
    }
    found.entries = z.u64(32, "the ZIP64 end record");
    found.size = z.u64(40, "the ZIP64 end record");
    found.offset = z.u64(48, "the ZIP64 end record");
    found.limit = record_at;
    found.zip64 = true;
    return found;
  }
  damaged(subject, "no end of central directory record");
}

// Fields the 32-bit record saturates come from its ZIP64 extra field, in this order.
void
read_zip64_extra(std::string_view subject, std::string_view extra, ZipMember& member, bool disk_saturated)
{
  Fields fields(subject, extra);
  for (std::size_t at = 0; at + 4 <= extra.size();) {
    std::uint16_t id = fields.u16(at, "an extra field");
    std::uint16_t size = fields.u16(at + 2, "an extra field");
    std::string_view data = fields.bytes(at + 4, size, fmt::format("{}'s extra field", member.name));
    at += 4 + std::size_t{size};
    if (id != k_zip64_extra_id) {
      continue;
    }
    Fields z(subject, data);
    std::size_t next = 0;
    std::string what = fmt::format("{}'s ZIP64 extra field", member.name);
    for (std::uint64_t* field : {&member.uncompressed_size, &member.compressed_size, &member.offset}) {
      if (*field == k_max32) {
        *field = z.u64(next, what);
        next += 8;
      }
    }
    if (disk_saturated && z.u32(next, what) != 0) {
      damaged(subject, "the archive spans several disks");
    }
    return;
  }
  damaged(subject, fmt::format("{}: sizes or offset saturated without a ZIP64 extra field", member.name));
}

std::vector<ZipMember>
parse_records(std::string_view subject, std::string_view directory, std::uint64_t entries)
{
  // Each record takes 46 bytes at least: a count the size cannot hold is refused before anything is reserved.
  if (entries > directory.size() / k_central_fixed) {
    damaged(subject, fmt::format("{} members cannot fit a central directory of {} bytes", entries, directory.size()));
  }
  std::vector<ZipMember> members;
  members.reserve(static_cast<std::size_t>(entries));
  Fields fields(subject, directory);
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < entries; ++i) {
    const char* what = "a central directory record";
    if (fields.u32(at, what) != k_central_signature) {
      damaged(subject, fmt::format("central directory record {} has no signature", i));
    }
    ZipMember m;
    m.version_made_by = fields.u16(at + 4, what);
    m.version_needed = fields.u16(at + 6, what);
    m.flags = fields.u16(at + 8, what);
    m.method = fields.u16(at + 10, what);
    m.mod_time = fields.u16(at + 12, what);
    m.mod_date = fields.u16(at + 14, what);
    m.crc32 = fields.u32(at + 16, what);
    m.compressed_size = fields.u32(at + 20, what);
    m.uncompressed_size = fields.u32(at + 24, what);
    std::size_t name_size = fields.u16(at + 28, what);
    std::size_t extra_size = fields.u16(at + 30, what);
    std::size_t comment_size = fields.u16(at + 32, what);
    std::uint16_t disk = fields.u16(at + 34, what);
    m.internal_attributes = fields.u16(at + 36, what);
    m.external_attributes = fields.u32(at + 38, what);
    m.offset = fields.u32(at + 42, what);
    m.name = std::string(fields.bytes(at + k_central_fixed, name_size, what));
    std::string_view extra = fields.bytes(at + k_central_fixed + name_size, extra_size, what);
    fields.bytes(at + k_central_fixed + name_size + extra_size, comment_size, what);
    if (m.compressed_size == k_max32 || m.uncompressed_size == k_max32 || m.offset == k_max32 || disk == k_max16) {
      read_zip64_extra(subject, extra, m, disk == k_max16);
    } else if (disk != 0) {
      damaged(subject, "the archive spans several disks");
    }
    members.push_back(std::move(m));
    at += k_central_fixed + name_size + extra_size + comment_size;
  }
  if (at != directory.size()) {
    damaged(subject,
            fmt::format("the central directory's {} records take {} of its {} bytes", entries, at, directory.size()));
  }
  return members;
}

// Each member's bytes run from its local header to the next member's (the
// last: to the central directory); they must at least hold the local header,
// the name and the data.
void
assign_extents(std::string_view subject, std::vector<ZipMember>& members, std::uint64_t directory_offset)
{
  std::vector<std::size_t> order(members.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&members](std::size_t a, std::size_t b) { return members[a].offset < members[b].offset; });
  for (std::size_t i = 0; i < order.size(); ++i) {
    ZipMember& m = members[order[i]];
    std::uint64_t end = i + 1 < order.size() ? members[order[i + 1]].offset : directory_offset;
    std::uint64_t least = k_local_header_fixed + m.name.size();
    if (m.offset > directory_offset || m.compressed_size > directory_offset
        || m.offset + least + m.compressed_size > directory_offset) {
      damaged(subject, fmt::format("member '{}' lies outside the archive's data", m.name));
    }
    if (m.offset + least + m.compressed_size > end) {
      damaged(subject, fmt::format("member '{}' overlaps member '{}'", m.name, members[order[i + 1]].name));
    }
    m.end = end;
  }
}

} // namespace

ZipDirectory
read_zip_directory(std::string_view subject, std::uint64_t file_size, std::string_view tail, const ZipReader& read)
{
  Source source(subject, file_size, tail, read);
  DirectoryEnd end = find_end(subject, source, file_size);
  if (end.offset > end.limit || end.size != end.limit - end.offset) {
    damaged(subject, fmt::format("the central directory ({} bytes at {}) does not end where its end record starts ({})",
                                 end.size, end.offset, end.limit));
  }
  if (end.size > k_max_directory) {
    damaged(subject,
            fmt::format("a central directory of {} bytes is more than opkit reads ({})", end.size, k_max_directory));
  }
  ZipDirectory directory;
  directory.file_size = file_size;
  directory.directory_offset = end.offset;
  directory.directory_size = end.size;
  directory.zip64 = end.zip64;
  directory.comment = end.comment;
  std::string records = source.get(end.offset, end.size, "the central directory");
  directory.members = parse_records(subject, records, end.entries);
  assign_extents(subject, directory.members, end.offset);
  return directory;
}

std::size_t
local_header_size(std::string_view subject, const ZipMember& member, std::string_view fixed)
{
  Fields fields(subject, fixed);
  std::string what = fmt::format("the local header of '{}'", member.name);
  if (fields.u32(0, what) != k_local_signature) {
    damaged(subject, fmt::format("no local header for '{}' at {}", member.name, member.offset));
  }
  return k_local_header_fixed + fields.u16(26, what) + fields.u16(28, what);
}

void
check_local_header(std::string_view subject, const ZipMember& member, std::string_view header)
{
  Fields fields(subject, header);
  std::string what = fmt::format("the local header of '{}'", member.name);
  std::size_t size =
    local_header_size(subject, member, header.substr(0, std::min(header.size(), k_local_header_fixed)));
  std::size_t name_size = fields.u16(26, what);
  if (header.size() != size || fields.bytes(k_local_header_fixed, name_size, what) != member.name) {
    damaged(subject, fmt::format("the local header at {} does not name '{}'", member.offset, member.name));
  }
  bool descriptor = (member.flags & k_flag_data_descriptor) != 0;
  std::uint32_t csize = fields.u32(18, what);
  std::uint32_t usize = fields.u32(22, what);
  bool sizes_agree =
    descriptor || csize == k_max32 || usize == k_max32
    || (csize == member.compressed_size && usize == member.uncompressed_size && fields.u32(14, what) == member.crc32);
  if (fields.u16(8, what) != member.method || !sizes_agree) {
    damaged(subject, fmt::format("the local header of '{}' disagrees with the central directory", member.name));
  }
  // What follows the data: nothing, or a data descriptor (signature optional, 32- or 64-bit sizes).
  std::uint64_t record = size + member.compressed_size;
  std::uint64_t extent = member.end - member.offset;
  std::uint64_t trailer = extent >= record ? extent - record : ~std::uint64_t{0};
  bool fits = descriptor ? (trailer == 12 || trailer == 16 || trailer == 20 || trailer == 24) : trailer == 0;
  if (!fits) {
    damaged(subject, fmt::format("member '{}' does not fill its {} bytes ({} unexplained)", member.name, extent,
                                 extent >= record ? std::to_string(trailer) : "too few"));
  }
}

std::string
write_central_directory(const std::vector<ZipMember>& members, const std::vector<std::uint64_t>& offsets,
                        std::uint64_t directory_offset)
{
  std::string out;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const ZipMember& m = members[i];
    std::string zip64;
    for (std::uint64_t value : {m.uncompressed_size, m.compressed_size, offsets[i]}) {
      if (value >= k_max32) {
        put(zip64, value, 8);
      }
    }
    put(out, k_central_signature, 4);
    put(out, m.version_made_by, 2);
    put(out, zip64.empty() ? m.version_needed : std::max(m.version_needed, k_version_zip64), 2);
    put(out, m.flags, 2);
    put(out, m.method, 2);
    put(out, m.mod_time, 2);
    put(out, m.mod_date, 2);
    put(out, m.crc32, 4);
    put(out, std::min<std::uint64_t>(m.compressed_size, k_max32), 4);
    put(out, std::min<std::uint64_t>(m.uncompressed_size, k_max32), 4);
    put(out, m.name.size(), 2);
    put(out, zip64.empty() ? 0 : 4 + zip64.size(), 2);
    put(out, 0, 2); // comment
    put(out, 0, 2); // disk
    put(out, m.internal_attributes, 2);
    put(out, m.external_attributes, 4);
    put(out, std::min<std::uint64_t>(offsets[i], k_max32), 4);
    out += m.name;
    if (!zip64.empty()) {
      put(out, k_zip64_extra_id, 2);
      put(out, zip64.size(), 2);
      out += zip64;
    }
  }
  std::uint64_t size = out.size();
  std::uint64_t count = members.size();
  if (count >= k_max16 || size >= k_max32 || directory_offset >= k_max32) {
    std::uint64_t record_at = directory_offset + size;
    put(out, k_zip64_end_signature, 4);
    put(out, k_zip64_end_fixed - 12, 8); // the record's size after this field
    put(out, k_version_zip64, 2);
    put(out, k_version_zip64, 2);
    put(out, 0, 4);
    put(out, 0, 4);
    put(out, count, 8);
    put(out, count, 8);
    put(out, size, 8);
    put(out, directory_offset, 8);
    put(out, k_zip64_locator_signature, 4);
    put(out, 0, 4);
    put(out, record_at, 8);
    put(out, 1, 4);
  }
  put(out, k_end_signature, 4);
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, std::min<std::uint64_t>(count, k_max16), 2);
  put(out, std::min<std::uint64_t>(count, k_max16), 2);
  put(out, std::min<std::uint64_t>(size, k_max32), 4);
  put(out, std::min<std::uint64_t>(directory_offset, k_max32), 4);
  put(out, 0, 2); // comment
  return out;
}

} // namespace opkit::sdk
