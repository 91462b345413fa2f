#include "opkit/util/http.hpp"

#include "opkit/util/file_handle.hpp"
#include "opkit/util/http_transfer.hpp"
#include "opkit/util/log.hpp"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace opkit {

using namespace http_detail;

namespace {

// The file http_download writes: opened once for appending, so every write
// lands at its end, which a fresh start first truncates to nothing.
class DownloadSink
{
public:
  explicit DownloadSink(const std::filesystem::path& path)
    : m_path(path)
    , m_file(std::fopen(path.c_str(), "ab"))
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
  UniqueFile m_file;
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
    ResumeAction action = sink.started() && attempt.status != 416
                            ? sink.action()
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

} // namespace

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

ResumeAction
resume_action(long status, std::string_view content_range, std::uint64_t offset)
{
  std::optional<ContentRange> range = parse_content_range(content_range);
  if (status == 206) {
    return range && range->first >= 0 && static_cast<std::uint64_t>(range->first) == offset ? ResumeAction::append
                                                                                            : ResumeAction::restart;
  }
  if (status == 416 && offset > 0) {
    return range && range->first < 0 && static_cast<std::uint64_t>(range->total) == offset ? ResumeAction::complete
                                                                                           : ResumeAction::restart;
  }
  return status / 100 == 2 ? ResumeAction::replace : ResumeAction::error;
}

} // namespace opkit
