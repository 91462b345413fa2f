#include "opkit/util/log.hpp"

#include "opkit/util/progress.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace opkit {

namespace {
std::atomic<Verbosity> g_verbosity{Verbosity::normal};
std::mutex g_tap_mutex;
std::optional<std::vector<std::string>> g_tap; // the LogTap's lines, while one lives
std::string g_entered_folder;                  // set once, while the command line is parsed
} // namespace

void
set_entered_folder(std::string folder)
{
  g_entered_folder = std::move(folder);
}

std::string
entered_folder()
{
  return g_entered_folder;
}

void
set_verbosity(Verbosity level)
{
  g_verbosity = level;
}

Verbosity
verbosity()
{
  return g_verbosity;
}

void
log_line(Verbosity level, std::string_view prefix, std::string_view message)
{
  if (level > g_verbosity && level != Verbosity::quiet) {
    return;
  }
  std::string line(prefix);
  line += message;
  if (level == Verbosity::normal) {
    std::lock_guard<std::mutex> lock(g_tap_mutex);
    if (g_tap) {
      g_tap->push_back(line);
    }
  }
  progress::write(line); // above the status line, if one is shown
}

LogTap::LogTap()
{
  std::lock_guard<std::mutex> lock(g_tap_mutex);
  g_tap.emplace();
}

LogTap::~LogTap()
{
  std::lock_guard<std::mutex> lock(g_tap_mutex);
  g_tap.reset();
}

std::vector<std::string>
LogTap::lines() const
{
  std::lock_guard<std::mutex> lock(g_tap_mutex);
  return g_tap ? *g_tap : std::vector<std::string>();
}

} // namespace opkit
