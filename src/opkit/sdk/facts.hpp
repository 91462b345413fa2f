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
// give "12.4.127", "12.8.90"); "" when it pins none. With `extra`, only a
// requirement whose extras name it counts ("cuda-toolkit[cudart,cupti]==13.2.2"
// gives "13.2.2" for the extra "cupti").
std::string
pinned_version(const std::string& metadata, const std::string& distribution, const std::string& extra = "");

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

// The version a TensorFlow SDK's staged files say, and which file said it
// ("the wheel's include/tensorflow/core/public/version.h"): version.h (to
// 2.19), release_version.h (should a release define the numbers there), else
// the wheel's METADATA (2.20 and 2.21 define them in neither: their
// release_version.h stops with #error unless the build passes them as -D).
// Error(usage) without a version.h, or with defines that make no plain version.
std::pair<project::Version, std::string>
tensorflow_version(const std::filesystem::path& staged_root, const std::string& source, const WheelMetadata& metadata);

// The defines a release_version.h that stops with #error unless the build
// defines TF_MAJOR_VERSION ... (TF 2.20, 2.21) needs, for `version`:
// {"TF_MAJOR_VERSION=2", ..., "TF_VERSION_SUFFIX=\"\""}; none for a header
// that defines them, or for no header.
std::vector<std::string>
release_version_defines(const std::string& release_version_h, const project::Version& version);

// Where a fact the wheel does not say came from: "the table
// (configs/frameworks/<framework>.yaml), range >=<since>".
std::string
table_origin(const std::string& framework, const project::FrameworkFlags& flags);

// Sets sdk.cxx_standard and its origin: the table's cxx_standard_override
// when the range has one (a warning when the wheel says otherwise), else
// `derived` (what the wheel says, from `origin`), else the table's
// cxx_standard, the fallback.
void
decide_standard(Sdk& sdk, const project::FrameworkFlags& flags, std::optional<int> derived, const std::string& origin);

// Sets sdk.requires_python from METADATA's Requires-Python header (and its
// origin); a value that is no plausible specifier is Error(usage).
void
apply_python(Sdk& sdk, const std::string& metadata);

// Reads an imported SDK's staged files (include/, lib/, dist-info/, build_info.py)
// and works out its facts; `source` is recorded as where it came from.
Sdk
derive_facts(const std::filesystem::path& staged_root, const std::string& source);

} // namespace opkit::sdk
