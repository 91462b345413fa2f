#include "opkit/util/library_versions.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/lazy_library.hpp"

#include <fmt/format.h>
#include <openssl/crypto.h>

#include <cstdlib>
#include <string>

namespace opkit {

namespace {

// The library's answer to `question` (its LazyLibrary), or why there is none.
template<typename Question>
LoadedLibrary
ask(const char* name, const char* soname, const char* package, Question question)
{
  LoadedLibrary library{name, soname, ""};
  try {
    const char* answer = question(LazyLibrary(soname, package));
    library.version = answer == nullptr ? "unknown" : answer;
  } catch (const Error& e) {
    library.version = std::string("not found: ") + e.what();
  }
  return library;
}

// Calls the library's version function (no arguments, or one int).
template<typename Function, typename... Args>
LoadedLibrary
ask_function(const char* name, const char* soname, const char* package, const char* function, Args... args)
{
  return ask(name, soname, package,
             [&](const LazyLibrary& library) { return library.function<Function>(function)(args...); });
}

// libxml2 answers with a variable, xmlParserVersion: "20914" is 2.9.14.
LoadedLibrary
xml2_version()
{
  static std::string dotted;
  return ask("libxml2", OPKIT_XML2_SONAME, "libxml2", [](const LazyLibrary& library) -> const char* {
    const char* number = *library.function<const char* const*>("xmlParserVersion");
    if (number == nullptr) {
      return nullptr;
    }
    int n = std::atoi(number);
    dotted = fmt::format("{}.{}.{} ({})", n / 10000, n / 100 % 100, n % 100, number);
    return dotted.c_str();
  });
}

} // namespace

std::vector<LoadedLibrary>
loaded_library_versions()
{
  return {
    ask_function<const char* (*)()>("libarchive", OPKIT_ARCHIVE_SONAME, "libarchive13", "archive_version_string"),
    ask_function<const char* (*)()>("libcurl", OPKIT_CURL_SONAME, "libcurl4", "curl_version"),
    ask_function<const char* (*)(int)>("libcrypto", OPKIT_CRYPTO_SONAME, "libssl3", "OpenSSL_version", OPENSSL_VERSION),
    xml2_version(),
  };
}

} // namespace opkit
