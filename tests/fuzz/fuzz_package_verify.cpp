// libFuzzer target for `opkit package verify`: package::verify_package on an
// archive (any format libarchive reads: tar, tar.gz, zip) written from the input.
//
// Every malformed archive or manifest must become opkit::Error or a list of
// problems; only opkit::Error is swallowed. Any other exception, a sanitizer
// report, a crash, a hang, unbounded memory or a file descriptor left open is
// a finding.

#include "fuzz_checks.hpp"

#include "opkit/package/package.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  static opkit::fs::TempDir dir("opkit-fuzz-verify");
  opkit::set_verbosity(opkit::Verbosity::quiet);
  std::filesystem::path package = dir.path() / "package.tar.gz";
  opkit::fs::write_file_atomic(package, std::string_view(reinterpret_cast<const char*>(data), size));
  size_t fds_before = opkit_fuzz::open_fds();
  try {
    std::vector<std::string> problems = opkit::package::verify_package(package);
    volatile size_t count = problems.size();
    (void)count;
  } catch (const opkit::Error&) {
    // Malformed input, reported the documented way.
  }
  opkit_fuzz::require_no_fd_leak(fds_before, "the verify");
  return 0;
}
