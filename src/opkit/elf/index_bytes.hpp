#pragma once

// The byte-level pieces of opkit's symbol index (elf/symbol_index.cpp, and the
// reader of its previous format, elf/symbol_index_v3.cpp): internal to elf/.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace opkit::elf::index_bytes {

inline constexpr uint32_t k_fnv_offset = 2166136261U;

inline uint32_t
fnv1a(std::string_view bytes, uint32_t hash = k_fnv_offset)
{
  for (char c : bytes) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619U;
  }
  return hash;
}

// A symbol name's hash, 8 bytes a step (FNV-1a's byte a step made checking
// every entry the larger part of a check that walks the index). The bytes are
// read little-endian whatever the host, so an index reads the same anywhere.
inline uint32_t
name_hash(std::string_view name)
{
  auto little_endian = [](uint64_t word) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(word);
#else
    return word;
#endif
  };
  uint64_t hash = 0x9e3779b97f4a7c15ULL ^ name.size();
  size_t at = 0;
  for (; at + 8 <= name.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, name.data() + at, 8);
    hash = (hash ^ little_endian(word)) * 0xff51afd7ed558ccdULL;
    hash ^= hash >> 32;
  }
  uint64_t tail = 0;
  for (size_t i = at; i < name.size(); ++i) {
    tail |= uint64_t{static_cast<unsigned char>(name[i])} << (8 * (i - at));
  }
  hash = (hash ^ tail) * 0xc4ceb9fe1a85ec53ULL;
  hash ^= hash >> 29;
  return static_cast<uint32_t>(hash);
}

inline uint32_t
load32(const char* at)
{
  const auto* b = reinterpret_cast<const unsigned char*>(at);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

} // namespace opkit::elf::index_bytes
