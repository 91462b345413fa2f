#include "opkit/util/http_range.hpp"

#include "opkit/util/http_transfer.hpp"
#include "opkit/util/log.hpp"

#include <exception>

namespace opkit {

using namespace http_detail;

namespace {

// What became of one attempt's answer, decided when its body starts.
enum class Answer
{
  pending,    // no body yet
  ranged,     // a 206 with the bytes asked for: delivered to the sink
  error,      // not 2xx: its body is an error document
  not_ranged, // another 2xx: the whole file (the transfer is stopped)
  wrong,      // a 206 with other bytes, or more than asked for (stopped)
};

// One range read, over its attempts.
struct RangeRead
{
  bool probe = false;         // the first read: the server may turn out not to serve ranges
  bool suffix = false;        // "bytes=-count": the file's size is not known yet
  std::uint64_t first = 0;    // the file offset of the bytes wanted (known once a suffix read is answered)
  std::uint64_t count = 0;    // how many
  std::uint64_t received = 0; // delivered to the sink so far
  const std::function<void(std::string_view)>* sink = nullptr;
  bool refused = false; // a suffix read the server did not answer with a range
  std::exception_ptr sink_error;
  std::string wrong_range; // the Content-Range of an answer with other bytes
  // This attempt's:
  Answer answer = Answer::pending;
  std::uint64_t received_now = 0;

  std::string range() const
  {
    return suffix ? fmt::format("-{}", count) : fmt::format("{}-{}", first + received, first + count - 1);
  }
};

} // namespace

struct HttpRangeReader::State
{
  std::string url; // the one given, then where the first request's redirects led
  HttpOptions options;
  CurlHandle curl;
  std::int64_t size = -1;
  std::uint64_t received = 0;
  int requests = 0;
  // The read under way, and its attempt:
  RangeRead* read = nullptr;
  Attempt* attempt = nullptr;

  // Whether a 206's Content-Range holds exactly the bytes still wanted (a
  // server may send fewer: the rest is asked for again). A suffix read learns
  // the file's size and where its bytes start.
  bool accept_range(RangeRead& r, const std::string& content_range)
  {
    std::optional<ContentRange> range = parse_content_range(content_range);
    if (!range || range->first < 0 || range->total < 0) {
      return false;
    }
    auto first = static_cast<std::uint64_t>(range->first);
    auto total = static_cast<std::uint64_t>(range->total);
    if (r.suffix) {
      if (static_cast<std::uint64_t>(range->last) + 1 != total || total - first != std::min(r.count, total)) {
        return false;
      }
      size = range->total;
      r.suffix = false;
      r.first = first;
      r.count = total - first;
      return true;
    }
    return static_cast<std::int64_t>(total) == size && first == r.first + r.received
           && static_cast<std::uint64_t>(range->last) < r.first + r.count;
  }

  // Sorts an answer out as its body starts (or, for an empty body, once it is in).
  Answer classify(RangeRead& r, const Attempt& a)
  {
    if (a.header_status / 100 != 2) {
      return Answer::error;
    }
    if (a.header_status != 206) {
      return Answer::not_ranged;
    }
    if (!accept_range(r, a.content_range)) {
      r.wrong_range = a.content_range;
      return Answer::wrong;
    }
    return Answer::ranged;
  }

  static size_t on_write(char* data, size_t size, size_t count, void* user)
  {
    auto* self = static_cast<State*>(user);
    RangeRead& r = *self->read;
    Attempt& a = *self->attempt;
    size_t n = size * count;
    self->received += n;
    if (r.answer == Answer::pending) {
      r.answer = self->classify(r, a);
    }
    if (r.answer == Answer::error) {
      return on_body(data, size, count, &a);
    }
    if (r.answer == Answer::ranged && r.received + n > r.count) {
      r.answer = Answer::wrong; // more than the Content-Range said
      r.wrong_range = a.content_range;
    }
    if (r.answer != Answer::ranged) {
      return 0; // libcurl stops with CURLE_WRITE_ERROR
    }
    try {
      (*r.sink)(std::string_view(data, n));
    } catch (...) {
      r.sink_error = std::current_exception(); // no exceptions through libcurl
      return 0;
    }
    r.received += n;
    r.received_now += n;
    return n;
  }

