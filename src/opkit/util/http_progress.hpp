#pragma once

// The progress bar of util/http*'s transfers: one line redrawn in place on
// stderr (only when it is a terminal: the caller decides). No libcurl here.

#include <chrono>
#include <cstdint>
#include <string>

namespace opkit::http_detail {

// "512 B", "1.5 KiB", "214.5 MiB".
std::string
format_size(double bytes);

// A time left, "0:07", "12:40", "1:02:03"; "--:--" when unknown (negative, or over 99 hours).
std::string
format_eta(double seconds);

// The bar's text for `now` of `total` bytes, `base` of them there before this
// answer started `seconds` ago (a resumed download's; they count for the
// fraction, not for the speed): "
//  42% [############------------------] 90.1 MiB / 214.5 MiB  12.0 MiB/s  ETA 0:10".
// The ETA is the bytes left at this answer's speed so far.
std::string
progress_line(std::int64_t now, std::int64_t total, std::int64_t base, double seconds);

// A one-line bar redrawn in place on stderr, at most ten times a second.
class ProgressBar
{
public:
  explicit ProgressBar(bool enabled)
    : m_enabled(enabled)
  {
  }
  ~ProgressBar() { clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // An upload's bytes sent, of `total`.
  void sent(std::int64_t now, std::int64_t total) { draw(now, total); }

  // A download's bytes received in this answer, of this answer's `total`: a
  // resumed download adds the bytes it already had (libcurl counts only this answer's).
  void received(std::int64_t now, std::int64_t total) { draw(m_base + now, total > 0 ? m_base + total : 0); }

  // Erases the bar, so whatever is printed next starts on a clean line.
  void clear();

  // A new answer starts, `base` bytes already there.
  void restart(std::int64_t base = 0)
  {
    m_start = Clock::now();
    m_base = base;
  }

  // The bytes the file already holds when this answer's body starts.
  void set_base(std::int64_t base) { m_base = base; }

private:
  using Clock = std::chrono::steady_clock;

  void draw(std::int64_t now, std::int64_t total);

  bool m_enabled;
  bool m_drawn = false;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last;
  std::int64_t m_shown = -1;
  std::int64_t m_base = 0;
};

} // namespace opkit::http_detail
