#include "opkit/util/library_versions.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/lazy_library.hpp"

#include <openssl/crypto.h>

namespace opkit {

namespace {

// Calls the library's version function (no arguments, or one int).
template<typename Function, typename... Args>
LoadedLibrary
ask(const char* name, const char* soname, const char* package, const char* function, Args... args)
{
  LoadedLibrary library{name, soname, ""};
  try {
    const char* answer = LazyLibrary(soname, package).function<Function>(function)(args...);
    library.version = answer == nullptr ? "unknown" : answer;
  } catch (const Error& e) {
    library.version = std::string("not found: ") + e.what();
  }
  return library;
}

} // namespace

std::vector<LoadedLibrary>
loaded_library_versions()
{
  return {
    ask<const char* (*)()>("libarchive", OPKIT_ARCHIVE_SONAME, "libarchive13", "archive_version_string"),
    ask<const char* (*)()>("libcurl", OPKIT_CURL_SONAME, "libcurl4", "curl_version"),
    ask<const char* (*)(int)>("libcrypto", OPKIT_CRYPTO_SONAME, "libssl3", "OpenSSL_version", OPENSSL_VERSION),
  };
}

} // namespace opkit
