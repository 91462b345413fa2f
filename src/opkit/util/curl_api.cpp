#include "opkit/util/curl_api.hpp"

#include "opkit/util/error.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

namespace opkit::http_detail {

namespace {

const char* const k_library = "libcurl.so.4";

template<typename F>
void
bind(void* library, F& function, const char* name)
{
  function = reinterpret_cast<F>(::dlsym(library, name));
  if (function == nullptr) {
    throw Error(ExitCode::missing, fmt::format("{}: has no {}", k_library, name),
                "install Debian's libcurl4 7.80 or newer (scripts/setup.sh does)");
  }
}

CurlApi
load()
{
  void* library = ::dlopen(k_library, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw Error(ExitCode::missing, fmt::format("{}: cannot load: {}", k_library, why != nullptr ? why : "unknown"),
                "install Debian's libcurl4 (scripts/setup.sh does)");
  }
  CurlApi api{};
  bind(library, api.global_init, "curl_global_init");
  bind(library, api.easy_init, "curl_easy_init");
  bind(library, api.easy_cleanup, "curl_easy_cleanup");
  bind(library, api.easy_reset, "curl_easy_reset");
  bind(library, api.easy_perform, "curl_easy_perform");
  bind(library, api.easy_setopt, "curl_easy_setopt");
  bind(library, api.easy_getinfo, "curl_easy_getinfo");
  bind(library, api.easy_strerror, "curl_easy_strerror");
  bind(library, api.slist_append, "curl_slist_append");
  bind(library, api.slist_free_all, "curl_slist_free_all");
  bind(library, api.free, "curl_free");
  bind(library, api.url, "curl_url");
  bind(library, api.url_cleanup, "curl_url_cleanup");
  bind(library, api.url_get, "curl_url_get");
  bind(library, api.url_set, "curl_url_set");
  bind(library, api.url_strerror, "curl_url_strerror");
  return api; // the library stays loaded for the life of the process
}

} // namespace

const CurlApi&
curl_api()
{
  static const CurlApi api = load();
  return api;
}

} // namespace opkit::http_detail
