#include "opkit/util/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace opkit {

namespace {
std::atomic<Verbosity> g_verbosity{Verbosity::normal};
std::mutex g_log_mutex;
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
  std::lock_guard<std::mutex> lock(g_log_mutex);
  std::fprintf(stderr, "%.*s%.*s\n", static_cast<int>(prefix.size()), prefix.data(), static_cast<int>(message.size()),
               message.data());
}

} // namespace opkit
