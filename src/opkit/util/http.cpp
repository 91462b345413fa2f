#include "opkit/util/http.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include <sys/stat.h>

namespace opkit {

namespace {

const size_t k_body_limit = 64 * 1024;     // enough for any error document worth showing
const long k_connect_timeout_s = 30;
const long k_stall_time_s = 60;            // abort (and retry) when below 1 byte/s for this long
const double k_first_backoff_s = 0.5;
const double k_max_retry_after_s = 60;     // a server's Retry-After is honoured up to this

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

struct FileCloser
{
  void operator()(std::FILE* file) const { std::fclose(file); }
};

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

// Wrapped so a refused option (an old libcurl, no memory) is an error, not a silent default.
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
  curl_off_t retry_after_s = 0;
  std::string location;
};

size_t
on_header(char* data, size_t size, size_t count, void* user)
{
  auto* attempt = static_cast<Attempt*>(user);
  std::string_view line(data, size * count);
  // Every status line (a "100 Continue" comes first) replaces the reason; the last one is the answer's.
  if (starts_with(line, "HTTP/")) {
    size_t code_start = line.find(' ');
    size_t reason_start = code_start == std::string_view::npos ? code_start : line.find(' ', code_start + 1);
    attempt->reason = reason_start == std::string_view::npos ? "" : trim(line.substr(reason_start + 1));
  }
  return size * count;
}

size_t
on_body(char* data, size_t size, size_t count, void* user)
{
  auto* attempt = static_cast<Attempt*>(user);
  size_t room = k_body_limit - std::min(k_body_limit, attempt->body.size());
  attempt->body.append(data, std::min(room, size * count));
  return size * count;
}

std::string
format_size(double bytes)
{
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(units)) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} {}", bytes, units[unit]) : fmt::format("{:.1f} {}", bytes, units[unit]);
}

// A one-line bar redrawn in place on stderr, at most ten times a second.
class ProgressBar
{
public:
  explicit ProgressBar(bool enabled) : m_enabled(enabled) {}
  ~ProgressBar() { clear(); }

  static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t up_total, curl_off_t up_now)
  {
    static_cast<ProgressBar*>(self)->draw(up_now, up_total);
    return 0;
  }

  // Erases the bar, so whatever is printed next starts on a clean line.
  void clear()
  {
    if (m_drawn) {
      std::fputs("\r\033[K", stderr);
      std::fflush(stderr);
      m_drawn = false;
    }
  }

  void restart() { m_start = Clock::now(); }

private:
  using Clock = std::chrono::steady_clock;

  void draw(curl_off_t now, curl_off_t total)
  {
    auto t = Clock::now();
    bool throttled = now < total && t - m_last < std::chrono::milliseconds(100);
    if (!m_enabled || total <= 0 || (m_drawn && (now == m_shown || throttled))) {
      return; // libcurl calls often, also while it waits for the answer
    }
    m_last = t;
    m_shown = now;
    double fraction = std::min(1.0, static_cast<double>(now) / static_cast<double>(total));
    double seconds = std::chrono::duration<double>(t - m_start).count();
    const int width = 30;
    int filled = static_cast<int>(fraction * width);
    fmt::print(stderr, "\r\033[K{:3.0f}% [{}{}] {} / {}  {}/s", fraction * 100, std::string(filled, '#'),
               std::string(width - filled, '-'), format_size(static_cast<double>(now)),
               format_size(static_cast<double>(total)),
               format_size(seconds > 0 ? static_cast<double>(now) / seconds : 0));
    std::fflush(stderr);
    m_drawn = true;
  }

  bool m_enabled;
  bool m_drawn = false;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last;
  curl_off_t m_shown = -1;
};

// Transport failures worth another try: the network or the server may recover.
// Everything else (a bad certificate, an unreadable file, a malformed URL) would fail the same way again.
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
  double delay = k_first_backoff_s * std::pow(2.0, retry);
  return std::max(delay, std::min(static_cast<double>(attempt.retry_after_s), k_max_retry_after_s));
}

std::string
describe_failure(const Attempt& attempt)
{
  if (attempt.code != CURLE_OK) {
    return attempt.error[0] != '\0' ? trim(attempt.error) : curl_easy_strerror(attempt.code);
  }
  return attempt.reason.empty() ? fmt::format("HTTP {}", attempt.status)
                                : fmt::format("HTTP {} {}", attempt.status, attempt.reason);
}

