#pragma once

#include "opkit/util/error.hpp"
#include "opkit/util/secrets.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

// Every operation's limits (the settings net_deadline, net_min_speed and
// net_speed_window; sdk/ and cli/ read them): the whole operation, retries and
// their waits included, ends at the deadline (Error(system) naming the URL and
// the setting); an attempt slower than min_bytes_per_s over window_s is cut
// and retried (resumed), as a stall is.
struct NetLimits
{
  double deadline_s = 1800;
  double min_bytes_per_s = 1e6;
  double window_s = 30;
};

// An operation that never reached the server: its name did not resolve, or no
// connection could be made (a machine offline, a network namespace without
// a route). Error(system); `sdk fetch` tells it from the server's answers.
class NetworkError : public Error
{
public:
  using Error::Error;
};

// What a program that reached for the network (pip) printed when the network
// never carried it to its server: "[Errno 111] Connection refused",
// "[Errno -3] Temporary failure in name resolution"; "" when its output says no
// such thing. pip says it in its retry warnings (not with --retries 0).
std::string
network_failure_said(std::string_view output);

// NetworkError for such a program: "<subject>: <operation> failed: the
// network does not reach it: <said>" (exit 4; no operation: "<subject>:
// failed: ..."), with `hint` after opkit's own.
NetworkError
network_unreachable(const std::string& subject, std::string_view operation, const std::string& said,
                    const std::string& hint = "");

// "<subject>: <operation> stopped: not done within the setting net_deadline, N s",
// Error(system): what every network step past its deadline ends with (pip's too).
Error
past_net_deadline(const std::string& subject, std::string_view operation, const NetLimits& limits);

struct HttpOptions
{
  std::vector<std::string> headers; // "Name: value", sent as given (after validation)
  int retries = 3;                  // further attempts after the first, with backoff 0.5 s, 1 s, 2 s, ...
  std::filesystem::path ca_file;    // empty: the system CA bundle; verification is never turned off
  bool progress = false;            // draw a progress bar on stderr, when it is a terminal (the caller checks -q)
  NetLimits limits;                 // how long the whole operation may take, how slow a transfer may be
};

struct HttpResult
{
  long status = 0;          // the final answer's HTTP status
  std::string reason;       // its reason phrase ("Created"); empty over HTTP/2
  std::string body;         // its body: whole for http_get (up to 64 MiB), cut at 64 KiB otherwise
  int attempts = 0;         // how many requests were made
  std::string content_type; // its Content-Type header, as sent ("text/html; charset=utf-8"); empty if none
};

struct DownloadResult
{
  long status = 0;                      // 200 (whole file), 206 (resumed), 416 (partial_file was already complete)
  std::uint64_t bytes_total = 0;        // partial_file's size on return: the whole file's
  std::uint64_t bytes_resumed_from = 0; // bytes of partial_file kept from before the call (0: started afresh)
  int attempts = 0;                     // how many requests were made
  std::uint64_t bytes_received = 0;     // body bytes this call wrote to partial_file, over all attempts
};

// Uploads `file` to an http(s) URL with PUT, streaming the body from disk
// with Content-Length set — what artifact servers, WebDAV and presigned
// object-store URLs accept. Connection errors, timeouts, 429 and 5xx are
// retried; other answers are final. Throws Error(usage) for a URL that is not
// http(s) or a file that is not a readable regular file, Error(failed) when
// the upload is refused or cannot be made, naming the URL and the cause:
// "<url>: upload failed: HTTP 500 Internal Server Error (after 4 attempts)".
// util/http*.cpp are the one place libcurl is included; the proxy environment
// variables (https_proxy, no_proxy, ...) are honoured as libcurl does.
HttpResult
http_put_file(const std::string& url, const std::filesystem::path& file, const HttpOptions& options);

// GETs an http(s) URL into memory (index pages, JSON documents), following
// up to 5 redirects to http(s) URLs and accepting compressed answers.
// Retried like http_put_file. Throws Error(usage) for a URL that is not
// http(s), Error(failed) for an answer that is not 2xx after the retries,
// a body over 64 MiB, or a request that cannot be made:
// "<url>: download failed: HTTP 404 Not Found". Custom headers (an Accept:
// header) are sent to redirect targets too; libcurl withholds only
// Authorization and Cookie from other hosts.
HttpResult
http_get(const std::string& url, const HttpOptions& options);

// GETs an http(s) URL into `partial_file`, streamed, resuming what is there:
// when it holds N bytes (from an earlier call or an attempt cut off in this
// one) the request asks for "Range: bytes=N-"; a 206 is appended, a 200 (the
// server ignored the range) replaces the file, and a 416 means done when the
// server's size ("Content-Range: bytes */T") equals N, else a fresh start.
// A connection lost mid-body keeps the bytes received, and the next attempt
// asks only for the rest at once; such attempts do not use up `retries` (up
// to 20 per call). Redirects, retries, errors ("download failed") as http_get;
// a partial_file this call created is removed when it fails with nothing in it.
// It never renames or verifies: the caller checks the hash, then renames.
// Throws Error(system) when partial_file cannot be opened or written.
DownloadResult
http_download(const std::string& url, const std::filesystem::path& partial_file, const HttpOptions& options);

// The URL as it may be shown in messages and logs: mask_secrets'd, without its fragment.
std::string
http_display_url(const std::string& url);

// Throws Error(usage) unless `url` parses and its scheme is http or https.
void
check_http_url(const std::string& url);

// Throws Error(usage) unless `header` is "Name: value" with a token name and
// no line breaks (which would let a value inject further headers).
void
check_http_header(const std::string& header);

// --- pure helpers of http_download, public for the unit tests

// A Content-Range header's value: "bytes 0-99/1000", "bytes 0-99/*" (size
// unknown) or "bytes */1000" (a 416's: no range). -1 marks what is absent.
struct ContentRange
{
  std::int64_t first = -1;
  std::int64_t last = -1;
  std::int64_t total = -1;
};

// Parses a Content-Range value; nullopt when it is malformed or not in bytes.
std::optional<ContentRange>
parse_content_range(std::string_view value);

// What http_download does with an answer to a request for bytes `offset`
// onward (no Range header when offset is 0), given its status and its
// Content-Range header ("" when absent).
enum class ResumeAction
{
  append,   // 206 starting at offset: write after the bytes kept
  replace,  // another 2xx: the body is the whole file, so the bytes kept go
  complete, // 416 whose size is offset: the bytes kept are the whole file
  restart,  // 206 elsewhere, 416 otherwise: drop the bytes kept and ask for the whole file
  error,    // anything else: not the file's bytes (retried or reported as an error)
};
ResumeAction
resume_action(long status, std::string_view content_range, std::uint64_t offset);

} // namespace opkit
