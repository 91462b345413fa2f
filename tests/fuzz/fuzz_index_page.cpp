// libFuzzer target for the package index pages `opkit sdk fetch` reads from
// a server it does not control: sdk::parse_simple_html (PEP 503, through
// libxml2's HTML parser) and sdk::parse_simple_json (PEP 691).
//
// Both are given every input. Malformed JSON must become opkit::Error; HTML
// has no "malformed" (a browser's parser recovers), so any exception from it
// is a finding, as is any other exception type, a sanitizer report, a crash
// or a hang (a long href or link text once overflowed std::regex's stack).

#include "opkit/sdk/index.hpp"
#include "opkit/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

void
touch(const std::vector<opkit::sdk::IndexFile>& files)
{
  size_t total = 0;
  for (const opkit::sdk::IndexFile& file : files) {
    total += file.filename.size() + file.url.size() + file.sha256.size() + file.requires_python.size();
  }
  volatile size_t sink = total;
  (void)sink;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string page(reinterpret_cast<const char*>(data), size);
  const std::string url = "https://index.example/simple/tensorflow/";
  touch(opkit::sdk::parse_simple_html(page, url));
  try {
    touch(opkit::sdk::parse_simple_json(page, url));
  } catch (const opkit::Error&) {
    // Malformed JSON, reported the documented way.
  }
  return 0;
}
