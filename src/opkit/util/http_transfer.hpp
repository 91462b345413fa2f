#pragma once

// libcurl plumbing shared by util/http*.cpp: handles, one request's answer
// (Attempt) and the retry loop (the progress bar: http_progress.hpp). Internal to util/http*:
// nothing outside them includes this file, so libcurl stays there.

#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/http_progress.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace opkit::http_detail {

const size_t k_body_limit = size_t{64} * 1024; // enough for any error document worth showing

struct CurlDeleter
{
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

struct CurlListDeleter
{
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlList = std::unique_ptr<curl_slist, CurlListDeleter>;

struct CurlUrlDeleter
{
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
using UrlHandle = std::unique_ptr<CURLU, CurlUrlDeleter>;

// `url` parsed by libcurl (CURLU_* `flags`); Error(usage) naming it when it does not parse.
UrlHandle
parse_url(const std::string& url, unsigned int flags);

// curl_global_init, once, before any handle; a fresh handle.
void
global_init();
CurlHandle
new_handle();

template<typename T>
void
set_option(CURL* curl, CURLoption option, T value)
{
  CURLcode rc = curl_easy_setopt(curl, option, value);
  if (rc != CURLE_OK) {
    fail(ExitCode::system, "libcurl: cannot set option {}: {}", static_cast<int>(option), curl_easy_strerror(rc));
  }
}

// What one request ended with: a transport error, or an HTTP answer.
struct Attempt
{
  CURLcode code = CURLE_OK;
  char error[CURL_ERROR_SIZE] = {}; // libcurl's detailed message, better than curl_easy_strerror
  long status = 0;
  std::string reason;
  std::string body;
  size_t body_limit = k_body_limit;
  bool body_must_fit = false; // a 2xx body over the limit fails the request instead of being cut
  bool body_too_big = false;
  curl_off_t retry_after_s = 0;
  std::string location;
  std::string final_url;  // where redirects led; empty when there were none
  CURL* handle = nullptr; // the handle making the request
  // Read (curl_easy_header) as each answer's headers end, before its body (a
  // download's sink needs them): after redirects they are the last answer's.
  long header_status = 0;
  std::string content_range;
  std::string content_type;
  ProgressBar* progress = nullptr;
};

bool
equals_ignoring_case(std::string_view a, std::string_view b);

// Collects an answer's body into attempt.body, up to its limit (a CURLOPT_WRITEFUNCTION).
size_t
on_body(char* data, size_t size, size_t count, void* user);

// Transport failures worth another try: the network or the server may recover.
bool
is_transient(CURLcode code);

// The cause of a failed attempt, for the error message.
std::string
describe_failure(const Attempt& attempt);

// For GETs: a package index answers a file's URL with a redirect to a file host.
void
follow_redirects(CURL* curl);

void
check_ca_file(const HttpOptions& options);

// What the retry loop does after an attempt.
enum class Verdict
{
  done,   // the answer is the result
  retry,  // a transient failure: try again after a backoff, while retries are left
  resume, // cut off after progress, or to be asked again differently: try again at once (k_max_resumes)
  fail,   // final: report it
};

// done for a 2xx, retry for what should_retry allows, else fail.
Verdict
default_verdict(const Attempt& attempt);

// One kind of request for perform_with_retries.
struct Transfer
{
  std::string_view operation;                   // named in the error: "upload failed"
  bool download = false;                        // the progress bar counts bytes received, not sent
  std::function<void(CURL*, Attempt&)> prepare; // method, body and sinks, on each fresh handle
  std::function<Verdict(Attempt&)> judge;       // empty: default_verdict
  CURL* handle = nullptr;                       // reuse this handle (and its open connection) on every
                                                // attempt, reset first; null: a fresh handle per attempt
};

// Runs one request per attempt until one succeeds or fails for good, then
// returns the answer judged done (by default a 2xx) or throws Error(failed)
// naming the transfer's operation. Its `prepare` sets the method, the body
// and the sinks on each fresh handle (and rewinds any body).
HttpResult
perform_with_retries(const std::string& url, const HttpOptions& options, const Transfer& transfer);

} // namespace opkit::http_detail
