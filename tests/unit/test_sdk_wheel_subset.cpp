#include "opkit/sdk/wheel_subset.hpp"
#include "opkit/util/archive.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include "zip_test_util.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace opkit;
using namespace opkit::sdk;

namespace {

std::vector<ByteRange>
coalesce(std::vector<ByteRange> ranges, std::uint64_t max_gap = 10, std::size_t max_ranges = 100)
{
  return coalesce_ranges(std::move(ranges), max_gap, max_ranges);
}

ZipDirectory
parse(const std::string& bytes)
{
  return read_zip_directory("t.whl", bytes.size(), bytes, [](std::uint64_t, std::uint64_t) -> std::string {
    ADD_FAILURE() << "read outside the tail";
    return {};
  });
}

// Every regular entry of an archive, by path.
std::map<std::string, std::string>
entries_of(const std::filesystem::path& path)
{
  std::map<std::string, std::string> entries;
  for_each_archive_entry(path, [&entries](ArchiveEntry& entry) {
    if (!entry.is_regular) {
      return;
    }
    std::string data;
    char buffer[4096];
    size_t n = 0;
    while ((n = entry.read(buffer, sizeof buffer)) > 0) {
      data.append(buffer, n);
    }
    entries[entry.path] = data;
  });
  return entries;
}

// A wheel-like zip written by libarchive (deflated, with folder entries).
std::string
libarchive_wheel(const std::filesystem::path& dir)
{
  std::vector<ArchiveMember> members = {
    {"tensorflow/include/tensorflow/core/framework/op.h", {}, std::string(5000, 'o') + "// op.h\n", false},
    {"tensorflow/python/ops/array_ops.py", {}, std::string(20000, 'p'), false},
    {"tensorflow/libtensorflow_framework.so.2", {}, std::string(30000, '\x7f'), true},
    {"tensorflow/python/_pywrap.so", {}, std::string(40000, 'w'), true},
    {"tensorflow_cpu-2.10.1.dist-info/METADATA", {}, "Name: tensorflow-cpu\n", false},
    {"tensorflow_cpu-2.10.1.dist-info/RECORD", {}, "x,,\n", false},
    {"tensorflow_cpu-2.10.1.dist-info/top_level.txt", {}, "tensorflow\n", false},
  };
  std::filesystem::path path = dir / "wheel.whl";
  write_archive(path, ArchiveFormat::zip, members, 0);
  return fs::read_file(path);
}

} // namespace

TEST(SdkWheelSubset, CoalescesOverlappingTouchingAndNearRanges)
{
  EXPECT_TRUE(coalesce({}).empty());
  EXPECT_EQ(coalesce({{5, 10}}), (std::vector<ByteRange>{{5, 10}}));
  EXPECT_EQ(coalesce({{0, 10}, {5, 20}}), (std::vector<ByteRange>{{0, 20}}));      // overlapping
  EXPECT_EQ(coalesce({{0, 10}, {2, 3}}), (std::vector<ByteRange>{{0, 10}}));       // contained
  EXPECT_EQ(coalesce({{0, 10}, {10, 20}}, 0), (std::vector<ByteRange>{{0, 20}}));  // touching
  EXPECT_EQ(coalesce({{0, 10}, {20, 30}}, 10), (std::vector<ByteRange>{{0, 30}})); // a gap of max_gap
  EXPECT_EQ(coalesce({{0, 10}, {21, 30}}, 10), (std::vector<ByteRange>{{0, 10}, {21, 30}}));
  EXPECT_EQ(coalesce({{50, 60}, {0, 10}, {25, 30}}, 10), // unsorted
            (std::vector<ByteRange>{{0, 10}, {25, 30}, {50, 60}}));
  EXPECT_EQ(coalesce({{7, 7}, {9, 3}, {0, 1}}), (std::vector<ByteRange>{{0, 1}})); // empty ones dropped
  EXPECT_EQ(coalesce({{0, 1}, {~std::uint64_t{0} - 1, ~std::uint64_t{0}}}, ~std::uint64_t{0}),
            (std::vector<ByteRange>{{0, ~std::uint64_t{0}}})); // no overflow in first + gap
}

TEST(SdkWheelSubset, AtMostMaxRangesMergingTheClosest)
{
  std::vector<ByteRange> ranges = {{0, 10}, {100, 110}, {115, 120}, {1000, 1010}, {1030, 1040}};
  EXPECT_EQ(coalesce(ranges, 0, 3), (std::vector<ByteRange>{{0, 10}, {100, 120}, {1000, 1040}}));
  EXPECT_EQ(coalesce(ranges, 0, 2), (std::vector<ByteRange>{{0, 120}, {1000, 1040}}));
  EXPECT_EQ(coalesce(ranges, 0, 1), (std::vector<ByteRange>{{0, 1040}}));
  EXPECT_EQ(coalesce(ranges, 0, 0), (std::vector<ByteRange>{{0, 1040}}));
  EXPECT_EQ(coalesce(ranges, 0, 5).size(), 5u);
}

