// The libcurl functions util/http*.cpp call, forwarding to libcurl opened on
// first use (util/lazy_library.hpp says why). opkit is not linked with libcurl.

#include "opkit/util/lazy_library.hpp"

#include <curl/curl.h>

#include <cstdarg>

namespace {

constexpr opkit::LazyLibrary k_curl(OPKIT_CURL_SONAME, "libcurl4");

} // namespace

extern "C"
{

  OPKIT_LAZY_FORWARD(k_curl, CURLcode, curl_global_init, (long flags), (flags))
  OPKIT_LAZY_FORWARD(k_curl, CURL*, curl_easy_init, (), ())
  OPKIT_LAZY_FORWARD(k_curl, void, curl_easy_cleanup, (CURL * handle), (handle))
  OPKIT_LAZY_FORWARD(k_curl, void, curl_easy_reset, (CURL * handle), (handle))

  // A variadic function cannot pass its arguments on; libcurl takes exactly one
  // after the option, of the type the option's number range says (curl.h's
  // CURLOPTTYPE_*), and reads it the same way.
  CURLcode curl_easy_setopt(CURL* handle, CURLoption option, ...)
  {
    OPKIT_LAZY_REAL(k_curl, curl_easy_setopt);
    va_list args;
    va_start(args, option);
    CURLcode result = CURLE_OK;
    if (option < CURLOPTTYPE_OBJECTPOINT) {
      result = real(handle, option, va_arg(args, long));
    } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
      result = real(handle, option, va_arg(args, void*));
    } else if (option < CURLOPTTYPE_OFF_T) {
      result = real(handle, option, va_arg(args, void (*)()));
    } else if (option < CURLOPTTYPE_BLOB) {
      result = real(handle, option, va_arg(args, curl_off_t));
    } else {
      result = real(handle, option, va_arg(args, void*));
    }
    va_end(args);
    return result;
  }

  OPKIT_LAZY_FORWARD(k_curl, CURLcode, curl_easy_perform, (CURL * handle), (handle))

  // Every CURLINFO_* takes one pointer to where the answer goes.
  CURLcode curl_easy_getinfo(CURL* handle, CURLINFO info, ...)
  {
    OPKIT_LAZY_REAL(k_curl, curl_easy_getinfo);
    va_list args;
    va_start(args, info);
    CURLcode result = real(handle, info, va_arg(args, void*));
    va_end(args);
    return result;
  }

  OPKIT_LAZY_FORWARD(k_curl, CURLHcode, curl_easy_header,
                     (CURL * handle, const char* name, size_t index, unsigned int origin, int request,
                      curl_header** header),
                     (handle, name, index, origin, request, header))
  OPKIT_LAZY_FORWARD(k_curl, const char*, curl_easy_strerror, (CURLcode code), (code))
  OPKIT_LAZY_FORWARD(k_curl, curl_slist*, curl_slist_append, (curl_slist * list, const char* data), (list, data))
  OPKIT_LAZY_FORWARD(k_curl, void, curl_slist_free_all, (curl_slist * list), (list))
  OPKIT_LAZY_FORWARD(k_curl, CURLU*, curl_url, (), ())
  OPKIT_LAZY_FORWARD(k_curl, void, curl_url_cleanup, (CURLU * handle), (handle))
  OPKIT_LAZY_FORWARD(k_curl, CURLUcode, curl_url_set,
                     (CURLU * handle, CURLUPart what, const char* part, unsigned int flags),
                     (handle, what, part, flags))
  OPKIT_LAZY_FORWARD(k_curl, CURLUcode, curl_url_get, (CURLU * handle, CURLUPart what, char** part, unsigned int flags),
                     (handle, what, part, flags))
  OPKIT_LAZY_FORWARD(k_curl, const char*, curl_url_strerror, (CURLUcode code), (code))
  OPKIT_LAZY_FORWARD(k_curl, void, curl_free, (void* pointer), (pointer))

} // extern "C"
