#pragma once

// The one renderer of what opkit shows on stderr while it works: log lines,
// and one status line naming every step under way with its progress and time,
// redrawn in place on a terminal. One set of units everywhere (MB, MB/s, m:ss).
//
// On a terminal (not TERM=dumb) the status line is redrawn four times a second
// by a ticker thread, so a step that waits on a subprocess still shows its time.
// Elsewhere (a pipe, a log file, TERM=dumb) nothing is redrawn: a step's own
// log lines and a line at each quarter of a known size say how far it is, and
// after 10 s without a line, a line with the status line's text (the steps
// under way, their times and details), so a CI log is never silent for long.
// With -q nothing but errors. Colour only on a terminal and without NO_COLOR.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::progress {

struct Style
{
  bool redraw = false;  // a terminal that can rewrite a line ("\r", clear line)
  bool color = false;   // ... and NO_COLOR is unset
  bool quiet = false;   // -q: no progress at all
  bool verbose = false; // -v
  int width = 80;       // the status line is cut to fit
};

// The style of this process's stderr, as it is now (verbosity included).
Style
stderr_style();

// "0.5 MB", "214.5 MB": decimal megabytes, one decimal.
std::string
format_mb(double bytes);

// A time, "0:07", "12:40", "1:02:03"; "--:--" when unknown (negative, or over 99 hours).
std::string
format_time(double seconds);

// `now` of `total` bytes, `base` of them there before this attempt began
// `seconds` ago (a resumed download's: they count for the fraction, not the
// speed): "42% of 214.5 MB, 12.0 MB/s, 0:10 left". Without a total:
// "90.1 MB, 12.0 MB/s".
std::string
bytes_text(std::int64_t now, std::int64_t total, std::int64_t base, double seconds);

// A file as a step names it, short enough for the line: a wheel by its project
// and version ("tensorflow_cpu-2.10.1" for "tensorflow_cpu-2.10.1-cp310-...whl"),
// anything else as it is.
std::string
short_file_name(const std::string& name);

// The text shown for steps under way, cut to `width` visible characters:
// "precompiling TensorFlow's headers for tf-2.10.1 0:12 | building … 0:03".
struct Shown
{
  std::string what;
  std::string detail;
  double seconds = 0;
};
std::string
status_text(const std::vector<Shown>& steps, int width);

// A step under way, on the status line from construction to destruction.
// Thread-safe: steps may run on several threads at once.
class Step
{
public:
  // `what` names the step and its subject: "precompiling TensorFlow's headers for tf-2.10.1".
  explicit Step(std::string what);
  ~Step();
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

  // What the step is doing now, after its name: "[12/40] tf-2.10.1: compiling x.cc".
  void detail(std::string text);
  // Bytes moved: `now` of `total` (0: unknown), `base` there before this attempt began.
  // Without a terminal, a log line at each quarter of a known total.
  void bytes(std::int64_t now, std::int64_t total, std::int64_t base = 0);
  // A new attempt of the transfer starts now (its speed counts from here).
  void restart();
  // Asked at every redraw for the detail (e.g. bytes a subprocess wrote so far).
  void poll(std::function<std::string()> detail);
  // Seconds since the step began.
  double seconds() const;

  struct State; // the renderer's (progress.cpp)

private:
  std::shared_ptr<State> m_state;
};

// Writes whole lines (a log line, a compiler's diagnostics) to stderr above the status line.
void
write(std::string_view text);

// A line written before the first line this process writes on stderr (the
// status line, a log line, a compiler's diagnostics), if it writes any: -C's
// "opkit: Entering directory '/abs'". An error line alone (cli/run's) has none
// before it. first_line_written: whether it was.
void
set_first_line(std::string line);
bool
first_line_written();

// Tests: the style to use instead of stderr's (nullptr: stderr's again), and the
// stream written to instead of stderr.
void
set_style_for_testing(const Style* style);
void
set_stream_for_testing(std::FILE* stream);
// Tests: the silence after which a line is written without a terminal (10 s).
void
set_heartbeat_for_testing(double seconds);

} // namespace opkit::progress
