#include "opkit/elf/fatbin.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using opkit::elf::FatbinEntry;
using opkit::elf::read_fatbin_entries;

namespace {

template<typename T>
void
put(std::string& bytes, size_t at, T value)
{
  if (bytes.size() < at + sizeof value) {
    bytes.resize(at + sizeof value);
  }
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

// One entry as nvcc lays it out: kind, header size, payload size, then the
// version (minor, major) and the sm at 24..31; `payload` bytes follow.
std::string
entry(uint16_t kind, uint16_t major, uint16_t minor, uint32_t arch, size_t payload)
{
  std::string bytes(64 + payload, '\0');
  put<uint16_t>(bytes, 0, kind);
  put<uint16_t>(bytes, 2, 0x0101);
  put<uint32_t>(bytes, 4, 64);
  put<uint64_t>(bytes, 8, payload);
  put<uint16_t>(bytes, 24, minor);
  put<uint16_t>(bytes, 26, major);
  put<uint32_t>(bytes, 28, arch);
  return bytes;
}

std::string
container(const std::string& entries)
{
  std::string bytes(16, '\0');
  put<uint32_t>(bytes, 0, 0xBA55ED50);
  put<uint16_t>(bytes, 4, 1);
  put<uint16_t>(bytes, 6, 16);
  put<uint64_t>(bytes, 8, entries.size());
  return bytes + entries;
}

} // namespace

TEST(ElfFatbin, ReadsThePtxIsaAndTheCubinsOfEachContainer)
{
  // As CUDA 11.8's nvcc writes it: an sm_52 cubin, then compute_52 PTX 7.8.
  std::string first = container(entry(2, 1, 7, 52, 40) + entry(1, 7, 8, 52, 24));
  std::string second = container(entry(1, 9, 0, 75, 8)); // another object's, CUDA 13's
  std::string padding(8 - first.size() % 8 == 8 ? 0 : 8 - first.size() % 8, '\0');
  std::vector<FatbinEntry> entries = read_fatbin_entries(first + padding + std::string(8, '\0') + second);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_FALSE(entries[0].ptx);
  EXPECT_EQ(entries[0].arch, 52);
  EXPECT_TRUE(entries[1].ptx);
  EXPECT_EQ(entries[1].major, 7);
  EXPECT_EQ(entries[1].minor, 8);
  EXPECT_TRUE(entries[2].ptx);
  EXPECT_EQ(entries[2].major, 9);
  EXPECT_EQ(entries[2].arch, 75);
}

TEST(ElfFatbin, DamagedBytesEndTheWalkWithoutACrash)
{
  std::string good = container(entry(1, 7, 8, 52, 24));
  EXPECT_TRUE(read_fatbin_entries("").empty());
  EXPECT_TRUE(read_fatbin_entries(std::string(7, '\xff')).empty());
  for (size_t cut = 0; cut < good.size(); ++cut) { // every truncation: no entry read past the end
    std::vector<FatbinEntry> entries = read_fatbin_entries(good.substr(0, cut));
    EXPECT_TRUE(entries.empty()) << cut;
  }
  std::string huge = good;
  put<uint64_t>(huge, 8, ~uint64_t{0}); // the container's size
  EXPECT_TRUE(read_fatbin_entries(huge).empty());
  huge = good;
  put<uint64_t>(huge, 16 + 8, ~uint64_t{0} - 10); // the entry's payload size: wraps if added unchecked
  EXPECT_TRUE(read_fatbin_entries(huge).empty());
  huge = good;
  put<uint32_t>(huge, 16 + 4, 8); // an entry header shorter than its fields
  EXPECT_TRUE(read_fatbin_entries(huge).empty());
  std::string unknown_kind = container(entry(7, 7, 8, 52, 0));
  EXPECT_TRUE(read_fatbin_entries(unknown_kind).empty());
}
