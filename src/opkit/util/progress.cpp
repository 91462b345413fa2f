#include "opkit/util/progress.hpp"

#include "opkit/util/secrets.hpp"

#include "opkit/util/log.hpp"
#include "opkit/util/whole_numbers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sys/ioctl.h>
#include <unistd.h>

namespace opkit::progress {

namespace {

using Clock = std::chrono::steady_clock;

double
since(Clock::time_point start)
{
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

struct Step::State
{
  std::string what;
  std::string detail;
  std::function<std::string()> poll;
  Clock::time_point start = Clock::now();
  Clock::time_point attempt = Clock::now(); // a transfer's speed counts from here
  int next_quarter = 1;                     // without a terminal: the next quarter logged
};

namespace {

// The status line and the steps on it. Never destroyed: the ticker thread may
// outlive main's return.
class Renderer
{
public:
  void add(const std::shared_ptr<Step::State>& state)
  {
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_steps.empty()) {
      m_style = m_forced ? *m_forced : stderr_style();
    }
    m_steps.push_back(state);
    // On a terminal the ticker redraws; elsewhere it writes the heartbeat line.
    if (!m_style.quiet && !m_ticking) {
      m_ticking = true;
      std::thread([this] { tick(); }).detach();
    }
    draw_locked();
    m_wake.notify_all();
  }

  void remove(const std::shared_ptr<Step::State>& state)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_steps.erase(std::remove(m_steps.begin(), m_steps.end(), state), m_steps.end());
    draw_locked();
  }

  // Redrawn at most ten times a second, unless `now` (a transfer's end) must be seen.
  void changed(bool now = false)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (now || Clock::now() - m_last_draw >= std::chrono::milliseconds(100)) {
      draw_locked();
    }
  }

  void write(std::string_view raw)
  {
    std::string text = mask_secrets(raw); // every line opkit writes on stderr, what pip and servers say included
    std::lock_guard<std::mutex> lock(m_mutex);
    clear_locked();
    first_line_locked();
    std::fwrite(text.data(), 1, text.size(), stream());
    if (!text.empty() && text.back() != '\n') {
      std::fputc('\n', stream());
    }
    m_last_line = Clock::now();
    draw_locked();
    std::fflush(stream());
  }

  // Without a terminal: a line at each quarter of a known size, once the step has run 2 s.
  void quarter(Step::State& state, std::int64_t now, std::int64_t total, std::int64_t base)
  {
    std::string line;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      if (m_style.redraw || m_style.quiet || total <= 0 || state.next_quarter > 3
          || now * 4 < total * state.next_quarter || since(state.start) < 2) {
        return;
      }
      while (state.next_quarter <= 3 && now * 4 >= total * state.next_quarter) {
        ++state.next_quarter;
      }
      line = state.what + ": " + bytes_text(now, total, base, since(state.attempt));
    }
    write(line);
  }

  std::mutex& mutex() { return m_mutex; }

  void force(const Style* style)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_forced = style ? std::optional<Style>(*style) : std::nullopt;
    m_style = style ? *style : Style{};
  }

  void set_stream(std::FILE* out)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stream = out;
  }

  void set_first_line(std::string line)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_first_line = std::move(line);
    m_first_written = false;
  }

  bool first_line_written()
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_first_written;
  }

  void set_heartbeat(double seconds)
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_heartbeat = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

private:
  std::FILE* stream() const { return m_stream ? m_stream : stderr; }

  void tick()
  {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
      m_wake.wait_for(lock, std::chrono::milliseconds(250));
      if (!m_steps.empty()) {
        draw_locked();
        heartbeat_locked();
      }
    }
  }

  void clear_locked()
  {
    if (m_drawn) {
      std::fputs("\r\x1b[K", stream());
      m_drawn = false;
    }
  }

  // The steps under way as the status line shows them, each polled for its detail.
  std::vector<Shown> shown_locked()
  {
    std::vector<Shown> shown;
    for (const auto& step : m_steps) {
      if (step->poll) {
        step->detail = step->poll();
      }
      shown.push_back({step->what, step->detail, since(step->start)});
    }
    return shown;
  }

  // Without a terminal: the steps under way and their times, when no line
  // was written for a heartbeat (10 s), so a CI log never sits silent.
  void heartbeat_locked()
  {
    if (m_style.redraw || m_style.quiet) {
      return;
    }
    Clock::time_point quiet_since = m_last_line;
    for (const auto& step : m_steps) {
      quiet_since = std::max(quiet_since, step->start); // a step's own start counts as a line
    }
    if (Clock::now() - quiet_since < m_heartbeat) {
      return;
    }
    std::string line = mask_secrets(status_text(shown_locked(), 400));
    first_line_locked();
    fmt::print(stream(), "{}\n", line);
    std::fflush(stream());
    m_last_line = Clock::now();
  }

  // The line that comes before all others (-C's folder), once, before the first.
  void first_line_locked()
  {
    if (!m_first_written && !m_first_line.empty()) {
      fmt::print(stream(), "{}\n", m_first_line);
      m_first_written = true;
    }
  }

  void draw_locked()
  {
    if (!m_style.redraw || m_style.quiet) {
      return;
    }
    if (m_steps.empty()) {
      clear_locked();
      std::fflush(stream());
      return;
    }
    first_line_locked();
    std::string line = status_text(shown_locked(), m_style.width);
    line = mask_secrets(line);
    fmt::print(stream(), "\r\x1b[K{}", line);
    std::fflush(stream());
    m_drawn = true;
    m_last_draw = Clock::now();
  }

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::vector<std::shared_ptr<Step::State>> m_steps;
  Style m_style;
  std::optional<Style> m_forced;
  std::FILE* m_stream = nullptr;
  bool m_drawn = false;
  bool m_ticking = false;
  Clock::time_point m_last_draw;
  std::string m_first_line; // set_first_line's
  bool m_first_written = false;
  Clock::time_point m_last_line;                          // without a terminal: the last line written
  Clock::duration m_heartbeat = std::chrono::seconds(10); // ... and the silence that writes one
};

