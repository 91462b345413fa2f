#include "opkit/util/http_progress.hpp"

#include "opkit/util/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace opkit::http_detail {

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

std::string
format_eta(double seconds)
{
  if (!(seconds >= 0) || seconds >= 100 * 3600) {
    return "--:--";
  }
  auto total = static_cast<long>(std::ceil(seconds));
  long hours = total / 3600;
  long minutes = total / 60 % 60;
  long secs = total % 60;
  return hours > 0 ? fmt::format("{}:{:02}:{:02}", hours, minutes, secs) : fmt::format("{}:{:02}", minutes, secs);
}

std::string
progress_line(std::int64_t now, std::int64_t total, std::int64_t base, double seconds)
{
  double fraction = total > 0 ? std::min(1.0, static_cast<double>(now) / static_cast<double>(total)) : 0;
  const int width = 30;
  int filled = static_cast<int>(fraction * width);
  double moved = static_cast<double>(now - std::min(now, base)); // this answer's bytes
  double speed = seconds > 0 ? moved / seconds : 0;
  std::string eta =
    speed > 0 ? format_eta(static_cast<double>(std::max<std::int64_t>(0, total - now)) / speed) : format_eta(-1);
  return fmt::format("{:3.0f}% [{}{}] {} / {}  {}/s  ETA {}", fraction * 100, std::string(filled, '#'),
                     std::string(width - filled, '-'), format_size(static_cast<double>(now)),
                     format_size(static_cast<double>(total)), format_size(speed), eta);
}

void
ProgressBar::clear()
{
  if (m_drawn) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    m_drawn = false;
  }
}

void
ProgressBar::draw(std::int64_t now, std::int64_t total)
{
  auto t = Clock::now();
  bool throttled = now < total && t - m_last < std::chrono::milliseconds(100);
  if (!m_enabled || total <= 0 || (m_drawn && (now == m_shown || throttled))) {
    return; // libcurl calls often, also while it waits for the answer
  }
  m_last = t;
  m_shown = now;
  double seconds = std::chrono::duration<double>(t - m_start).count();
  fmt::print(stderr, "\r\033[K{}", progress_line(now, total, m_base, seconds));
  std::fflush(stderr);
  m_drawn = true;
}

} // namespace opkit::http_detail
