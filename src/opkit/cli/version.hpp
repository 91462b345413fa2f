#pragma once

#include <string>
#include <utility>
#include <vector>

namespace opkit::cli {

// What this binary was built from and with, fixed at build time.
struct BuildInfo
{
  std::string commit;     // `git describe --always --dirty` of the source, or "unknown"
  std::string compiler;   // "GNU 12.2.0"
  std::string build_type; // "RelWithDebInfo"
  std::vector<std::pair<std::string, std::string>> libraries; // built against: name, version
};

// Defined in the file cmake/build_info.cmake generates on every build (the
// commit changes without a reconfigure).
BuildInfo
build_info();

// `opkit --version`: "opkit 0.1.0"; verbose adds the build facts and the
// versions of the libraries opened at run time.
std::string
version_text(bool verbose);

} // namespace opkit::cli
