#pragma once

#include "opkit/project/version.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// TF_MAJOR/MINOR/PATCH_VERSION and TF_VERSION_SUFFIX from core/public/version.h.
std::optional<project::Version>
parse_version_header(const std::string& text);

// "Name:" and "Version:" from a dist-info METADATA file.
struct WheelMetadata
{
  std::string name;
  std::string version;
};
WheelMetadata
parse_metadata(const std::string& text);

// The exact version a METADATA's Requires-Dist pins `distribution` to
// ("nvidia-cuda-runtime-cu12 (==12.4.127) ; ..." or "...cu12==12.8.90; ..."
// give "12.4.127", "12.8.90"); "" when it pins none.
std::string
pinned_version(const std::string& metadata, const std::string& distribution);

// The "Tag:" lines of a dist-info WHEEL file, joined with '.'.
std::string
parse_wheel_tags(const std::string& text);

// is_cuda_build / cuda_version / cudnn_version from build_info.py (both the
// 1.x "name = value" and the 2.x OrderedDict spellings).
CudaInfo
parse_build_info(const std::string& text);

// The C++11-ABI and string_view spellings among the exported tensorflow:: symbols.
struct SpellingCounts
{
  size_t cxx11 = 0;            // std::__cxx11:: / [abi:cxx11]: built with _GLIBCXX_USE_CXX11_ABI=1
  size_t old_string = 0;       // std::string spelled "Ss": built with _GLIBCXX_USE_CXX11_ABI=0
  size_t std_string_view = 0;  // std::basic_string_view: C++17
  size_t absl_string_view = 0; // absl::string_view as its own type: before C++17
};
SpellingCounts
count_spellings(const std::vector<std::string>& defined_symbols);

// The ABI the counts show, or nothing when they are silent or contradict each other.
std::optional<int>
abi_from_counts(const SpellingCounts& counts);

// Sets sdk.cxx11_abi from what the counts show, else the table's value, and
// warns when they show none ("<unread>; using 0 from configs/frameworks/<framework>.yaml")
// or disagree with the table ("<built> built with _GLIBCXX_USE_CXX11_ABI=1, but ... says 0 ...").
void
decide_abi(Sdk& sdk, const SpellingCounts& counts, const project::FrameworkFlags& flags, const std::string& unread,
           const std::string& built);

// Reads an imported SDK's staged files (include/, lib/, dist-info/, build_info.py)
// and works out its facts; `source` is recorded as where it came from.
Sdk
derive_facts(const std::filesystem::path& staged_root, const std::string& source);

} // namespace opkit::sdk
