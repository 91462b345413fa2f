#include "opkit/util/log.hpp"

#include "opkit/util/progress.hpp"

#include <atomic>
#include <string>

namespace opkit {

namespace {
std::atomic<Verbosity> g_verbosity{Verbosity::normal};
} // namespace

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
  progress::write(line); // above the status line, if one is shown
}

} // namespace opkit
