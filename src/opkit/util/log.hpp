#pragma once

#include <fmt/core.h>

#include <string>
#include <string_view>
#include <vector>

namespace opkit {

enum class Verbosity
{
  quiet = 0,
  normal = 1,
  verbose = 2
};

void
set_verbosity(Verbosity level);
Verbosity
verbosity();

// -C DIR: the folder opkit changed into, absolute, as its "Entering directory"
// line names it (cli/run); "" when opkit runs where it was started. What opkit
// shows relative is relative to it; a compiler's file names are shown absolute.
void
set_entered_folder(std::string folder);
std::string
entered_folder();

// Progress and diagnostics go to stderr; results go to stdout (printed by cli/).
void
log_line(Verbosity level, std::string_view prefix, std::string_view message);

template<typename... Args>
void
log_info(fmt::format_string<Args...> format, Args&&... args)
{
  if (verbosity() >= Verbosity::normal) {
    log_line(Verbosity::normal, "", fmt::format(format, std::forward<Args>(args)...));
  }
}

// Not with -q ("only results and errors"): an error after a warning stays the one line.
template<typename... Args>
void
log_warning(fmt::format_string<Args...> format, Args&&... args)
{
  if (verbosity() >= Verbosity::normal) {
    log_line(Verbosity::normal, "opkit: warning: ", fmt::format(format, std::forward<Args>(args)...));
  }
}

// Formats only when -v is on, so debug logging costs nothing otherwise.
template<typename... Args>
void
log_debug(fmt::format_string<Args...> format, Args&&... args)
{
  if (verbosity() >= Verbosity::verbose) {
    log_line(Verbosity::verbose, "opkit: ", fmt::format(format, std::forward<Args>(args)...));
  }
}

// Keeps the lines written at the normal level (notes and warnings) while it
// lives, so a result kept for later (a no-op build) can write them again.
// One at a time.
class LogTap
{
public:
  LogTap();
  ~LogTap();
  LogTap(const LogTap&) = delete;
  LogTap& operator=(const LogTap&) = delete;
  std::vector<std::string> lines() const;
};

} // namespace opkit
