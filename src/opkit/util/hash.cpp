#include "opkit/util/hash.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/format.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace opkit {

namespace {

struct DigestContextDeleter
{
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

} // namespace

// Incremental SHA-256 through the EVP API (the low-level SHA256_* calls are
// deprecated in OpenSSL 3). Failures here mean OpenSSL itself is broken.
struct Sha256Hasher::Context
{
  std::unique_ptr<EVP_MD_CTX, DigestContextDeleter> ctx{EVP_MD_CTX_new()};
};

Sha256Hasher::Sha256Hasher()
  : m_context(std::make_unique<Context>())
{
  if (!m_context->ctx || EVP_DigestInit_ex(m_context->ctx.get(), EVP_sha256(), nullptr) != 1) {
    fail(ExitCode::system, "OpenSSL: cannot initialise SHA-256");
  }
}

Sha256Hasher::~Sha256Hasher() = default;

void
Sha256Hasher::update(const void* data, size_t size)
{
  if (EVP_DigestUpdate(m_context->ctx.get(), data, size) != 1) {
    fail(ExitCode::system, "OpenSSL: SHA-256 update failed");
  }
}

Sha256Digest
Sha256Hasher::finish()
{
  Sha256Digest digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(m_context->ctx.get(), digest.data(), &length) != 1 || length != digest.size()) {
    fail(ExitCode::system, "OpenSSL: SHA-256 final failed");
  }
  return digest;
}

Sha256Digest
sha256_digest(std::string_view data)
{
  Sha256Hasher hasher;
  hasher.update(data.data(), data.size());
  return hasher.finish();
}

Sha256Digest
sha256_digest_file(const std::filesystem::path& path)
{
  UniqueFile file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    fail(ExitCode::system, "{}: cannot open: {}", path, std::strerror(errno));
  }
  Sha256Hasher hasher;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    hasher.update(buffer, n);
  }
  if (std::ferror(file.get())) {
    fail(ExitCode::system, "{}: cannot read: {}", path, std::strerror(errno));
  }
  return hasher.finish();
}

std::string
to_hex(const Sha256Digest& digest)
{
  static const char k_digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    hex.push_back(k_digits[byte >> 4]);
    hex.push_back(k_digits[byte & 0xf]);
  }
  return hex;
}

std::string
to_base64(const Sha256Digest& digest)
{
  // EVP_EncodeBlock writes 4 characters per 3 bytes, padded, plus a NUL.
  unsigned char encoded[4 * ((sizeof(Sha256Digest) + 2) / 3) + 1];
  int length = EVP_EncodeBlock(encoded, digest.data(), static_cast<int>(digest.size()));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(length));
}

std::string
to_base64url(const Sha256Digest& digest)
{
  std::string text = to_base64(digest);
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  text.erase(text.find_last_not_of('=') + 1);
  return text;
}

std::string
sha256_hex(std::string_view data)
{
  return to_hex(sha256_digest(data));
}

std::string
sha256_hex_file(const std::filesystem::path& path)
{
  return to_hex(sha256_digest_file(path));
}

std::string
fnv1a64_hex(std::string_view data)
{
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : data) {
    hash = (hash ^ c) * 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

} // namespace opkit
