#include "opkit/sdk/zip_directory.hpp"
#include "opkit/util/error.hpp"

#include "zip_test_util.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit;
using namespace opkit::sdk;
using opkit::test::build_zip;
using opkit::test::poke;
using opkit::test::TestEntry;
using opkit::test::TestZip;

namespace {

// Parses an archive held in memory, handing the parser only its last `tail` bytes
// (all of it by default) and counting what it reads beyond them.
ZipDirectory
parse(const std::string& bytes, std::size_t tail = std::string::npos, int* reads = nullptr)
{
  tail = std::min(tail, bytes.size());
  ZipReader read = [&bytes, reads](std::uint64_t offset, std::uint64_t count) {
    if (reads != nullptr) {
      ++*reads;
    }
    return bytes.substr(offset, count);
  };
  return read_zip_directory("t.whl", bytes.size(), std::string_view(bytes).substr(bytes.size() - tail), read);
}

// The message of the Error(usage) parsing throws, or "" (a test failure) when it parses.
std::string
refusal(const std::string& bytes)
{
  try {
    parse(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "parsed";
  return "";
}

std::vector<TestEntry>
three_entries()
{
  return {{"tensorflow/include/a.h", "// a\n"},
          {"tensorflow/libtensorflow_framework.so.2", std::string(1000, 'x')},
          {"tensorflow_cpu-2.10.1.dist-info/RECORD", "a,b,c\n"}};
}

} // namespace

TEST(SdkZipDirectory, ReadsMembersAndTheirExtents)
{
  TestZip zip = build_zip(three_entries());
  ZipDirectory dir = parse(zip.bytes);
  EXPECT_EQ(dir.file_size, zip.bytes.size());
  EXPECT_EQ(dir.directory_offset, zip.directory_offset);
  EXPECT_EQ(dir.directory_size, zip.end_record - zip.directory_offset);
  EXPECT_FALSE(dir.zip64);
  EXPECT_EQ(dir.comment, "");
  ASSERT_EQ(dir.members.size(), 3u);
  EXPECT_EQ(dir.members[1].name, "tensorflow/libtensorflow_framework.so.2");
  EXPECT_EQ(dir.members[1].compressed_size, 1000u);
  EXPECT_EQ(dir.members[1].uncompressed_size, 1000u);
  EXPECT_EQ(dir.members[1].external_attributes, 0100644u << 16);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(dir.members[i].offset, zip.offsets[i]);
    EXPECT_EQ(dir.members[i].end, i + 1 < 3 ? zip.offsets[i + 1] : zip.directory_offset);
  }
}

TEST(SdkZipDirectory, ReadsWhatTheTailLacks)
{
  TestZip zip = build_zip(three_entries());
  int reads = 0;
  ZipDirectory dir = parse(zip.bytes, 22, &reads); // the end record alone
  EXPECT_EQ(dir.members.size(), 3u);
  EXPECT_GT(reads, 0);
  reads = 0;
  parse(zip.bytes, std::string::npos, &reads);
  EXPECT_EQ(reads, 0) << "the whole file was there";
}

TEST(SdkZipDirectory, AnArchiveCommentEvenOneThatLooksLikeAnEndRecord)
{
  std::string fake = "PK\x05\x06";
  fake += std::string(18, '\0'); // an "end record" inside the comment, whose own comment is empty
  std::string comment = "built by test " + fake + " trailing words";
  TestZip zip = build_zip(three_entries(), comment);
  ZipDirectory dir = parse(zip.bytes);
  EXPECT_EQ(dir.comment, comment);
  EXPECT_EQ(dir.members.size(), 3u);
  // The longest comment there can be, with the tail only just holding it.
  TestZip longest = build_zip(three_entries(), std::string(0xffff, 'c'));
  EXPECT_EQ(parse(longest.bytes, 22 + 0xffff).comment.size(), 0xffffu);
}

TEST(SdkZipDirectory, Zip64EndRecordsAndExtraFields)
{
  TestZip zip = build_zip(three_entries(), "c", /*zip64=*/true);
  ZipDirectory dir = parse(zip.bytes);
  EXPECT_TRUE(dir.zip64);
  EXPECT_EQ(dir.comment, "c");
  ASSERT_EQ(dir.members.size(), 3u);
  EXPECT_EQ(dir.members[1].compressed_size, 1000u);
  EXPECT_EQ(dir.members[2].offset, zip.offsets[2]);
  EXPECT_EQ(dir.members[2].end, zip.directory_offset);
}

TEST(SdkZipDirectory, RefusesTruncatedArchives)
{
  TestZip zip = build_zip(three_entries(), "comment");
  for (std::size_t size = 0; size < zip.bytes.size(); ++size) {
    std::string cut = zip.bytes.substr(0, size);
    EXPECT_NE(refusal(cut).find("t.whl: damaged archive: "), std::string::npos) << size;
  }
  TestZip zip64 = build_zip(three_entries(), "", true);
  for (std::size_t from = 0; from < zip64.bytes.size(); from += 7) { // bytes cut from the front
    std::string cut = zip64.bytes.substr(from);
    if (from > 0) {
      refusal(cut);
    }
  }
}

TEST(SdkZipDirectory, RefusesOffsetsPastTheEnd)
{
  TestZip zip = build_zip(three_entries());
  std::string bad = zip.bytes;
  poke(bad, zip.end_record + 16, 0x7fffffff, 4); // the directory's offset
  EXPECT_NE(refusal(bad).find("does not end where its end record starts"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.end_record + 12, 0x7fffffff, 4); // the directory's size
  refusal(bad);
  bad = zip.bytes;
  poke(bad, zip.records[2] + 42, 0x7ffffff0, 4); // a member's offset
  EXPECT_NE(refusal(bad).find("lies outside the archive's data"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[1] + 20, 0xfffffff0, 4); // a member's compressed size
  EXPECT_NE(refusal(bad).find("lies outside the archive's data"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[0] + 28, 0xffff, 2); // a name running past the directory
  EXPECT_NE(refusal(bad).find("truncated"), std::string::npos);

  TestZip zip64 = build_zip(three_entries(), "", true);
  bad = zip64.bytes;
  poke(bad, zip64.end_record - 20 + 8, 0xfffffffffffffff0ull, 8); // the locator's ZIP64 end record offset
  EXPECT_NE(refusal(bad).find("ZIP64 end record lies outside the file"), std::string::npos);
  bad = zip64.bytes;
  poke(bad, zip64.end_record - 20 - 56 + 48, 0xfffffffffffff000ull, 8); // the ZIP64 directory offset
  refusal(bad);
  bad = zip64.bytes;
  poke(bad, zip64.records[0] + 46 + 22 + 4 + 16, 0xfffffffffff00000ull, 8); // an offset in a ZIP64 extra field
  EXPECT_NE(refusal(bad).find("lies outside the archive's data"), std::string::npos);
  bad = zip64.bytes;
  poke(bad, zip64.records[0] + 46 + 22 + 2, 8, 2); // a ZIP64 extra field too short for the fields it must hold
  refusal(bad);
}

TEST(SdkZipDirectory, RefusesHugeCounts)
{
  TestZip zip = build_zip(three_entries());
  std::string bad = zip.bytes;
  poke(bad, zip.end_record + 8, 0xfffe, 2);
  poke(bad, zip.end_record + 10, 0xfffe, 2);
  EXPECT_NE(refusal(bad).find("65534 members cannot fit a central directory of"), std::string::npos);
  TestZip zip64 = build_zip(three_entries(), "", true);
  bad = zip64.bytes;
  std::size_t record = zip64.end_record - 20 - 56;
  poke(bad, record + 24, 0x0fffffffffffffffull, 8);
  poke(bad, record + 32, 0x0fffffffffffffffull, 8);
  EXPECT_NE(refusal(bad).find("members cannot fit"), std::string::npos);
  bad = zip64.bytes;
  poke(bad, record + 40, 0x7000000000000000ull, 8); // a directory size no file here has
  refusal(bad);
  // Fewer records than the count says, or more bytes than the records take.
  bad = zip.bytes;
  poke(bad, zip.end_record + 8, 2, 2);
  poke(bad, zip.end_record + 10, 2, 2);
  EXPECT_NE(refusal(bad).find("the central directory's 2 records take"), std::string::npos);
}

TEST(SdkZipDirectory, RefusesOverlappingMembers)
{
  TestZip zip = build_zip(three_entries());
  std::string bad = zip.bytes;
  poke(bad, zip.records[2] + 42, zip.offsets[1], 4); // two members at one offset
  EXPECT_NE(refusal(bad).find("overlaps member"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[1] + 42, zip.offsets[0] + 10, 4); // one starting inside another
  EXPECT_NE(refusal(bad).find("overlaps member"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[0] + 20, 200, 4); // data running into the next member
  EXPECT_NE(refusal(bad).find("'tensorflow/include/a.h' overlaps member 'tensorflow/libtensorflow_framework.so.2'"),
            std::string::npos);
}

TEST(SdkZipDirectory, RefusesOtherDamage)
{
  TestZip zip = build_zip(three_entries());
  std::string bad = zip.bytes;
  poke(bad, zip.end_record + 4, 1, 2); // disk 1
  EXPECT_NE(refusal(bad).find("spans several disks"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[1], 0x12345678, 4);
  EXPECT_NE(refusal(bad).find("central directory record 1 has no signature"), std::string::npos);
  bad = zip.bytes + "trailing junk";
  EXPECT_NE(refusal(bad).find("no end of central directory record"), std::string::npos);
  bad = zip.bytes;
  poke(bad, zip.records[0] + 20, 0xffffffff, 4); // saturated without a ZIP64 extra field
  EXPECT_NE(refusal(bad).find("without a ZIP64 extra field"), std::string::npos);
  refusal(std::string(100, '\0'));
  refusal("");
}

TEST(SdkZipDirectory, NeverCrashesOnDamagedBytes)
{
  // Every byte of the directory and end records, set to values that matter
  // to a parser: each variant parses or is refused with Error(usage).
  for (bool zip64 : {false, true}) {
    TestZip zip = build_zip(three_entries(), "x", zip64);
    for (std::size_t at = zip.directory_offset; at < zip.bytes.size(); ++at) {
      for (unsigned char value : {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff}) {
        std::string bad = zip.bytes;
        bad[at] = static_cast<char>(value);
        try {
          parse(bad, std::string::npos);
          parse(bad, 30);
        } catch (const Error& e) {
          ASSERT_EQ(e.code(), ExitCode::usage) << e.what();
        }
      }
    }
  }
}

TEST(SdkZipDirectory, LocalHeadersAreCheckedAgainstTheDirectory)
{
  std::string descriptor(16, '\0');
  poke(descriptor, 0, 0x08074b50, 4);
  std::vector<TestEntry> entries = three_entries();
  entries[0].flags = 1 << 3;
  entries[0].after = descriptor;
  entries[1].local_extra = std::string(8, 'e'); // the local extra field differs from the central one: allowed
  TestZip zip = build_zip(entries);
  ZipDirectory dir = parse(zip.bytes);
  for (std::size_t i = 0; i < 3; ++i) {
    const ZipMember& m = dir.members[i];
    std::size_t size = local_header_size("t.whl", m, std::string_view(zip.bytes).substr(m.offset, 30));
    EXPECT_EQ(size, 30 + m.name.size() + entries[i].local_extra.size());
    check_local_header("t.whl", m, std::string_view(zip.bytes).substr(m.offset, size));
  }
  // Junk after a member's data, a local header naming another file, no signature.
  entries = three_entries();
  entries[1].after = "junk";
  zip = build_zip(entries);
  dir = parse(zip.bytes);
  const ZipMember& m = dir.members[1];
  std::string header = zip.bytes.substr(m.offset, 30 + m.name.size());
  try {
    check_local_header("t.whl", m, header);
    ADD_FAILURE() << "junk accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fill its 1073 bytes (4 unexplained)"), std::string::npos)
      << e.what();
  }
  std::string renamed = header;
  renamed[30] = 'X';
  EXPECT_THROW(check_local_header("t.whl", m, renamed), Error);
  std::string unsigned_header = header;
  unsigned_header[0] = 'Q';
  EXPECT_THROW(local_header_size("t.whl", m, std::string_view(unsigned_header).substr(0, 30)), Error);
}

TEST(SdkZipDirectory, WrittenDirectoryReadsBack)
{
  TestZip zip = build_zip(three_entries());
  ZipDirectory dir = parse(zip.bytes);
  // Only the last two members, moved to the front of a new file.
  std::vector<ZipMember> kept = {dir.members[1], dir.members[2]};
  std::string file = zip.bytes.substr(kept[0].offset, kept[1].end - kept[0].offset);
  std::vector<std::uint64_t> offsets = {0, kept[1].offset - kept[0].offset};
  file += write_central_directory(kept, offsets, file.size());
  ZipDirectory again = parse(file);
  ASSERT_EQ(again.members.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again.members[i].name, kept[i].name);
    EXPECT_EQ(again.members[i].offset, offsets[i]);
    EXPECT_EQ(again.members[i].compressed_size, kept[i].compressed_size);
    EXPECT_EQ(again.members[i].external_attributes, kept[i].external_attributes);
  }
  EXPECT_FALSE(again.zip64);
}

TEST(SdkZipDirectory, WrittenDirectoryUsesZip64WhenItMust)
{
  // The parser looks at the last 64 KiB for the end record: before the tail, zeros.
  ZipReader zeros = [](std::uint64_t, std::uint64_t count) { return std::string(count, '\0'); };
  // Members past 4 GiB (their bytes are never read: only the tail is there).
  ZipMember big;
  big.name = "tensorflow/libtensorflow_framework.so.2";
  big.compressed_size = 5'000'000'000;
  big.uncompressed_size = 9'000'000'000;
  ZipMember small;
  small.name = "tensorflow/include/a.h";
  small.compressed_size = 10;
  small.uncompressed_size = 10;
  std::vector<std::uint64_t> offsets = {1000, 6'000'000'000};
  std::uint64_t directory_offset = 6'000'000'100;
  std::string tail = write_central_directory({big, small}, offsets, directory_offset);
  ZipDirectory dir = read_zip_directory("t.whl", directory_offset + tail.size(), tail, zeros);
  EXPECT_TRUE(dir.zip64);
  ASSERT_EQ(dir.members.size(), 2u);
  EXPECT_EQ(dir.members[0].compressed_size, 5'000'000'000u);
  EXPECT_EQ(dir.members[0].uncompressed_size, 9'000'000'000u);
  EXPECT_EQ(dir.members[1].offset, 6'000'000'000u);
  EXPECT_EQ(dir.members[1].end, directory_offset);

  // More members than the classic end record can count.
  std::vector<ZipMember> many(70000, small);
  std::vector<std::uint64_t> at(many.size());
  for (std::size_t i = 0; i < many.size(); ++i) {
    many[i].name = "f" + std::to_string(i);
    at[i] = i * 100;
  }
  tail = write_central_directory(many, at, many.size() * 100);
  dir = read_zip_directory("t.whl", many.size() * 100 + tail.size(), tail, zeros);
  EXPECT_TRUE(dir.zip64);
  EXPECT_EQ(dir.members.size(), 70000u);
  EXPECT_EQ(dir.members.back().name, "f69999");
}