Renderer&
renderer()
{
  static Renderer* one = new Renderer; // NOLINT: never destroyed, see Renderer
  return *one;
}

// Cut to `width` characters, counting a UTF-8 sequence as one.
std::string
cut(const std::string& text, size_t width)
{
  size_t shown = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && shown++ == width) {
      return text.substr(0, i);
    }
  }
  return text;
}

} // namespace

Style
stderr_style()
{
  Style style;
  const char* term = std::getenv("TERM");
  style.redraw = ::isatty(STDERR_FILENO) == 1 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
  const char* no_color = std::getenv("NO_COLOR");
  style.color = style.redraw && (no_color == nullptr || *no_color == '\0');
  style.verbose = verbosity() >= Verbosity::verbose;
  style.quiet = verbosity() == Verbosity::quiet;
  winsize size{};
  if (style.redraw && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    style.width = size.ws_col;
  }
  return style;
}

std::string
format_mb(double bytes)
{
  return fmt::format("{:.1f} MB", std::max(0.0, bytes) / 1e6);
}

std::string
format_time(double seconds)
{
  if (!(seconds >= 0) || seconds >= 100 * 3600) {
    return "--:--";
  }
  auto total = static_cast<long>(rounded_up(seconds));
  long hours = total / 3600;
  long minutes = total / 60 % 60;
  long secs = total % 60;
  return hours > 0 ? fmt::format("{}:{:02}:{:02}", hours, minutes, secs) : fmt::format("{}:{:02}", minutes, secs);
}

std::string
bytes_text(std::int64_t now, std::int64_t total, std::int64_t base, double seconds)
{
  double moved = static_cast<double>(now - std::min(now, base)); // this attempt's bytes
  double speed = seconds > 0 ? moved / seconds : 0;
  std::string rate = fmt::format("{:.1f} MB/s", speed / 1e6);
  if (total <= 0) {
    return fmt::format("{}, {}", format_mb(static_cast<double>(now)), rate);
  }
  double fraction = std::min(1.0, static_cast<double>(now) / static_cast<double>(total));
  double left = speed > 0 ? static_cast<double>(std::max<std::int64_t>(0, total - now)) / speed : -1;
  return fmt::format("{:.0f}% of {}, {}, {} left", std::floor(fraction * 100), format_mb(static_cast<double>(total)),
                     rate, format_time(left));
}

std::string
short_file_name(const std::string& name)
{
  const std::string suffix = ".whl";
  size_t first = name.find('-');
  size_t second = first == std::string::npos ? first : name.find('-', first + 1);
  bool wheel = name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return wheel && second != std::string::npos ? name.substr(0, second) : name;
}

std::string
status_text(const std::vector<Shown>& steps, int width)
{
  std::vector<std::string> parts;
  for (const Shown& step : steps) {
    std::string part = step.what + " (" + format_time(std::floor(step.seconds)) + ")"; // time so far: whole seconds
    parts.push_back(step.detail.empty() ? part : part + ": " + step.detail);
  }
  std::string line;
  for (const std::string& part : parts) {
    line += (line.empty() ? "" : " | ") + part;
  }
  return cut(line, static_cast<size_t>(std::max(10, width - 1)));
}

Step::Step(std::string what)
  : m_state(std::make_shared<State>())
{
  m_state->what = std::move(what);
  renderer().add(m_state);
}

Step::~Step()
{
  renderer().remove(m_state);
}

void
Step::detail(std::string text)
{
  {
    std::lock_guard<std::mutex> lock(renderer().mutex());
    m_state->detail = std::move(text);
  }
  renderer().changed();
}

void
Step::bytes(std::int64_t now, std::int64_t total, std::int64_t base)
{
  {
    std::lock_guard<std::mutex> lock(renderer().mutex());
    m_state->detail = bytes_text(now, total, base, since(m_state->attempt));
  }
  renderer().changed(total > 0 && now >= total);
  renderer().quarter(*m_state, now, total, base);
}

void
Step::restart()
{
  std::lock_guard<std::mutex> lock(renderer().mutex());
  m_state->attempt = Clock::now();
}

void
Step::poll(std::function<std::string()> detail)
{
  std::lock_guard<std::mutex> lock(renderer().mutex());
  m_state->poll = std::move(detail);
}

double
Step::seconds() const
{
  return since(m_state->start);
}

void
write(std::string_view text)
{
  renderer().write(text);
}

void
set_style_for_testing(const Style* style)
{
  renderer().force(style);
}

void
set_stream_for_testing(std::FILE* stream)
{
  renderer().set_stream(stream);
}

void
set_first_line(std::string line)
{
  renderer().set_first_line(std::move(line));
}

bool
first_line_written()
{
  return renderer().first_line_written();
}

void
set_heartbeat_for_testing(double seconds)
{
  renderer().set_heartbeat(seconds);
}

} // namespace opkit::progress
