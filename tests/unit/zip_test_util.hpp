#pragma once

// Hand-built zip archives for the zip parser's tests: every field where the
// test says, so hostile variants can be made by patching one of them.
// Members are stored (method 0) with CRC 0: the parser does not read data.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::test {

inline void
put_le(std::string& out, std::uint64_t value, int width)
{
  for (int i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

// Overwrites a little-endian field in place.
inline void
poke(std::string& bytes, std::size_t at, std::uint64_t value, int width)
{
  for (int i = 0; i < width; ++i) {
    bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
}

struct TestEntry
{
  std::string name;
  std::string data;
  std::uint16_t flags = 0;
  std::string after = {};       // bytes after the data (a data descriptor, or junk)
  std::string local_extra = {}; // the local header's extra field
};

struct TestZip
{
  std::string bytes;
  std::vector<std::size_t> offsets; // each entry's local header
  std::vector<std::size_t> records; // each entry's central directory record
  std::size_t directory_offset = 0;
  std::size_t end_record = 0; // the End Of Central Directory record
};

// zip64: the central records keep sizes and offsets in ZIP64 extra fields,
// and ZIP64 end records (with a locator) precede the classic one.
inline TestZip
build_zip(const std::vector<TestEntry>& entries, std::string_view comment = "", bool zip64 = false)
{
  TestZip zip;
  for (const TestEntry& e : entries) {
    zip.offsets.push_back(zip.bytes.size());
    put_le(zip.bytes, 0x04034b50, 4);
    put_le(zip.bytes, 20, 2);
    put_le(zip.bytes, e.flags, 2);
    put_le(zip.bytes, 0, 2); // stored
    put_le(zip.bytes, 0, 4); // time, date
    put_le(zip.bytes, 0, 4); // crc
    put_le(zip.bytes, e.data.size(), 4);
    put_le(zip.bytes, e.data.size(), 4);
    put_le(zip.bytes, e.name.size(), 2);
    put_le(zip.bytes, e.local_extra.size(), 2);
    zip.bytes += e.name + e.local_extra + e.data + e.after;
  }
  zip.directory_offset = zip.bytes.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const TestEntry& e = entries[i];
    zip.records.push_back(zip.bytes.size());
    std::string extra;
    if (zip64) {
      put_le(extra, 1, 2);
      put_le(extra, 24, 2);
      put_le(extra, e.data.size(), 8);
      put_le(extra, e.data.size(), 8);
      put_le(extra, zip.offsets[i], 8);
    }
    put_le(zip.bytes, 0x02014b50, 4);
    put_le(zip.bytes, 0x031e, 2);
    put_le(zip.bytes, zip64 ? 45 : 20, 2);
    put_le(zip.bytes, e.flags, 2);
    put_le(zip.bytes, 0, 2);
    put_le(zip.bytes, 0, 4);
    put_le(zip.bytes, 0, 4);
    put_le(zip.bytes, zip64 ? 0xffffffff : e.data.size(), 4);
    put_le(zip.bytes, zip64 ? 0xffffffff : e.data.size(), 4);
    put_le(zip.bytes, e.name.size(), 2);
    put_le(zip.bytes, extra.size(), 2);
    put_le(zip.bytes, 0, 2); // comment
    put_le(zip.bytes, 0, 2); // disk
    put_le(zip.bytes, 0, 2);
    put_le(zip.bytes, 0100644u << 16, 4);
    put_le(zip.bytes, zip64 ? 0xffffffff : zip.offsets[i], 4);
    zip.bytes += e.name + extra;
  }
  std::size_t directory_size = zip.bytes.size() - zip.directory_offset;
  if (zip64) {
    std::size_t record_at = zip.bytes.size();
    put_le(zip.bytes, 0x06064b50, 4);
    put_le(zip.bytes, 44, 8);
    put_le(zip.bytes, 45, 2);
    put_le(zip.bytes, 45, 2);
    put_le(zip.bytes, 0, 4);
    put_le(zip.bytes, 0, 4);
    put_le(zip.bytes, entries.size(), 8);
    put_le(zip.bytes, entries.size(), 8);
    put_le(zip.bytes, directory_size, 8);
    put_le(zip.bytes, zip.directory_offset, 8);
    put_le(zip.bytes, 0x07064b50, 4);
    put_le(zip.bytes, 0, 4);
    put_le(zip.bytes, record_at, 8);
    put_le(zip.bytes, 1, 4);
  }
  zip.end_record = zip.bytes.size();
  put_le(zip.bytes, 0x06054b50, 4);
  put_le(zip.bytes, 0, 4); // disks
  put_le(zip.bytes, zip64 ? 0xffff : entries.size(), 2);
  put_le(zip.bytes, zip64 ? 0xffff : entries.size(), 2);
  put_le(zip.bytes, zip64 ? 0xffffffff : directory_size, 4);
  put_le(zip.bytes, zip64 ? 0xffffffff : zip.directory_offset, 4);
  put_le(zip.bytes, comment.size(), 2);
  zip.bytes += comment;
  return zip;
}

} // namespace opkit::test
