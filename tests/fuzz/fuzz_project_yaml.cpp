// libFuzzer target for opkit.yaml: project::parse_manifest, the reader every
// command runs on a project's own file.
//
// Every malformed input must become opkit::Error (a "file:line:col: cause"
// line); only that exception is swallowed. Another exception type (a
// yaml-cpp exception that escaped, std::out_of_range from a number), a sanitizer
// report, a crash, a hang (an alias bomb) or unbounded memory is a finding.

#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    opkit::project::Manifest manifest = opkit::project::parse_manifest(text, "opkit.yaml", "/fuzz/project");
    // Walk what single-op commands use, as they would.
    volatile size_t total = manifest.name.size() + manifest.libraries.size() + manifest.target_versions.size();
    (void)total;
    if (!manifest.libraries.empty()) {
      volatile size_t ops = manifest.primary_library().ops.size() + manifest.primary_op().name.size();
      (void)ops;
    }
  } catch (const opkit::Error&) {
    // Malformed input, reported the documented way.
  }
  return 0;
}
