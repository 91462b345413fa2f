#include "opkit/util/http_url.hpp"

#include "opkit/util/http.hpp"
#include "opkit/util/http_transfer.hpp"

namespace opkit {

using namespace http_detail;

namespace {

std::string
url_error(CURLUcode rc)
{
#if LIBCURL_VERSION_NUM >= 0x075000 // 7.80
  return curl_url_strerror(rc);
#else
  return fmt::format("libcurl URL error {}", static_cast<int>(rc));
#endif
}

// A part of the URL in `url`; empty when it has none.
std::string
url_part(CURLU* url, CURLUPart part)
{
  char* value = nullptr;
  if (curl_url_get(url, part, &value, 0) != CURLUE_OK || value == nullptr) {
    return {};
  }
  std::string text = value;
  curl_free(value);
  return text;
}

} // namespace

UrlHandle
http_detail::parse_url(const std::string& url, unsigned int flags)
{
  UrlHandle parsed(curl_url());
  if (!parsed) {
    fail(ExitCode::system, "libcurl: out of memory");
  }
  CURLUcode rc = curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), flags);
  if (rc != CURLUE_OK) {
    fail(ExitCode::usage, "{}: invalid URL: {}", http_display_url(url), url_error(rc));
  }
  return parsed;
}

void
check_http_url(const std::string& url)
{
  UrlHandle parsed = parse_url(url, CURLU_NON_SUPPORT_SCHEME);
  std::string scheme = url_part(parsed.get(), CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https") {
    throw Error(ExitCode::usage, fmt::format("{}: unsupported URL scheme '{}'", http_display_url(url), scheme),
                "use an http:// or https:// URL");
  }
}

ResolvedUrl
resolve_url(const std::string& base, const std::string& href)
{
  UrlHandle url = parse_url(base, 0);
  // Set on a handle holding a URL, a relative reference is resolved against it.
  CURLUcode rc = curl_url_set(url.get(), CURLUPART_URL, href.c_str(), 0);
  if (rc != CURLUE_OK) {
    fail(ExitCode::failed, "{}: link '{}': invalid URL: {}", http_display_url(base), href, url_error(rc));
  }
  ResolvedUrl resolved;
  resolved.fragment = url_part(url.get(), CURLUPART_FRAGMENT);
  curl_url_set(url.get(), CURLUPART_FRAGMENT, nullptr, 0);
  resolved.url = url_part(url.get(), CURLUPART_URL);
  return resolved;
}

} // namespace opkit