  Verdict judge(RangeRead& r, Attempt& a)
  {
    if (r.sink_error) {
      std::rethrow_exception(r.sink_error);
    }
    bool answered = a.code == CURLE_OK;
    if (answered && r.answer == Answer::pending && a.status / 100 == 2) {
      r.answer = classify(r, a); // an empty body
    }
    bool unusable = r.answer == Answer::not_ranged || r.answer == Answer::wrong || (answered && a.status == 416);
    if (unusable && r.probe && r.received == 0) {
      log_debug("{}: the first range request was answered with HTTP {} (Content-Range '{}'): no ranges",
                http_display_url(url), a.header_status, a.content_range);
      r.refused = true;
      return Verdict::done;
    }
    if (r.answer == Answer::not_ranged) {
      fail(ExitCode::failed, "{}: download failed: the server stopped serving byte ranges (HTTP {})",
           http_display_url(url), a.header_status);
    }
    if (r.answer == Answer::wrong) {
      fail(ExitCode::failed, "{}: download failed: asked for bytes {}, the server sent others (Content-Range '{}')",
           http_display_url(url), r.range(), r.wrong_range);
    }
    if (answered && a.status == 206) {
      return r.received < r.count ? Verdict::resume : Verdict::done;
    }
    if (r.received_now > 0 && is_transient(a.code)) {
      log_debug("cut off after {} bytes ({}): asking for the rest", r.received_now, describe_failure(a));
      return Verdict::resume;
    }
    return default_verdict(a);
  }

  // Runs one read to its end (or its refusal).
  void run(RangeRead& r)
  {
    Transfer transfer;
    transfer.operation = "download";
    transfer.download = true;
    transfer.handle = curl.get();
    transfer.prepare = [this, &r](CURL* handle, Attempt& a) {
      r.answer = Answer::pending;
      r.received_now = 0;
      read = &r;
      attempt = &a;
      ++requests;
      set_option(handle, CURLOPT_HTTPGET, 1L);
      follow_redirects(handle);
      set_option(handle, CURLOPT_RANGE, r.range().c_str()); // libcurl copies it
      set_option(handle, CURLOPT_WRITEFUNCTION, &State::on_write);
      set_option(handle, CURLOPT_WRITEDATA, this);
      log_debug("GET {} bytes={}", http_display_url(url), r.range());
    };
    std::string final_url;
    transfer.judge = [this, &r, &final_url](Attempt& a) {
      final_url = a.final_url;
      return judge(r, a);
    };
    perform_with_retries(url, options, transfer);
    if (!final_url.empty()) {
      url = final_url; // later requests skip the redirect
    }
  }
};

HttpRangeReader::HttpRangeReader(std::string url, HttpOptions options)
  : m_state(std::make_unique<State>())
{
  check_http_url(url);
  check_ca_file(options);
  m_state->url = std::move(url);
  m_state->options = std::move(options);
  m_state->curl = new_handle();
}

HttpRangeReader::~HttpRangeReader() = default;

std::optional<std::string>
HttpRangeReader::open_tail(std::uint64_t count)
{
  std::string bytes;
  std::function<void(std::string_view)> sink = [&bytes](std::string_view data) { bytes.append(data); };
  RangeRead r;
  r.probe = true;
  r.suffix = true;
  r.count = count;
  r.sink = &sink;
  m_state->run(r);
  if (r.refused) {
    return std::nullopt;
  }
  return bytes;
}

std::uint64_t
HttpRangeReader::size() const
{
  return m_state->size < 0 ? 0 : static_cast<std::uint64_t>(m_state->size);
}

void
HttpRangeReader::read(std::uint64_t offset, std::uint64_t count, const std::function<void(std::string_view)>& sink)
{
  if (m_state->size < 0 || offset > size() || count > size() - offset) {
    fail(ExitCode::system, "{}: bytes {}+{} asked for outside the file ({} bytes)", http_display_url(m_state->url),
         offset, count, m_state->size);
  }
  if (count == 0) {
    return;
  }
  RangeRead r;
  r.first = offset;
  r.count = count;
  r.sink = &sink;
  m_state->run(r);
}

std::string
HttpRangeReader::read(std::uint64_t offset, std::uint64_t count)
{
  std::string bytes;
  read(offset, count, [&bytes](std::string_view data) { bytes.append(data); });
  return bytes;
}

std::uint64_t
HttpRangeReader::bytes_received() const
{
  return m_state->received;
}

int
HttpRangeReader::requests() const
{
  return m_state->requests;
}

} // namespace opkit
