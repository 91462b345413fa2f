#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opkit {

struct HttpOptions
{
  std::vector<std::string> headers; // "Name: value", sent as given (after validation)
  int retries = 3;                  // further attempts after the first, with backoff 0.5 s, 1 s, 2 s, ...
  std::filesystem::path ca_file;    // empty: the system CA bundle; verification is never turned off
  bool progress = false;            // draw a progress bar on stderr (the caller checks isatty)
};

struct HttpResult
{
  long status = 0;     // the final answer's HTTP status
  std::string reason;  // its reason phrase ("Created"); empty over HTTP/2
  std::string body;    // its body, cut at 64 KiB
  int attempts = 0;    // how many requests were made
};

// Uploads `file` to an http(s) URL with PUT, streaming the body from disk
// with Content-Length set — what artifact servers, WebDAV and presigned
// object-store URLs accept. Connection errors, timeouts, 429 and 5xx are
// retried; other answers are final. Throws Error(usage) for a URL that is not
// http(s) or a file that is not a readable regular file, Error(failed) when
// the upload is refused or cannot be made, naming the URL and the cause:
// "<url>: upload failed: HTTP 500 Internal Server Error (after 4 attempts)".
// This file is the one place libcurl is included; the proxy environment
// variables (https_proxy, no_proxy, ...) are honoured as libcurl does.
HttpResult http_put_file(const std::string& url, const std::filesystem::path& file, const HttpOptions& options);

// The URL as it may be shown in messages and logs: without a password and
// with any query (a presigned URL's signature) replaced by "?...".
std::string http_display_url(const std::string& url);

// Throws Error(usage) unless `url` parses and its scheme is http or https.
void check_http_url(const std::string& url);

// Throws Error(usage) unless `header` is "Name: value" with a token name and
// no line breaks (which would let a value inject further headers).
void check_http_header(const std::string& header);

} // namespace opkit
