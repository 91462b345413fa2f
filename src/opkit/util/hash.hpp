#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace opkit {

// A raw SHA-256 digest, so one pass over a file can be encoded several ways
// (hex for X-Checksum-Sha256, base64 for an RFC 3230 Digest header).
using Sha256Digest = std::array<unsigned char, 32>;

// The one place OpenSSL is included. Files are read as a stream, never whole;
// a file that cannot be read is Error(system) naming the path.
Sha256Digest
sha256_digest(std::string_view data);
Sha256Digest
sha256_digest_file(const std::filesystem::path& path);

// Lowercase hex (64 characters), as sha256sum prints it.
std::string
sha256_hex(std::string_view data);
std::string
sha256_hex_file(const std::filesystem::path& path);

std::string
to_hex(const Sha256Digest& digest);
std::string
to_base64(const Sha256Digest& digest); // standard alphabet, padded
std::string
to_base64url(const Sha256Digest& digest); // URL-safe alphabet, unpadded: as a wheel's RECORD writes it

// SHA-256 of data that arrives in pieces (a file being written).
class Sha256Hasher
{
public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void update(const void* data, size_t size);
  Sha256Digest finish(); // once

private:
  struct Context;
  std::unique_ptr<Context> m_context;
};

// A stable 64-bit FNV-1a digest as 16 hex characters: for cache keys and
// folder names made of trusted text on hot paths (no OpenSSL start-up, ~1 ms).
// Not for integrity: use sha256 for anything an attacker can write.
std::string
fnv1a64_hex(std::string_view data);

} // namespace opkit
