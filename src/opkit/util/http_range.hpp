#pragma once

#include "opkit/util/http.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace opkit {

// Reads parts of one file over http(s) with Range requests, all on one
// libcurl handle, so one connection serves them all. The first request
// follows redirects (as http_get); the later ones go straight to where it
// led. Retried like http_get; a connection lost mid-body continues with a
// range for the rest at once (such attempts do not use up `retries`).
// No Accept-Encoding: the ranges are of the file's own bytes.
class HttpRangeReader
{
public:
  HttpRangeReader(std::string url, HttpOptions options);
  ~HttpRangeReader();
  HttpRangeReader(const HttpRangeReader&) = delete;
  HttpRangeReader& operator=(const HttpRangeReader&) = delete;

  // The first request: the file's last `count` bytes ("Range: bytes=-count"),
  // whose Content-Range gives the file's size. nullopt when the server does
  // not serve usable ranges of it: it answers 200 (the transfer is stopped at
  // once), a 206 that does not say the file's size or holds other bytes, or
  // 416. An error answer (404, ...) is Error(failed) as in http_get.
  std::optional<std::string> open_tail(std::uint64_t count);

  // The file's size, known once open_tail returned bytes.
  std::uint64_t size() const;

  // Bytes [offset, offset + count) of the file (after open_tail), passed to
  // `sink` in order as they arrive. Error(failed) when the server answers
  // with other bytes than asked for (a 200, another Content-Range, more than
  // asked, the size changed); what `sink` throws ends the read.
  void read(std::uint64_t offset, std::uint64_t count, const std::function<void(std::string_view)>& sink);
  std::string read(std::uint64_t offset, std::uint64_t count);

  std::uint64_t bytes_received() const; // body bytes received, over all requests
  int requests() const;                 // requests made, over all reads and their attempts

private:
  struct State;
  std::unique_ptr<State> m_state;
};

} // namespace opkit
