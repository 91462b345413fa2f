#include "opkit/elf/fatbin.hpp"

#include <cstring>

namespace opkit::elf {

namespace {

constexpr uint32_t k_fatbin_magic = 0xBA55ED50;
constexpr size_t k_fatbin_container_header = 16; // magic, version, header size, fat size
constexpr size_t k_fatbin_entry_header = 32;     // the fields read below, all within it
constexpr size_t k_max_fatbin_entries = 100000;

template<typename T>
T
load_fatbin_field(std::string_view bytes, size_t at)
{
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof value); // the caller checked the bounds
  return value;
}

// The entries of one container's payload [begin, end).
void
read_fatbin_container(std::string_view bytes, size_t begin, size_t end, std::vector<FatbinEntry>& entries)
{
  size_t at = begin;
  while (end - at >= k_fatbin_entry_header && entries.size() < k_max_fatbin_entries) {
    uint16_t kind = load_fatbin_field<uint16_t>(bytes, at);
    uint32_t header_size = load_fatbin_field<uint32_t>(bytes, at + 4);
    uint64_t payload_size = load_fatbin_field<uint64_t>(bytes, at + 8);
    if ((kind != 1 && kind != 2) || header_size < k_fatbin_entry_header || header_size > end - at
        || payload_size > end - at - header_size) {
      return;
    }
    FatbinEntry entry;
    entry.ptx = kind == 1;
    entry.minor = load_fatbin_field<uint16_t>(bytes, at + 24);
    entry.major = load_fatbin_field<uint16_t>(bytes, at + 26);
    entry.arch = static_cast<int>(load_fatbin_field<uint32_t>(bytes, at + 28) & 0xffff);
    entries.push_back(entry);
    at += header_size + payload_size;
  }
}

} // namespace

std::vector<FatbinEntry>
read_fatbin_entries(std::string_view section)
{
  std::vector<FatbinEntry> entries;
  size_t at = 0;
  // Linked objects' containers follow one another, each 8-aligned; padding between is skipped.
  while (at < section.size() && section.size() - at >= k_fatbin_container_header
         && entries.size() < k_max_fatbin_entries) {
    if (load_fatbin_field<uint32_t>(section, at) != k_fatbin_magic) {
      at += 8;
      continue;
    }
    uint16_t header_size = load_fatbin_field<uint16_t>(section, at + 6);
    uint64_t fat_size = load_fatbin_field<uint64_t>(section, at + 8);
    if (header_size < k_fatbin_container_header || header_size > section.size() - at
        || fat_size > section.size() - at - header_size) {
      break;
    }
    read_fatbin_container(section, at + header_size, at + header_size + fat_size, entries);
    at += header_size + fat_size;
    at += (8 - at % 8) % 8;
  }
  return entries;
}

} // namespace opkit::elf