// Options every request gets: TLS verified, http(s) only, no redirects (a
// redirect would re-send the body and any credential headers to another
// place without the user seeing it), stalls detected.
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
  set_option(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  set_option(curl, CURLOPT_LOW_SPEED_TIME, k_stall_time_s);
  set_option(curl, CURLOPT_ERRORBUFFER, attempt.error);
  set_option(curl, CURLOPT_HEADERFUNCTION, on_header);
  set_option(curl, CURLOPT_HEADERDATA, &attempt);
  set_option(curl, CURLOPT_WRITEFUNCTION, on_body);
  set_option(curl, CURLOPT_WRITEDATA, &attempt);
}

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
}

// Runs one request per attempt until one succeeds or fails for good, then
// returns the 2xx answer or throws Error(failed) naming `operation`.
// `prepare` sets the method and body on each fresh handle (and rewinds any body).
HttpResult
perform_with_retries(const std::string& url, const HttpOptions& options, std::string_view operation,
                     const std::function<void(CURL*)>& prepare)
{
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
  ProgressBar progress(options.progress);
  Attempt attempt;
  int attempts = 0;
  for (int retry = 0;; ++retry) {
    CurlHandle curl = new_handle();
    attempt = Attempt();
    set_common_options(curl.get(), url, options, attempt);
    set_option(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    if (options.progress) {
      set_option(curl.get(), CURLOPT_NOPROGRESS, 0L);
      set_option(curl.get(), CURLOPT_XFERINFOFUNCTION, &ProgressBar::on_progress);
      set_option(curl.get(), CURLOPT_XFERINFODATA, &progress);
    }
    prepare(curl.get());
    progress.restart();
    ++attempts;
    attempt.code = curl_easy_perform(curl.get());
    progress.clear();
    if (attempt.code == CURLE_OK) {
      record_answer(curl.get(), attempt);
    }
    log_debug("{} {}: attempt {}: {}", operation, shown, attempts,
              attempt.code == CURLE_OK && attempt.status / 100 == 2 ? fmt::format("HTTP {}", attempt.status)
                                                                     : describe_failure(attempt));
    if (attempt.code == CURLE_OK && attempt.status / 100 == 2) {
      return HttpResult{attempt.status, attempt.reason, attempt.body, attempts};
    }
    if (retry >= options.retries || !should_retry(attempt)) {
      break;
    }
    double delay = backoff_seconds(retry, attempt);
    log_debug("retrying in {} s", delay);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
  if (!attempt.body.empty()) {
    log_debug("the server answered: {}", tail_lines(attempt.body, 20));
  }
  std::string hint;
  if (!attempt.location.empty()) {
    hint = fmt::format("the server redirects to {}", http_display_url(attempt.location));
  } else if (attempts > 1) {
    hint = fmt::format("after {} attempts", attempts);
  }
  throw Error(ExitCode::failed, fmt::format("{}: {} failed: {}", shown, operation, describe_failure(attempt)), hint);
}

// A request body read from disk: never held in memory, re-read from the
// start on every attempt and whenever libcurl rewinds (e.g. after a 417).
class FileSource
{
public:
  explicit FileSource(const std::filesystem::path& path) : m_path(path), m_file(std::fopen(path.c_str(), "rb"))
  {
    struct stat st = {};
    if (!m_file || ::fstat(::fileno(m_file.get()), &st) != 0) {
      fail(ExitCode::usage, "{}: cannot open: {}", path, std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
      fail(ExitCode::usage, "{}: not a regular file", path);
    }
    m_size = static_cast<curl_off_t>(st.st_size);
  }

  curl_off_t size() const { return m_size; }

  void attach(CURL* curl)
  {
    if (std::fseek(m_file.get(), 0, SEEK_SET) != 0) {
      fail(ExitCode::system, "{}: cannot rewind: {}", m_path, std::strerror(errno));
    }
    set_option(curl, CURLOPT_READFUNCTION, &FileSource::on_read);
    set_option(curl, CURLOPT_READDATA, this);
    set_option(curl, CURLOPT_SEEKFUNCTION, &FileSource::on_seek);
    set_option(curl, CURLOPT_SEEKDATA, this);
  }

  // Throws when the last transfer stopped because the file could not be read.
  void check_read_error() const
  {
    if (m_read_errno != 0) {
      fail(ExitCode::system, "{}: cannot read: {}", m_path, std::strerror(m_read_errno));
    }
  }

private:
  static size_t on_read(char* buffer, size_t size, size_t count, void* user)
  {
    auto* self = static_cast<FileSource*>(user);
    size_t n = std::fread(buffer, 1, size * count, self->m_file.get());
    if (n == 0 && std::ferror(self->m_file.get())) {
      self->m_read_errno = errno != 0 ? errno : EIO;
      return CURL_READFUNC_ABORT;
    }
    return n;
  }

  static int on_seek(void* user, curl_off_t offset, int origin)
  {
    auto* self = static_cast<FileSource*>(user);
    return ::fseeko(self->m_file.get(), static_cast<off_t>(offset), origin) == 0 ? CURL_SEEKFUNC_OK
                                                                                 : CURL_SEEKFUNC_FAIL;
  }

  std::filesystem::path m_path;
  std::unique_ptr<std::FILE, FileCloser> m_file;
  curl_off_t m_size = 0;
  int m_read_errno = 0;
};

bool
is_token_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

} // namespace

void
check_http_url(const std::string& url)
{
  global_init();
  std::unique_ptr<CURLU, CurlUrlDeleter> parsed(curl_url());
  if (!parsed) {
    fail(ExitCode::system, "libcurl: out of memory");
  }
  CURLUcode rc = curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME);
  if (rc != CURLUE_OK) {
#if LIBCURL_VERSION_NUM >= 0x075000 // 7.80
    fail(ExitCode::usage, "{}: invalid URL: {}", http_display_url(url), curl_url_strerror(rc));
#else
    fail(ExitCode::usage, "{}: invalid URL", http_display_url(url));
#endif
  }
  char* scheme = nullptr;
  curl_url_get(parsed.get(), CURLUPART_SCHEME, &scheme, 0);
  std::string lowered = scheme != nullptr ? scheme : "";
  curl_free(scheme);
  if (lowered != "http" && lowered != "https") {
    throw Error(ExitCode::usage,
                fmt::format("{}: unsupported URL scheme '{}'", http_display_url(url), lowered),
                "use an http:// or https:// URL");
  }
}

void
check_http_header(const std::string& header)
{
  size_t colon = header.find(':');
  bool valid = colon != std::string::npos && colon > 0 && header.find_first_of("\r\n") == std::string::npos &&
               std::all_of(header.begin(), header.begin() + static_cast<long>(colon), is_token_char);
  if (!valid) {
    throw Error(ExitCode::usage, fmt::format("'{}': invalid HTTP header", header), "expected 'Name: value'");
  }
}

std::string
http_display_url(const std::string& url)
{
  std::string shown = url;
  size_t fragment = shown.find('#');
  if (fragment != std::string::npos) {
    shown.erase(fragment);
  }
  size_t query = shown.find('?');
  if (query != std::string::npos) {
    shown.replace(query, std::string::npos, "?...");
  }
  size_t authority = shown.find("://");
  if (authority != std::string::npos) {
    authority += 3;
    size_t end = shown.find('/', authority);
    size_t at = shown.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at != std::string::npos && at >= authority) {
      shown.erase(authority, at + 1 - authority); // user:password@
    }
  }
  return shown;
}

HttpResult
http_put_file(const std::string& url, const std::filesystem::path& file, const HttpOptions& options)
{
  check_http_url(url);
  if (!options.ca_file.empty() && !std::filesystem::is_regular_file(options.ca_file)) {
    fail(ExitCode::usage, "{}: CA bundle not found", options.ca_file);
  }
  FileSource source(file);
  log_debug("PUT {} ({} bytes from {})", http_display_url(url), source.size(), file);
  try {
    return perform_with_retries(url, options, "upload", [&source](CURL* curl) {
      set_option(curl, CURLOPT_UPLOAD, 1L); // PUT
      set_option(curl, CURLOPT_INFILESIZE_LARGE, source.size());
      source.attach(curl);
    });
  } catch (const Error&) {
    source.check_read_error(); // the file's fault, not the server's: say so
    throw;
  }
}

} // namespace opkit
