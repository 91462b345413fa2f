#include "opkit/util/http_transfer.hpp"

#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"
#include "opkit/util/whole_numbers.hpp"

#include <cctype>
#include <cmath>
#include <thread>

#include <unistd.h>

namespace opkit::http_detail {

namespace {

const long k_max_redirects = 5; // GETs only: a package index sends downloads to a file host
const int k_max_resumes = 20;   // attempts cut off after progress that do not use up a retry
const long k_connect_timeout_s = 30;
const double k_first_backoff_s = 0.5;
const double k_max_retry_after_s = 60; // a server's Retry-After is honoured up to this

} // namespace

// curl_global_init is not thread-safe and must run once, before any handle.
void
global_init()
{
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    fail(ExitCode::system, "libcurl: cannot initialise: {}", curl_easy_strerror(rc));
  }
}

CurlHandle
new_handle()
{
  global_init();
  CurlHandle curl(curl_easy_init());
  if (!curl) {
    fail(ExitCode::system, "libcurl: cannot create a handle");
  }
  return curl;
}

bool
equals_ignoring_case(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

namespace {

// The file a URL (as shown) names, for the progress line: "x-1.0" of ".../x-1.0-py3-none-any.whl?a=b".
std::string
shown_file_name(const std::string& url)
{
  std::string path = url.substr(0, url.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') {
    path.pop_back();
  }
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return name.empty() ? url : progress::short_file_name(name);
}

// A header of the answer whose headers libcurl has just read; empty when absent.
std::string
header_value(CURL* curl, const char* name)
{
  curl_header* header = nullptr;
  if (curl_easy_header(curl, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK || header == nullptr) {
    return {};
  }
  return trim(header->value);
}

size_t
on_header(char* data, size_t size, size_t count, void* user)
{
  auto* attempt = static_cast<Attempt*>(user);
  std::string_view line(data, size * count);
  // Each status line (a "100 Continue", redirects) starts an answer; libcurl
  // keeps its code, not its reason phrase ("HTTP/1.1 404 Not Found").
  if (starts_with(line, "HTTP/")) {
    std::vector<std::string> words = split(trim(line), ' ');
    attempt->reason = words.size() > 2 ? join(std::vector<std::string>(words.begin() + 2, words.end()), " ") : "";
    attempt->header_status = 0;
    attempt->content_range.clear();
    attempt->content_type.clear();
  } else if (trim(line).empty()) { // the blank line: this answer's headers are all in
    curl_easy_getinfo(attempt->handle, CURLINFO_RESPONSE_CODE, &attempt->header_status);
    attempt->content_range = header_value(attempt->handle, "Content-Range");
    attempt->content_type = header_value(attempt->handle, "Content-Type");
  }
  return size * count;
}

} // namespace

size_t
on_body(char* data, size_t size, size_t count, void* user)
{
  auto* attempt = static_cast<Attempt*>(user);
  size_t room = attempt->body_limit - std::min(attempt->body_limit, attempt->body.size());
  if (size * count > room && attempt->body_must_fit && attempt->header_status / 100 == 2) {
    attempt->body_too_big = true;
    return 0; // libcurl stops with CURLE_WRITE_ERROR
  }
  attempt->body.append(data, std::min(room, size * count));
  return size * count;
}

bool
is_transient(CURLcode code)
{
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

namespace {

bool
should_retry(const Attempt& attempt)
{
  if (attempt.code != CURLE_OK) {
    return is_transient(attempt.code);
  }
  // 501 Not Implemented says the method will never work here.
  return attempt.status == 429 || (attempt.status >= 500 && attempt.status != 501);
}

double
backoff_seconds(int retry, const Attempt& attempt)
{
  double delay = k_first_backoff_s * power_of_two(retry);
  return std::max(delay, std::min(static_cast<double>(attempt.retry_after_s), k_max_retry_after_s));
}

} // namespace

std::string
describe_failure(const Attempt& attempt)
{
  if (attempt.body_too_big) {
    return fmt::format("the answer is larger than {}", progress::format_mb(static_cast<double>(attempt.body_limit)));
  }
  if (attempt.code != CURLE_OK) {
    return attempt.error[0] != '\0' ? trim(attempt.error) : curl_easy_strerror(attempt.code);
  }
  return attempt.reason.empty() ? fmt::format("HTTP {}", attempt.status)
                                : fmt::format("HTTP {} {}", attempt.status, attempt.reason);
}

namespace {

// Options every request gets: TLS verified, http(s) only, no redirects (a
// redirect would re-send the body and any credential headers to another
// place without the user seeing it; GETs opt in with follow_redirects), stalls detected.
void
set_common_options(CURL* curl, const std::string& url, const HttpOptions& options, Attempt& attempt)
{
  set_option(curl, CURLOPT_URL, url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500 // 7.85: CURLOPT_PROTOCOLS is deprecated
  set_option(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  set_option(curl, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  set_option(curl, CURLOPT_FOLLOWLOCATION, 0L);
  set_option(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  set_option(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty()) {
    set_option(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  }
  set_option(curl, CURLOPT_NOSIGNAL, 1L);
  set_option(curl, CURLOPT_USERAGENT, "opkit/" OPKIT_VERSION);
  set_option(curl, CURLOPT_CONNECTTIMEOUT, k_connect_timeout_s);
  // Slower than the limit over the window: cut, and retried (a download resumes).
  set_option(curl, CURLOPT_LOW_SPEED_LIMIT, std::max(1L, static_cast<long>(rounded(options.limits.min_bytes_per_s))));
  set_option(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(rounded(options.limits.window_s))));
  set_option(curl, CURLOPT_ERRORBUFFER, attempt.error);
  set_option(curl, CURLOPT_HEADERFUNCTION, on_header);
  set_option(curl, CURLOPT_HEADERDATA, &attempt);
  set_option(curl, CURLOPT_WRITEFUNCTION, on_body);
  set_option(curl, CURLOPT_WRITEDATA, &attempt);
}

// 30, 0.5, 1000000: a setting's value as the user wrote it.
std::string
format_number(double value)
{
  return value == std::floor(value) && value < 1e15 ? fmt::format("{}", static_cast<long long>(value))
                                                    : fmt::format("{}", value);
}

Error
too_slow(const std::string& shown, std::string_view operation, const NetLimits& limits, int attempts)
{
  return Error(ExitCode::system,
               fmt::format("{}: {} failed: slower than the setting net_min_speed, {} bytes/s over {} s, "
                           "in {} attempts",
                           shown, operation, format_number(limits.min_bytes_per_s), format_number(limits.window_s),
                           attempts));
}

} // namespace

// For GETs: a package index answers a file's URL with a redirect to a file host.
void
follow_redirects(CURL* curl)
{
  set_option(curl, CURLOPT_FOLLOWLOCATION, 1L);
  set_option(curl, CURLOPT_MAXREDIRS, k_max_redirects);
#if LIBCURL_VERSION_NUM >= 0x075500 // 7.85: CURLOPT_REDIR_PROTOCOLS is deprecated
  set_option(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  set_option(curl, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

namespace {

void
record_answer(CURL* curl, Attempt& attempt)
{
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &attempt.status);
#if LIBCURL_VERSION_NUM >= 0x074200 // 7.66
  curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &attempt.retry_after_s);
#endif
  char* location = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    attempt.location = location;
  }
  long redirects = 0;
  char* final_url = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK && redirects > 0
      && curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &final_url) == CURLE_OK && final_url != nullptr) {
    attempt.final_url = final_url;
  }
}

int
on_upload_progress(void* bar, curl_off_t, curl_off_t, curl_off_t total, curl_off_t now)
{
  static_cast<ProgressBar*>(bar)->sent(now, total);
  return 0;
}

int
on_download_progress(void* bar, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t)
{
  static_cast<ProgressBar*>(bar)->received(now, total);
  return 0;
}

} // namespace

void
check_ca_file(const HttpOptions& options)
{
  if (!options.ca_file.empty() && !std::filesystem::is_regular_file(options.ca_file)) {
    fail(ExitCode::usage, "{}: CA bundle not found", options.ca_file);
  }
}

Verdict
default_verdict(const Attempt& attempt)
{
  if (attempt.code == CURLE_OK && attempt.status / 100 == 2) {
    return Verdict::done;
  }
  return should_retry(attempt) ? Verdict::retry : Verdict::fail;
}

HttpResult
perform_with_retries(const std::string& url, const HttpOptions& options, const Transfer& transfer)
{
  remember_secrets(url); // whatever shows it later (a server's error page, a log line) shows it masked
  for (const std::string& header : options.headers) {
    remember_secrets(header);
  }
  CurlList headers;
  for (const std::string& header : options.headers) {
    check_http_header(header);
    curl_slist* list = curl_slist_append(headers.get(), header.c_str());
    if (list == nullptr) {
      fail(ExitCode::system, "libcurl: out of memory");
    }
    (void)headers.release(); // the same list, now one longer
    headers.reset(list);
  }
  std::string shown = http_display_url(url);
  bool show_progress = options.progress && verbosity() >= Verbosity::normal;
  ProgressBar progress(show_progress, fmt::format("{}ing {}", transfer.operation, shown_file_name(shown)));
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
    Clock::now()
    + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.limits.deadline_s));
  auto left_ms = [&deadline] {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
  };
  Attempt attempt;
  int attempts = 0;
  int retries = 0;
  int resumes = 0;
  for (;;) {
    CurlHandle fresh;
    CURL* handle = transfer.handle;
    if (handle != nullptr) {
      curl_easy_reset(handle); // the options go; the open connection stays
    } else {
      fresh = new_handle();
      handle = fresh.get();
    }
    attempt = Attempt();
    attempt.progress = &progress;
    attempt.handle = handle;
    set_common_options(handle, url, options, attempt);
    set_option(handle, CURLOPT_HTTPHEADER, headers.get());
    if (show_progress) {
      set_option(handle, CURLOPT_NOPROGRESS, 0L);
      set_option(handle, CURLOPT_XFERINFOFUNCTION, transfer.download ? &on_download_progress : &on_upload_progress);
      set_option(handle, CURLOPT_XFERINFODATA, &progress);
    }
    if (left_ms() <= 0) {
      throw past_net_deadline(shown, transfer.operation, options.limits);
    }
    set_option(handle, CURLOPT_TIMEOUT_MS, left_ms()); // the whole operation's time left, not each attempt's
    progress.restart();
    transfer.prepare(handle, attempt);
    ++attempts;
    attempt.code = curl_easy_perform(handle);
    if (attempt.code == CURLE_OPERATION_TIMEDOUT && left_ms() <= 0) {
      throw past_net_deadline(shown, transfer.operation, options.limits);
    }
    if (attempt.code == CURLE_OK) {
      record_answer(handle, attempt);
    }
    Verdict verdict = transfer.judge ? transfer.judge(attempt) : default_verdict(attempt);
    log_debug("{} {}: attempt {}: {}", transfer.operation, shown, attempts,
              verdict == Verdict::done ? fmt::format("HTTP {}", attempt.status) : describe_failure(attempt));
    if (verdict == Verdict::done) {
      return HttpResult{attempt.status, attempt.reason, attempt.body, attempts, attempt.content_type};
    }
    if (verdict == Verdict::resume && resumes < k_max_resumes) {
      ++resumes;
      log_debug("trying again at once");
      continue;
    }
    if (verdict == Verdict::fail || retries >= options.retries) {
      break;
    }
    double delay = backoff_seconds(retries, attempt);
    ++retries;
    log_debug("retrying in {} s", delay);
    std::this_thread::sleep_for(std::min<std::chrono::duration<double>>(
      std::chrono::duration<double>(delay), std::chrono::milliseconds(std::max(0L, left_ms()))));
  }
  if (!attempt.body.empty()) {
    log_debug("the server answered: {}", tail_lines(attempt.body, 20));
  }
  std::vector<std::string> hints;
  if (!attempt.location.empty()) {
    hints.push_back(fmt::format("the server redirects to {}", http_display_url(attempt.location)));
  } else if (!attempt.final_url.empty()) {
    hints.push_back(fmt::format("redirected to {}", http_display_url(attempt.final_url)));
  }
  if (attempts > 1 && attempt.location.empty()) {
    hints.push_back(fmt::format("after {} attempts", attempts));
  }
  if (attempt.code == CURLE_OPERATION_TIMEDOUT
      && std::string_view(attempt.error).find("too slow") != std::string::npos) {
    throw too_slow(shown, transfer.operation, options.limits, attempts);
  }
  // A connection that timed out before it was made never reached the server either.
  bool connect_timeout = attempt.code == CURLE_OPERATION_TIMEDOUT
                         && std::string_view(attempt.error).find("onnect") != std::string_view::npos;
  if (attempt.code == CURLE_COULDNT_RESOLVE_HOST || attempt.code == CURLE_COULDNT_RESOLVE_PROXY
      || attempt.code == CURLE_COULDNT_CONNECT || connect_timeout) {
    throw NetworkError(ExitCode::system,
                       fmt::format("{}: {} failed: the network does not reach it: {}", shown, transfer.operation,
                                   describe_failure(attempt)),
                       join(hints, ", ") + (hints.empty() ? "" : "; ")
                         + "check the network (a proxy: https_proxy), or the URL");
  }
  // A connection the network broke (reset, closed before an answer, cut
  // short) is the system's failure, exit 4, as one never made; the server's
  // answers (an HTTP status, a certificate it is not trusted with) are exit 1.
  bool broken = attempt.code == CURLE_RECV_ERROR || attempt.code == CURLE_SEND_ERROR
                || attempt.code == CURLE_GOT_NOTHING || attempt.code == CURLE_PARTIAL_FILE
                || attempt.code == CURLE_OPERATION_TIMEDOUT;
  throw Error(broken ? ExitCode::system : ExitCode::failed,
              fmt::format("{}: {} failed: {}", shown, transfer.operation, describe_failure(attempt)),
              join(hints, ", "));
}

} // namespace opkit::http_detail

namespace opkit {

Error
past_net_deadline(const std::string& subject, std::string_view operation, const NetLimits& limits)
{
  return Error(ExitCode::system, fmt::format("{}: {} stopped: not done within the setting net_deadline, {} s", subject,
                                             operation, http_detail::format_number(limits.deadline_s)));
}

} // namespace opkit
