#pragma once

// The facts of a PyTorch SDK, read from the wheel's own files: pure functions
// of their texts and symbol names (configs/frameworks/torch.yaml says which
// files and which namespaces).

#include "opkit/project/framework_table.hpp"
#include "opkit/project/version.hpp"
#include "opkit/sdk/facts.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// What torch/version.py says: `__version__ = '2.5.1+cu124'` and
// `cuda: Optional[str] = '12.4'` (or `cuda = None` in a CPU build).
struct TorchVersionInfo
{
  project::Version version; // the public version: 2.5.1, without the local part
  std::string local;        // the local part: "cu124", "cpu", or ""
  std::string cuda;         // "12.4", or "" when `cuda` is None or absent

  bool is_cuda_build() const { return !cuda.empty(); }
};

// The value of a top-level `name = '...'` (or `name: Type = '...'`) in a
// Python file's text: the quoted string, "" for None, nothing when the name
// has no such line. A linear scan of lines: the file comes from a wheel.
std::optional<std::string>
python_assignment(const std::string& text, const std::string& name);

// Parses torch/version.py. Nothing when it has no `__version__`; Error(usage)
// when a value is not plausible (a version opkit cannot read, or a value
// longer than 64 characters or with characters other than letters, digits
// and . _ + -).
std::optional<TorchVersionInfo>
parse_torch_version_py(const std::string& text);

// The C++ standard torch.utils.cpp_extension compiles an extension with: the
// `-std=c++NN` of its `common_cflags +=` line (the flags every extension
// gets), else its first `-std=c++NN` outside a comment. Nothing when it says
// none, or a standard that is not 11, 14, 17, 20, 23 or 26.
std::optional<int>
cxx_standard_from_cpp_extension(const std::string& text);

// The standard TorchConfig.cmake gives the torch target: `CXX_STANDARD NN`,
// else an interface `-std=c++NN`. Nothing when it says none.
std::optional<int>
cxx_standard_from_torch_config(const std::string& text);

// What a staged torch SDK's fact files (facts/, the table's fact_files) say
// of its standard, and which said it ("the wheel's
// torch/utils/cpp_extension.py"): cpp_extension.py, else TorchConfig.cmake;
// nothing (and "") when neither says one.
std::pair<std::optional<int>, std::string>
torch_cxx_standard(const std::filesystem::path& staged_root, const project::SdkLayout& layout);

// The C++11-ABI spellings among the exported symbols that start with one of
// `namespaces` ("_ZN3c10", "_ZN2at", "_ZN5torch"); the libstdc++ symbols a
// torch library also exports are not counted. Only `cxx11` and `old_string`
// are filled; read them with abi_from_counts.
SpellingCounts
count_abi_spellings(const std::vector<std::string>& defined_symbols, const std::vector<std::string>& namespaces);

// The python and platform tags a wheel's file name gives ("cp310",
// "manylinux1_x86_64" for torch-2.5.1-cp310-cp310-manylinux1_x86_64.whl;
// a path's folders are ignored), the first of each where a tag holds several.
// Torch 2.5/2.6 wheels' dist-info/WHEEL says linux_x86_64: the file name is
// what the index publishes. Nothing when the name is no wheel's.
struct WheelFileTags
{
  std::string python;
  std::string abi;
  std::string platform;

  std::string tag() const { return python + "-" + abi + "-" + platform; }
};
std::optional<WheelFileTags>
wheel_file_tags(const std::string& path);

// The store id of a torch SDK: "torch-2.5.1", with "-cuda" for a CUDA build
// (as "tensorflow-2.10.1-cuda").
std::string
torch_sdk_id(const TorchVersionInfo& info);

// Reads an imported torch SDK's staged files (version.py, dist-info/, the
// libraries under lib/) and works out its facts: the version and CUDA of
// version.py, the ABI of the table's abi_libraries (checked against
// configs/frameworks/torch.yaml), the wheel tag of `source`'s file name (else
// dist-info/WHEEL's). `source` is recorded as where it came from.
Sdk
derive_torch_facts(const std::filesystem::path& staged_root, const std::string& source);

} // namespace opkit::sdk
