#pragma once

// Checks that the fuzz targets over the whole core share.

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace opkit_fuzz {

// The process's open file descriptors.
inline size_t
open_fds()
{
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// Aborts (a finding) when one input left descriptors open: one run of the CLI
// would not notice, but after about a thousand inputs nothing can be opened
// and every later input fails for the wrong reason.
inline void
require_no_fd_leak(size_t before, const char* what)
{
  size_t after = open_fds();
  if (after != before) {
    std::fprintf(stderr, "%s left %zu file descriptors open (%zu before)\n", what, after - before, before);
    std::abort();
  }
}

} // namespace opkit_fuzz
