#pragma once

#include "opkit/sdk/zip_directory.hpp"
#include "opkit/util/file_handle.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::sdk {

// Bytes [first, end) of a file.
struct ByteRange
{
  std::uint64_t first = 0;
  std::uint64_t end = 0;

  bool operator==(const ByteRange& other) const { return first == other.first && end == other.end; }
};

// Fewer, larger ranges that cover the same bytes: sorted, empty ones
// dropped, those that overlap, touch or lie at most `max_gap` bytes apart
// merged; then, while more than `max_ranges` (at least 1) remain, the two
// closest merged. The bytes of the gaps are fetched too: a request costs a
// round trip, a small gap costs less.
std::vector<ByteRange>
coalesce_ranges(std::vector<ByteRange> ranges, std::uint64_t max_gap, std::size_t max_ranges);

// The members of a wheel an SDK import reads: what classify_entry keeps
// (it refuses an archive whose entries would escape), and the RECORD that
// the import checks them against; by offset.
std::vector<ZipMember>
subset_members(const ZipDirectory& directory);

// Writes a zip of some members of an archive: their local records (header,
// data, data descriptor) copied byte for byte as the archive's bytes are fed
// in, then a fresh central directory. The file is removed again unless
// finish() completes.
class SubsetWriter
{
public:
  // `members` sorted by offset, as subset_members gives them; `subject` (the
  // archive) is named in errors.
  SubsetWriter(std::string subject, std::filesystem::path path, std::vector<ZipMember> members);
  ~SubsetWriter();
  SubsetWriter(const SubsetWriter&) = delete;
  SubsetWriter& operator=(const SubsetWriter&) = delete;

  // The archive's bytes from `offset` on, fed in increasing order; bytes
  // outside the members are passed over, bytes fed again are ignored, and a
  // member's bytes skipped are Error(system).
  void feed(std::uint64_t offset, std::string_view bytes);

  // Checks that every member came whole with a local header agreeing with
  // the central directory (Error(usage) otherwise), writes the central
  // directory and closes the file. Returns its size.
  std::uint64_t finish();

private:
  void write(std::string_view bytes);
  std::size_t header_wanted() const; // the bytes of the current member's local header
  void member_done();

  std::string m_subject;
  std::filesystem::path m_path;
  std::vector<ZipMember> m_members;
  UniqueFile m_file;
  std::vector<std::uint64_t> m_offsets; // where each member's record starts in the new file
  std::uint64_t m_written = 0;
  std::size_t m_index = 0;  // the member being copied
  std::uint64_t m_next = 0; // the archive offset of its next byte
  std::string m_header;     // its local header, gathered as it passes
  bool m_finished = false;
};

} // namespace opkit::sdk
