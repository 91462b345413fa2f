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

bool
is_token_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

} // namespace

void
check_http_header(const std::string& header)
{
  size_t colon = header.find(':');
  bool valid = colon != std::string::npos && colon > 0 && header.find_first_of("\r\n") == std::string::npos
               && std::all_of(header.begin(), header.begin() + static_cast<long>(colon), is_token_char);
  if (!valid) {
    throw Error(ExitCode::usage, fmt::format("'{}': invalid HTTP header", escape_text(mask_secrets(header))),
                "expected 'Name: value'");
  }
}

std::string
http_display_url(const std::string& url)
{
  return mask_secrets(url.substr(0, url.find('#')));
}

namespace {

const char* const k_mask = "****";

// "Name: value" (a header as -H takes it, not a URL): the value masked.
bool
mask_header(std::string& text)
{
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || text.compare(colon, 3, "://") == 0
      || !std::all_of(text.begin(), text.begin() + static_cast<long>(colon), is_token_char) || colon + 1 == text.size()
      || text[colon + 1] != ' ') {
    return false;
  }
  text = text.substr(0, colon + 2) + k_mask;
  return true;
}

} // namespace

std::string
mask_secrets(const std::string& text)
{
  std::string shown = text;
  if (mask_header(shown)) {
    return shown;
  }
  size_t authority = shown.find("://");
  if (authority == std::string::npos) {
    return shown;
  }
  authority += 3;
  size_t end = shown.find_first_of("/?#", authority);
  size_t at = shown.rfind('@', end == std::string::npos ? std::string::npos : end);
  size_t colon = shown.find(':', authority);
  if (at != std::string::npos && at >= authority && colon != std::string::npos && colon < at && colon + 1 != at) {
    shown = shown.substr(0, colon + 1) + k_mask + shown.substr(at); // a user name alone is no secret
  }
  size_t query = shown.find('?', authority);
  if (query == std::string::npos) {
    return shown;
  }
  size_t fragment = std::min(shown.find('#', query), shown.size());
  std::vector<std::string> parameters = split(shown.substr(query + 1, fragment - query - 1), '&');
  for (std::string& parameter : parameters) {
    size_t equals = parameter.find('=');
    if (equals != std::string::npos && equals + 1 < parameter.size()) {
      parameter = parameter.substr(0, equals + 1) + k_mask; // a name alone, or an empty value, hides nothing
    }
  }
  return shown.substr(0, query + 1) + join(parameters, "&") + shown.substr(fragment);
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

} // namespace opkit
