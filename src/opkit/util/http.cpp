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
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace opkit {

namespace {

const size_t k_body_limit = 64 * 1024;     // enough for any error document worth showing
const size_t k_get_body_limit = 64 * 1024 * 1024; // http_get: an index page or JSON document, never a file
const long k_max_redirects = 5;            // GETs only: a package index sends downloads to a file host
const int k_max_resumes = 20;              // attempts cut off after progress that do not use up a retry
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

class ProgressBar;

// What one request ended with: a transport error, or an HTTP answer.
struct Attempt
{
  CURLcode code = CURLE_OK;
  char error[CURL_ERROR_SIZE] = {}; // libcurl's detailed message, better than curl_easy_strerror
  long status = 0;
  std::string reason;
  std::string body;
  size_t body_limit = k_body_limit;
  bool body_must_fit = false;       // a 2xx body over the limit fails the request instead of being cut
  bool body_too_big = false;
  curl_off_t retry_after_s = 0;
  std::string location;
  std::string final_url;            // where redirects led; empty when there were none
  // From the headers, while they arrive (a download's sink needs them before the body):
  // each status line starts over, so after redirects they are the last answer's.
  long header_status = 0;
  std::string content_range;
  std::string content_type;
  ProgressBar* progress = nullptr;
};

bool
equals_ignoring_case(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The value of `line` when it is the header `name` (any case), else nullopt.
std::optional<std::string_view>
header_value(std::string_view line, std::string_view name)
{
  if (line.size() <= name.size() || line[name.size()] != ':' ||
      !equals_ignoring_case(line.substr(0, name.size()), name)) {
    return std::nullopt;
  }
  return line.substr(name.size() + 1);
}

size_t
on_header(char* data, size_t size, size_t count, void* user)
{
  auto* attempt = static_cast<Attempt*>(user);
  std::string_view line(data, size * count);
  // Every status line (a "100 Continue" comes first, redirects come first) starts an answer; the last is the one.
  if (starts_with(line, "HTTP/")) {
    size_t code_start = line.find(' ');
    size_t reason_start = code_start == std::string_view::npos ? code_start : line.find(' ', code_start + 1);
    attempt->reason = reason_start == std::string_view::npos ? "" : trim(line.substr(reason_start + 1));
    std::string code = code_start == std::string_view::npos ? "" : trim(line.substr(code_start + 1, 4));
    attempt->header_status = code.size() == 3 ? std::strtol(code.c_str(), nullptr, 10) : 0;
    attempt->content_range.clear();
    attempt->content_type.clear();
  } else if (auto value = header_value(line, "content-range")) {
    attempt->content_range = trim(*value);
  } else if (auto type = header_value(line, "content-type")) {
    attempt->content_type = trim(*type);
  }
  return size * count;
}

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

  static int on_upload_progress(void* self, curl_off_t, curl_off_t, curl_off_t up_total, curl_off_t up_now)
  {
    static_cast<ProgressBar*>(self)->draw(up_now, up_total);
    return 0;
  }

  // A resumed download counts the bytes it already had: libcurl counts only this answer's.
  static int on_download_progress(void* self, curl_off_t down_total, curl_off_t down_now, curl_off_t, curl_off_t)
  {
    auto* bar = static_cast<ProgressBar*>(self);
    bar->draw(bar->m_base + down_now, down_total > 0 ? bar->m_base + down_total : 0);
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

  void restart(curl_off_t base = 0)
  {
    m_start = Clock::now();
    m_base = base;
  }

  // The bytes the file already holds when this answer's body starts.
  void set_base(curl_off_t base) { m_base = base; }

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
               format_size(seconds > 0 ? static_cast<double>(now - std::min(now, m_base)) / seconds : 0));
    std::fflush(stderr);
    m_drawn = true;
  }

  bool m_enabled;
  bool m_drawn = false;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last;
  curl_off_t m_shown = -1;
  curl_off_t m_base = 0;
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
  if (attempt.body_too_big) {
    return fmt::format("the answer is larger than {}", format_size(static_cast<double>(attempt.body_limit)));
  }
  if (attempt.code != CURLE_OK) {
    return attempt.error[0] != '\0' ? trim(attempt.error) : curl_easy_strerror(attempt.code);
  }
  return attempt.reason.empty() ? fmt::format("HTTP {}", attempt.status)
                                : fmt::format("HTTP {} {}", attempt.status, attempt.reason);
}

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
  set_option(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  set_option(curl, CURLOPT_LOW_SPEED_TIME, k_stall_time_s);
  set_option(curl, CURLOPT_ERRORBUFFER, attempt.error);
  set_option(curl, CURLOPT_HEADERFUNCTION, on_header);
  set_option(curl, CURLOPT_HEADERDATA, &attempt);
  set_option(curl, CURLOPT_WRITEFUNCTION, on_body);
  set_option(curl, CURLOPT_WRITEDATA, &attempt);
}

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
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK && redirects > 0 &&
      curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &final_url) == CURLE_OK && final_url != nullptr) {
    attempt.final_url = final_url;
  }
}