TEST(SdkWheelSubset, KeepsWhatTheImporterKeepsAndRecord)
{
  test::TestZip zip = test::build_zip({{"tensorflow/python/ops/array_ops.py", "x"},
                                       {"tensorflow_cpu-2.10.1.dist-info/RECORD", "r"},
                                       {"tensorflow/include/tensorflow/core/framework/op.h", "h"},
                                       {"tensorflow/libtensorflow_framework.so.2", "l"},
                                       {"tensorflow_cpu-2.10.1.dist-info/METADATA", "m"},
                                       {"tensorflow_cpu-2.10.1.dist-info/top_level.txt", "t"},
                                       {"tensorflow/python/platform/build_info.py", "b"},
                                       {"other/RECORD", "o"}});
  std::vector<std::string> names;
  for (const ZipMember& m : subset_members(parse(zip.bytes))) {
    names.push_back(m.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                     "tensorflow_cpu-2.10.1.dist-info/RECORD", "tensorflow/include/tensorflow/core/framework/op.h",
                     "tensorflow/libtensorflow_framework.so.2", "tensorflow_cpu-2.10.1.dist-info/METADATA",
                     "tensorflow/python/platform/build_info.py"}));
  // An entry that would escape the SDK folder refuses the archive, as the importer does.
  test::TestZip evil = test::build_zip({{"tensorflow/include/../../../x.h", "x"}});
  EXPECT_THROW(subset_members(parse(evil.bytes)), Error);
}

TEST(SdkWheelSubset, WritesAZipThatImportsTheKeptMembers)
{
  fs::TempDir dir;
  std::string wheel = libarchive_wheel(dir.path());
  ZipDirectory directory = parse(wheel);
  std::vector<ZipMember> members = subset_members(directory);
  // Fed as the range fetch feeds it: coalesced ranges in small pieces, then a tail again.
  std::vector<ByteRange> wanted;
  for (const ZipMember& m : members) {
    wanted.push_back({m.offset, m.end});
  }
  SubsetWriter writer("wheel.whl", dir.path() / "subset.whl", members);
  for (const ByteRange& range : coalesce_ranges(wanted, 100, 10)) {
    for (std::uint64_t at = range.first; at < range.end; at += 7) {
      writer.feed(at, std::string_view(wheel).substr(at, std::min<std::uint64_t>(7, range.end - at)));
    }
  }
  std::uint64_t tail = wheel.size() / 2;
  writer.feed(tail, std::string_view(wheel).substr(tail)); // bytes fed again are ignored
  std::uint64_t size = writer.finish();
  EXPECT_EQ(size, std::filesystem::file_size(dir.path() / "subset.whl"));
  EXPECT_LT(size, wheel.size());

  std::map<std::string, std::string> whole = entries_of(dir.path() / "wheel.whl");
  std::map<std::string, std::string> subset = entries_of(dir.path() / "subset.whl");
  EXPECT_EQ(subset.size(), 4u); // op.h, the library, METADATA, RECORD
  for (const auto& [path, data] : subset) {
    EXPECT_EQ(data, whole.at(path)) << path;
  }
  EXPECT_EQ(subset.count("tensorflow/python/_pywrap.so"), 0u);
  EXPECT_EQ(subset.at("tensorflow/libtensorflow_framework.so.2"), std::string(30000, '\x7f'));
}

TEST(SdkWheelSubset, RefusesMissingBytesAndMembersThatDoNotFillTheirPlace)
{
  fs::TempDir dir;
  test::TestZip zip = test::build_zip({{"tensorflow/include/a.h", "a"}, {"tensorflow/include/b.h", "b"}});
  std::vector<ZipMember> members = subset_members(parse(zip.bytes));
  {
    SubsetWriter writer("t.whl", dir.path() / "gap.whl", members);
    writer.feed(0, std::string_view(zip.bytes).substr(0, 10));
    EXPECT_THROW(writer.feed(20, std::string_view(zip.bytes).substr(20, 10)), Error); // bytes 10..19 never came
  }
  {
    SubsetWriter writer("t.whl", dir.path() / "short.whl", members);
    writer.feed(0, std::string_view(zip.bytes).substr(0, members[1].offset));
    EXPECT_THROW(writer.finish(), Error); // b.h never came
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "gap.whl")) << "an unfinished file is removed";
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "short.whl"));

  test::TestZip junk = test::build_zip({{"tensorflow/include/a.h", "a", 0, "junk"}, {"tensorflow/include/b.h", "b"}});
  members = subset_members(parse(junk.bytes));
  SubsetWriter writer("t.whl", dir.path() / "junk.whl", members);
  try {
    writer.feed(0, junk.bytes);
    ADD_FAILURE() << "junk after a member's data accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("t.whl: damaged archive: member 'tensorflow/include/a.h' does not fill"),
              std::string::npos)
      << e.what();
  }
}
