#include "opkit/util/http.hpp"

#include "opkit/util/file_handle.hpp"
#include "opkit/util/http_transfer.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>

namespace opkit {

using namespace http_detail;

namespace {

const size_t k_get_body_limit = size_t{64} * 1024 * 1024; // http_get: an index page or JSON document, never a file

// A request body read from disk: never held in memory, re-read from the
// start on every attempt and whenever libcurl rewinds (e.g. after a 417).
class FileSource
{
public:
  explicit FileSource(const std::filesystem::path& path)
    : m_path(path)
    , m_file(std::fopen(path.c_str(), "rb"))
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
  UniqueFile m_file;
  curl_off_t m_size = 0;
  int m_read_errno = 0;
};

} // namespace

void
check_http_header(const std::string& header)
{
  size_t colon = header.find(':');
  bool valid = colon != std::string::npos && colon > 0 && header.find_first_of("\r\n") == std::string::npos
               && std::all_of(header.begin(), header.begin() + static_cast<long>(colon), is_http_token_char);
  if (!valid) {
    throw Error(ExitCode::usage, fmt::format("'{}': invalid HTTP header", escape_text(mask_header(header))),
                "expected 'Name: value'");
  }
}

std::string
http_display_url(const std::string& url)
{
  // Escaped and clipped: a URL from a file may hold any byte, and a 5 MB one
  // must not push the cause out of the message's line.
  return escape_clipped(mask_secrets(url.substr(0, url.find('#'))), 300);
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

std::optional<ContentRange>
parse_content_range(std::string_view value)
{
  // Only digits, no sign, no overflow: a number from the network.
  auto number = [](std::string_view text) -> std::optional<std::int64_t> {
    if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), is_ascii_digit)) {
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

std::string
network_failure_said(std::string_view output)
{
  // urllib3's NewConnectionError, as pip's retry warning quotes it: the cause after it.
  const std::string_view connection = "Failed to establish a new connection: ";
  if (size_t at = output.find(connection); at != std::string_view::npos) {
    std::string_view rest = output.substr(at + connection.size());
    return trim(std::string(rest.substr(0, rest.find_first_of("'\")\n"))));
  }
  for (std::string_view cause :
       {"Temporary failure in name resolution", "Name or service not known", "Network is unreachable",
        "No route to host", "Connection refused", "Connection timed out", "ConnectTimeoutError", "ProxyError"}) {
    if (size_t at = output.find(cause); at != std::string_view::npos) {
      size_t start = output.rfind("[Errno", at);
      bool errno_before = start != std::string_view::npos && at - start < 16;
      return std::string(output.substr(errno_before ? start : at, at + cause.size() - (errno_before ? start : at)));
    }
  }
  return "";
}

NetworkError
network_unreachable(const std::string& subject, std::string_view operation, const std::string& said,
                    const std::string& hint)
{
  return NetworkError(ExitCode::system,
                      fmt::format("{}: {}{}failed: the network does not reach it: {}", subject, operation,
                                  operation.empty() ? "" : " ", said),
                      "check the network (a proxy: https_proxy), or the index" + (hint.empty() ? "" : "; " + hint));
}

} // namespace opkit
