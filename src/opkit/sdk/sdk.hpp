#pragma once

#include "opkit/project/version.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// CUDA facts from the wheel's tensorflow/python/platform/build_info.py.
struct CudaInfo
{
  bool is_cuda_build = false;
  std::string cuda_version;
  std::string cudnn_version;
};

// What opkit knows about one imported SDK; stored as <sdk>/sdk.json.
struct Sdk
{
  std::filesystem::path root; // <OPKIT_HOME>/sdks/<id>
  std::string id;             // "tensorflow-2.10.1", "-cuda" appended for CUDA builds
  std::string framework = "tensorflow";
  std::string distribution; // "tensorflow", "tensorflow-cpu", ...
  project::Version version;
  int cxx11_abi = 0;             // read from the framework library's mangled names
  std::string abi_evidence;      // why: counts of each spelling
  int cxx_standard = 0;          // from configs, cross-checked with string_view spellings
  std::string framework_library; // file under lib/
  std::string soname;            // DT_SONAME of that file
  CudaInfo cuda;
  std::string wheel_tag;       // from dist-info/WHEEL, when imported from a wheel
  std::string requires_python; // dist-info/METADATA's Requires-Python (">=3.10"), "" when it says none
  // Defines the SDK's headers need from the build (-D, as Bazel's
  // release_version target gives them): TF 2.20+'s release_version.h stops
  // with #error without TF_MAJOR_VERSION ... TF_VERSION_SUFFIX.
  std::vector<std::string> defines;
  // Where each derived fact came from, by fact ("version", "cxx_standard",
  // "cxx11_abi", "platform", "framework_library", "python"): "the wheel's
  // torch/utils/cpp_extension.py", "the table, range >=2.10". Empty in an
  // SDK imported before opkit recorded them.
  std::map<std::string, std::string> origins;
  std::string source;                // the wheel or folder it came from
  std::vector<std::string> warnings; // disagreements noticed during import

  std::filesystem::path include_dir() const { return root / "include"; }
  std::filesystem::path lib_dir() const { return root / "lib"; }
  // The framework library's symbol index (elf/symbol_index), made at import.
  std::filesystem::path symbol_index() const { return root / "symbols" / (framework_library + ".idx"); }
};

Json
to_json(const Sdk& sdk);
Sdk
sdk_from_json(const Json& json, const std::filesystem::path& root);

// The CPython a wheel tag names: "cp310-cp310-manylinux..." is "3.10"; "" when
// it names none ("py3-none-any", an SDK from a folder: "").
std::string
python_of_wheel_tag(const std::string& tag);

// Whether `id` may name a folder of the store: "tensorflow-" (or another
// framework's name of configs/frameworks/ and '-': "torch-") and then at most
// 96 letters, digits and . _ + -, with no "..". An id is made from a wheel's
// contents (version.h), so it is checked before it becomes a path.
bool
is_valid_sdk_id(const std::string& id);

// What an SDK id says: "torch-2.8.0-cuda" is framework "torch", version text
// "2.8.0", a CUDA build. Nothing when it starts with no framework's name and '-'.
struct SdkIdParts
{
  std::string framework;
  std::string version; // the text between the prefix and "-cuda" (or the end)
  bool cuda = false;
};
std::optional<SdkIdParts>
parse_sdk_id(const std::string& id);

} // namespace opkit::sdk
