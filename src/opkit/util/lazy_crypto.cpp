// The libcrypto (OpenSSL) functions util/hash.cpp calls, forwarding to
// libcrypto opened on first use (util/lazy_library.hpp says why).

#include "opkit/util/lazy_library.hpp"

#include <openssl/evp.h>

namespace {

constexpr opkit::LazyLibrary k_crypto(OPKIT_CRYPTO_SONAME, "libssl3");

} // namespace

extern "C"
{

  OPKIT_LAZY_FORWARD(k_crypto, EVP_MD_CTX*, EVP_MD_CTX_new, (), ())
  OPKIT_LAZY_FORWARD(k_crypto, void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))
  OPKIT_LAZY_FORWARD(k_crypto, const EVP_MD*, EVP_sha256, (), ())
  OPKIT_LAZY_FORWARD(k_crypto, int, EVP_DigestInit_ex, (EVP_MD_CTX * ctx, const EVP_MD* type, ENGINE* engine),
                     (ctx, type, engine))
  OPKIT_LAZY_FORWARD(k_crypto, int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void* data, size_t size),
                     (ctx, data, size))
  OPKIT_LAZY_FORWARD(k_crypto, int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char* digest, unsigned int* size),
                     (ctx, digest, size))
  OPKIT_LAZY_FORWARD(k_crypto, int, EVP_EncodeBlock, (unsigned char* out, const unsigned char* in, int size),
                     (out, in, size))

} // extern "C"
