// libFuzzer target for the build files `opkit init` reads from a tree it
// adopts (adopt::read_build_description): the same bytes as a Bazel BUILD
// file, a CMakeLists.txt, a Makefile, a setup.py and a Python loader.
//
// The readers throw only opkit::Error (a list doubled past its cap, a
// library of too many sources: one line for the user): any other exception,
// a sanitizer report, a crash, a hang (a variable that expands into itself,
// deep nesting) or unbounded memory is a finding.

#include "opkit/adopt/build_files.hpp"
#include "opkit/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> files = {"BUILD", "CMakeLists.txt", "Makefile", "a.cc", "b/BUILD", "b/c.cc", "setup.py"};
  std::vector<opkit::adopt::TreeText> build = {
    {"BUILD", text}, {"b/BUILD", text}, {"CMakeLists.txt", text}, {"Makefile", text}};
  std::vector<opkit::adopt::TreeText> python = {{"setup.py", text}, {"b/loader.py", text}};
  try {
    opkit::adopt::BuildDescription description = opkit::adopt::read_build_description(build, python, files);
    volatile size_t total = description.libraries.size() + description.loaded.size() + description.notes.size();
    (void)total;
  } catch (const opkit::Error&) {
    // a bound reached: refused with its reason
  }
  return 0;
}