void
check_ca_file(const HttpOptions& options)
{
  if (!options.ca_file.empty() && !std::filesystem::is_regular_file(options.ca_file)) {
    fail(ExitCode::usage, "{}: CA bundle not found", options.ca_file);
  }
}

// What the retry loop does after an attempt.
enum class Verdict {
  done,   // the answer is the result
  retry,  // a transient failure: try again after a backoff, while retries are left
  resume, // cut off after progress, or to be asked again differently: try again at once (k_max_resumes)
  fail,   // final: report it
};

Verdict
default_verdict(const Attempt& attempt)
{
  if (attempt.code == CURLE_OK && attempt.status / 100 == 2) {
    return Verdict::done;
  }
  return should_retry(attempt) ? Verdict::retry : Verdict::fail;
}

// One kind of request for perform_with_retries.
struct Transfer
{
  std::string_view operation;                    // named in the error: "upload failed"
  bool download = false;                         // the progress bar counts bytes received, not sent
  std::function<void(CURL*, Attempt&)> prepare;  // method, body and sinks, on each fresh handle
  std::function<Verdict(Attempt&)> judge;        // empty: default_verdict
};

// Runs one request per attempt until one succeeds or fails for good, then
// returns the answer judged done (by default a 2xx) or throws Error(failed)
// naming the transfer's operation. Its `prepare` sets the method, the body
// and the sinks on each fresh handle (and rewinds any body).
HttpResult
perform_with_retries(const std::string& url, const HttpOptions& options, const Transfer& transfer)
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
  bool show_progress = options.progress && ::isatty(STDERR_FILENO) == 1; // never into a log file
  ProgressBar progress(show_progress);
  Attempt attempt;
  int attempts = 0;
  int retries = 0;
  int resumes = 0;
  for (;;) {
    CurlHandle curl = new_handle();
    attempt = Attempt();
    attempt.progress = &progress;
    set_common_options(curl.get(), url, options, attempt);
    set_option(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    if (show_progress) {
      set_option(curl.get(), CURLOPT_NOPROGRESS, 0L);
      set_option(curl.get(), CURLOPT_XFERINFOFUNCTION,
                 transfer.download ? &ProgressBar::on_download_progress : &ProgressBar::on_upload_progress);
      set_option(curl.get(), CURLOPT_XFERINFODATA, &progress);
    }
    progress.restart();
    transfer.prepare(curl.get(), attempt);
    ++attempts;
    attempt.code = curl_easy_perform(curl.get());
    progress.clear();
    if (attempt.code == CURLE_OK) {
      record_answer(curl.get(), attempt);
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
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
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
  throw Error(ExitCode::failed,
              fmt::format("{}: {} failed: {}", shown, transfer.operation, describe_failure(attempt)),
              join(hints, ", "));
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

// The file http_download writes: opened once for appending, so every write
// lands at its end, which a fresh start first truncates to nothing.
class DownloadSink
{
public:
  explicit DownloadSink(const std::filesystem::path& path) : m_path(path), m_file(std::fopen(path.c_str(), "ab"))
  {
    if (!m_file) {
      fail(ExitCode::system, "{}: cannot open for writing: {}", path, std::strerror(errno));
    }
    m_initial_size = size();
  }

  // The bytes on disk, once what is buffered is written.
  std::uint64_t size()
  {
    flush();
    struct stat st = {};
    if (::fstat(::fileno(m_file.get()), &st) != 0) {
      fail(ExitCode::system, "{}: cannot stat: {}", m_path, std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
      fail(ExitCode::system, "{}: not a regular file", m_path);
    }
    return static_cast<std::uint64_t>(st.st_size);
  }

  void flush()
  {
    if (std::fflush(m_file.get()) != 0) {
      fail(ExitCode::system, "{}: cannot write: {}", m_path, std::strerror(errno));
    }
  }

  void truncate()
  {
    flush();
    int error = truncate_now();
    if (error != 0) {
      fail(ExitCode::system, "{}: cannot truncate: {}", m_path, std::strerror(error));
    }
  }

  void close()
  {
    if (std::fclose(m_file.release()) != 0) {
      fail(ExitCode::system, "{}: cannot write: {}", m_path, std::strerror(errno));
    }
  }

  // Asks for what is missing and routes the body: the file's bytes to the file, an error document to memory.
  void attach(CURL* curl, Attempt& attempt)
  {
    m_offset = size();
    m_attempt = &attempt;
    m_started = false;
    m_action = ResumeAction::error;
    m_received_now = 0;
    if (m_offset > 0) {
      log_debug("{} holds {} bytes: asking for the rest", m_path, m_offset);
      set_option(curl, CURLOPT_RANGE, fmt::format("{}-", m_offset).c_str()); // libcurl copies it
    }
    attempt.progress->restart(static_cast<curl_off_t>(m_offset));
    set_option(curl, CURLOPT_WRITEFUNCTION, &DownloadSink::on_write);
    set_option(curl, CURLOPT_WRITEDATA, this);
  }

  std::uint64_t offset() const { return m_offset; }
  bool started() const { return m_started; }
  ResumeAction action() const { return m_action; }
  std::uint64_t received_now() const { return m_received_now; }
  std::uint64_t received() const { return m_received; }
  std::uint64_t initial_size() const { return m_initial_size; }
  bool discarded() const { return m_discarded; }

  // Throws when the last transfer stopped because the file could not be written.
  void check_write_error() const
  {
    if (m_write_errno != 0) {
      fail(ExitCode::system, "{}: cannot write: {}", m_path, std::strerror(m_write_errno));
    }
  }

private:
  static size_t on_write(char* data, size_t size, size_t count, void* user)
  {
    auto* self = static_cast<DownloadSink*>(user);
    Attempt& attempt = *self->m_attempt;
    if (!self->m_started) {
      self->m_started = true;
      // A 416's body is a message; whether the file is complete is judged once the answer is in.
      self->m_action = attempt.header_status == 416
                         ? ResumeAction::error
                         : resume_action(attempt.header_status, attempt.content_range, self->m_offset);
      if (self->m_action == ResumeAction::replace && self->m_offset > 0) {
        // The server ignored the range and sends the whole file. (No exceptions through libcurl.)
        int error = std::fflush(self->m_file.get()) != 0 ? errno : self->truncate_now();
        if (error != 0) {
          self->m_write_errno = error;
          return 0;
        }
        attempt.progress->set_base(0);
      }
    }
    switch (self->m_action) {
    case ResumeAction::append:
    case ResumeAction::replace:
      break;
    case ResumeAction::restart:
      return 0; // not the bytes asked for: stop, and the judge starts over
    default:
      return on_body(data, size, count, &attempt);
    }
    size_t n = size * count;
    if (std::fwrite(data, 1, n, self->m_file.get()) != n) {
      self->m_write_errno = errno != 0 ? errno : EIO;
      return 0;
    }
    self->m_received_now += n;
    self->m_received += n;
    return n;
  }

  // Returns errno, or 0: callable from libcurl's callbacks.
  int truncate_now()
  {
    if (::ftruncate(::fileno(m_file.get()), 0) != 0) {
      return errno;
    }
    m_discarded = true;
    return 0;
  }

  std::filesystem::path m_path;
  std::unique_ptr<std::FILE, FileCloser> m_file;
  std::uint64_t m_initial_size = 0;
  bool m_discarded = false; // the bytes there before the call were dropped
  std::uint64_t m_received = 0;
  int m_write_errno = 0;
  // This attempt's:
  Attempt* m_attempt = nullptr;
  std::uint64_t m_offset = 0;
  bool m_started = false;
  ResumeAction m_action = ResumeAction::error;
  std::uint64_t m_received_now = 0;
};

// After an attempt of http_download: done, ask again (for the rest, or for
// the whole file), or what the default rules say about an error answer.
Verdict
judge_download(DownloadSink& sink, const Attempt& attempt)
{
  sink.check_write_error();
  if (attempt.code == CURLE_OK) {
    ResumeAction action =
      sink.started() && attempt.status != 416 ? sink.action()
                                               : resume_action(attempt.status, attempt.content_range, sink.offset());
    switch (action) {
    case ResumeAction::complete:
      log_debug("the server says the {} bytes are the whole file", sink.offset());
      return Verdict::done;
    case ResumeAction::restart:
      log_debug("the server's answer ({}, Content-Range '{}') does not continue the {} bytes: starting over",
                attempt.status, attempt.content_range, sink.offset());
      sink.truncate();
      return Verdict::resume;
    case ResumeAction::replace:
      if (!sink.started()) {
        sink.truncate(); // an empty body: an empty file
      } else if (sink.offset() > 0) {
        log_debug("the server ignored the range and sent the whole file");
      }
      return Verdict::done;
    case ResumeAction::append: {
      // A server may send less than the rest; ask again for what is still missing.
      std::optional<ContentRange> range = parse_content_range(attempt.content_range);
      if (range && range->total >= 0 && sink.size() < static_cast<std::uint64_t>(range->total)) {
        return Verdict::resume;
      }
      return Verdict::done;
    }
    case ResumeAction::error:
      return default_verdict(attempt);
    }
  }
  if (sink.started() && sink.action() == ResumeAction::restart) {
    log_debug("the server's answer (Content-Range '{}') does not continue the {} bytes: starting over",
              attempt.content_range, sink.offset());
    sink.truncate();
    return Verdict::resume;
  }
  if (sink.received_now() > 0 && is_transient(attempt.code)) {
    log_debug("cut off after {} bytes ({}): resuming", sink.received_now(), describe_failure(attempt));
    return Verdict::resume;
  }
  return default_verdict(attempt);
}

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
  check_ca_file(options);
  FileSource source(file);
  log_debug("PUT {} ({} bytes from {})", http_display_url(url), source.size(), file);
  Transfer transfer;
  transfer.operation = "upload";
  transfer.prepare = [&source](CURL* curl, Attempt&) {
    set_option(curl, CURLOPT_UPLOAD, 1L); // PUT
    set_option(curl, CURLOPT_INFILESIZE_LARGE, source.size());
    source.attach(curl);
  };
  try {
    return perform_with_retries(url, options, transfer);
  } catch (const Error&) {
    source.check_read_error(); // the file's fault, not the server's: say so
    throw;
  }
}

HttpResult
http_get(const std::string& url, const HttpOptions& options)
{
  check_http_url(url);
  check_ca_file(options);
  log_debug("GET {}", http_display_url(url));
  Transfer transfer;
  transfer.operation = "download";
  transfer.download = true;
  transfer.prepare = [](CURL* curl, Attempt& attempt) {
    set_option(curl, CURLOPT_HTTPGET, 1L);
    follow_redirects(curl);
    set_option(curl, CURLOPT_ACCEPT_ENCODING, ""); // whatever libcurl can decode: index pages compress well
    attempt.body_limit = k_get_body_limit;
    attempt.body_must_fit = true;
  };
  return perform_with_retries(url, options, transfer);
}

DownloadResult
http_download(const std::string& url, const std::filesystem::path& partial_file, const HttpOptions& options)
{
  check_http_url(url);
  check_ca_file(options);
  std::error_code ignored;
  bool existed = std::filesystem::exists(partial_file, ignored);
  DownloadSink sink(partial_file);
  log_debug("GET {} into {} ({} bytes there)", http_display_url(url), partial_file, sink.initial_size());
  Transfer transfer;
  transfer.operation = "download";
  transfer.download = true;
  // No Accept-Encoding: a range counts the bytes of the file itself.
  transfer.prepare = [&sink](CURL* curl, Attempt& attempt) {
    set_option(curl, CURLOPT_HTTPGET, 1L);
    follow_redirects(curl);
    sink.attach(curl, attempt);
  };
  transfer.judge = [&sink](Attempt& attempt) { return judge_download(sink, attempt); };
  HttpResult answer;
  try {
    answer = perform_with_retries(url, options, transfer);
  } catch (const Error&) {
    if (!existed && sink.size() == 0) {
      sink.close();
      std::filesystem::remove(partial_file, ignored); // leave nothing behind that was not there
    }
    throw;
  }
  DownloadResult result;
  result.status = answer.status;
  result.bytes_total = sink.size();
  result.bytes_resumed_from = sink.discarded() ? 0 : sink.initial_size();
  result.attempts = answer.attempts;
  result.bytes_received = sink.received();
  sink.close();
  return result;
}

std::optional<ContentRange>
parse_content_range(std::string_view value)
{
  // Only digits, no sign, no overflow: a number from the network.
  auto number = [](std::string_view text) -> std::optional<std::int64_t> {
    if (text.empty() || text.size() > 18 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    std::int64_t n = 0;
    for (char c : text) {
      n = n * 10 + (c - '0');
    }
    return n;
  };
  std::string text = trim(value);
  std::string_view rest = text;
  if (rest.size() < 6 || !equals_ignoring_case(rest.substr(0, 5), "bytes") || (rest[5] != ' ' && rest[5] != '\t')) {
    return std::nullopt;
  }
  rest = rest.substr(6);
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return std::nullopt;
  }
  std::string range = trim(rest.substr(0, slash));
  std::string size = trim(rest.substr(slash + 1));
  ContentRange result;
  if (size != "*") {
    std::optional<std::int64_t> total = number(size);
    if (!total) {
      return std::nullopt;
    }
    result.total = *total;
  }
  if (range == "*") {
    // "bytes */*" says nothing at all
    return result.total >= 0 ? std::optional<ContentRange>(result) : std::nullopt;
  }
  size_t dash = range.find('-');
  if (dash == std::string::npos) {
    return std::nullopt;
  }
  std::optional<std::int64_t> first = number(std::string_view(range).substr(0, dash));
  std::optional<std::int64_t> last = number(std::string_view(range).substr(dash + 1));
  if (!first || !last || *first > *last || (result.total >= 0 && *last >= result.total)) {
    return std::nullopt;
  }
  result.first = *first;
  result.last = *last;
  return result;
}

ResumeAction
resume_action(long status, std::string_view content_range, std::uint64_t offset)
{
  std::optional<ContentRange> range = parse_content_range(content_range);
  if (status == 206) {
    return range && range->first >= 0 && static_cast<std::uint64_t>(range->first) == offset ? ResumeAction::append
                                                                                            : ResumeAction::restart;
  }
  if (status == 416 && offset > 0) {
    return range && range->first < 0 && static_cast<std::uint64_t>(range->total) == offset
             ? ResumeAction::complete
             : ResumeAction::restart;
  }
  return status / 100 == 2 ? ResumeAction::replace : ResumeAction::error;
}

} // namespace opkit
