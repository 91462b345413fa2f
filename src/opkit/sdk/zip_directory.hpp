#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::sdk {

// One member as a zip archive's central directory describes it.
struct ZipMember
{
  std::string name; // as stored: untrusted
  std::uint16_t version_made_by = 0;
  std::uint16_t version_needed = 0;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint16_t mod_time = 0;
  std::uint16_t mod_date = 0;
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint16_t internal_attributes = 0;
  std::uint32_t external_attributes = 0;
  std::uint64_t offset = 0; // where its local header starts
  std::uint64_t end = 0;    // where the next member, or the central directory, starts: its local
                            // header, data and any data descriptor fill [offset, end)
};

struct ZipDirectory
{
  std::uint64_t file_size = 0;
  std::uint64_t directory_offset = 0; // the central directory's bytes
  std::uint64_t directory_size = 0;
  bool zip64 = false;             // its end was found through a ZIP64 end record
  std::string comment;            // the archive comment
  std::vector<ZipMember> members; // in the central directory's order
};

// Returns `count` bytes of the archive at `offset`.
using ZipReader = std::function<std::string(std::uint64_t offset, std::uint64_t count)>;

// The central directory of a zip archive of `file_size` bytes, found from its
// end: `tail` holds the archive's last tail.size() bytes; `read` is asked for
// whatever else is needed (more of the end when the tail is shorter than the
// longest comment allows, a ZIP64 end record, the central directory). The
// input is untrusted and checked throughout: the End Of Central Directory
// record must end the file (after its comment), the central directory must
// fill the space before it exactly, count as many records as it says (and no
// more than its size can hold) and stay under 64 MiB; every member must lie
// before the central directory and overlap no other. Anything else, and a
// multi-disk archive, is Error(usage): "<subject>: damaged archive: <what>".
ZipDirectory
read_zip_directory(std::string_view subject, std::uint64_t file_size, std::string_view tail, const ZipReader& read);

// A local header's fixed part; local_header_size reads the rest's length from it.
constexpr std::size_t k_local_header_fixed = 30;

// 30 + name length + extra field length, from a local header's first 30
// bytes; Error(usage) when they are not a local header.
std::size_t
local_header_size(std::string_view subject, const ZipMember& member, std::string_view fixed);

// Checks a member's whole local header (local_header_size bytes) against the
// central directory: the same name, method and (without a data descriptor)
// CRC and sizes, and that the header, the data and a data descriptor (only
// when flag bit 3 says there is one) fill [offset, end) exactly. Error(usage).
void
check_local_header(std::string_view subject, const ZipMember& member, std::string_view header);

// The central directory for `members` whose local records were written at
// `offsets` (same order), itself written at `directory_offset`, followed by
// the end records (ZIP64 ones when a count, size or offset needs them), with
// no comment. Each record keeps the member's fields; extra fields and
// comments are dropped, but for the ZIP64 one it may need.
std::string
write_central_directory(const std::vector<ZipMember>& members, const std::vector<std::uint64_t>& offsets,
                        std::uint64_t directory_offset);

} // namespace opkit::sdk
