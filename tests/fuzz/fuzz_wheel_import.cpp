// libFuzzer target for `opkit sdk add`: sdk::import_sdk on a wheel written
// from the input, into a store of its own (OPKIT_HOME in a temporary folder).
//
// Every malformed wheel must become opkit::Error and leave nothing behind in
// the store; only opkit::Error is swallowed. Any other exception, a sanitizer
// report, a crash, a hang, unbounded memory, or a file written outside the
// store is a finding.

#include "fuzz_checks.hpp"

#include "opkit/sdk/importer.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace {

namespace stdfs = std::filesystem;

// Says on stderr what a finding left behind: its files, their longest path,
// and why removing it fails, for the report beside the reproducer.
void
describe_leftover(const stdfs::path& path)
{
  std::error_code ec;
  size_t files = 0, longest = 0;
  for (auto it = stdfs::recursive_directory_iterator(path, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    ++files;
    longest = std::max(longest, it->path().native().size());
    if (files <= 20) {
      std::fprintf(stderr, "leftover: %s\n", it->path().c_str());
    }
  }
  std::fprintf(stderr, "leftover %s: %zu entries, longest path %zu bytes, walk: %s\n", path.c_str(), files, longest,
               ec ? ec.message().c_str() : "ok");
  stdfs::remove_all(path, ec);
  std::fprintf(stderr, "leftover: remove_all: %s\n", ec ? ec.message().c_str() : "ok");
}

// Fails (so the fuzzer records the input) when an import left anything but
// committed SDKs and the store's own files in the home.
void
require_clean(const stdfs::path& home)
{
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(home / "sdks", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(".opkit-partial.", 0) == 0) {
      describe_leftover(entry.path());
      std::abort(); // a failed import left its staging behind
    }
  }
  for (const auto& entry : stdfs::directory_iterator(home, ec)) {
    std::string name = entry.path().filename().string();
    if (name != "sdks" && name != "locks" && name != "input.whl" && name != "indexes") {
      std::abort(); // something was written outside the store
    }
  }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  static opkit::fs::TempDir home("opkit-fuzz-import");
  static bool once = [] {
    ::setenv("OPKIT_HOME", home.path().c_str(), 1);
    opkit::set_verbosity(opkit::Verbosity::quiet);
    return true;
  }();
  (void)once;
  stdfs::path wheel = home.path() / "input.whl";
  opkit::fs::write_file_atomic(wheel, std::string_view(reinterpret_cast<const char*>(data), size));
  size_t fds_before = opkit_fuzz::open_fds();
  try {
    opkit::sdk::Sdk sdk = opkit::sdk::import_sdk(wheel);
    std::error_code ec;
    stdfs::remove_all(sdk.root, ec); // the next input starts from an empty store
  } catch (const opkit::Error&) {
    // Malformed input, reported the documented way.
  }
  opkit_fuzz::require_no_fd_leak(fds_before, "the import");
  require_clean(home.path());
  return 0;
}
