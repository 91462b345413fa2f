#pragma once

// libcurl, loaded the first time opkit speaks HTTP (sdk fetch, publish), not
// at start-up: its 30-odd libraries would cost every command, `opkit build`
// and `opkit check` included, ~8 ms before main(). Internal to util/http*.

#include <curl/curl.h>

namespace opkit::http_detail {

// The libcurl functions opkit calls, typed as curl.h declares them.
struct CurlApi
{
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_free) free;
  decltype(&::curl_url) url;
  decltype(&::curl_url_cleanup) url_cleanup;
  decltype(&::curl_url_get) url_get;
  decltype(&::curl_url_set) url_set;
  decltype(&::curl_url_strerror) url_strerror;
};

// libcurl.so.4, loaded once (thread-safe). Error(missing) naming the library
// and the package when it cannot be loaded or lacks a function.
const CurlApi& curl_api();

} // namespace opkit::http_detail
