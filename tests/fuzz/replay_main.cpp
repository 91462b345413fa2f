// Replays a libFuzzer corpus through LLVMFuzzerTestOneInput without libFuzzer,
// so the seeds run as an ordinary test under g++ (CTest: fuzz.*.replay).
//
//   opkit_fuzz_<target>_replay <file-or-folder>...
//
// Each argument is a file or a folder whose regular files (recursively) are
// replayed in sorted order. Prints "replayed N inputs" and returns 0; returns
// 1 when an argument is missing or unreadable, or a folder holds no files, so
// a misplaced corpus fails the test instead of passing vacuously. A crash or
// an exception other than opkit::Error escapes from the target and fails it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace stdfs = std::filesystem;

bool
read_bytes(const stdfs::path& path, std::string& out)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

// Collects the inputs an argument names; false (with a message) when it names none.
bool
collect(const stdfs::path& argument, std::vector<stdfs::path>& inputs)
{
  std::error_code ec;
  if (stdfs::is_regular_file(argument, ec)) {
    inputs.push_back(argument);
    return true;
  }
  if (!stdfs::is_directory(argument, ec)) {
    std::cerr << "replay: " << argument.string() << ": no such file or folder\n";
    return false;
  }
  std::vector<stdfs::path> found;
  for (stdfs::recursive_directory_iterator it(argument, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) {
      found.push_back(it->path());
    }
  }
  if (ec) {
    std::cerr << "replay: " << argument.string() << ": " << ec.message() << "\n";
    return false;
  }
  if (found.empty()) {
    std::cerr << "replay: " << argument.string() << ": folder holds no inputs\n";
    return false;
  }
  std::sort(found.begin(), found.end());
  inputs.insert(inputs.end(), found.begin(), found.end());
  return true;
}

} // namespace

int
main(int argc, char** argv)
{
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " <file-or-folder>...\n";
    return 1;
  }
  std::vector<stdfs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!collect(argv[i], inputs)) {
      return 1;
    }
  }
  size_t replayed = 0;
  std::string bytes;
  for (const stdfs::path& input : inputs) {
    if (!read_bytes(input, bytes)) {
      std::cerr << "replay: " << input.string() << ": cannot read\n";
      return 1;
    }
    // Name the input first, so a crash report can be traced back to its file.
    std::cerr << "replay: " << input.string() << " (" << bytes.size() << " bytes)\n";
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    ++replayed;
  }
  std::cout << "replayed " << replayed << " inputs\n";
  return 0;
}
