#pragma once

#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::build {

// Deliberate deviations from an SDK's facts, for reproducing mismatches.
struct FlagOverrides
{
  std::optional<int> cxx11_abi;
  std::optional<int> cxx_standard;
};

struct CompileStep
{
  std::string source;             // absolute
  std::string object;             // relative to the target's build folder
  std::vector<std::string> flags; // everything but -c, -o and the depfile flags
  bool device = false;            // CUDA device code: compiled by nvcc
};

// Where the CUDA toolkit is, for projects with device sources.
struct CudaToolkit
{
  std::filesystem::path nvcc;
  std::filesystem::path include_dir;
  std::filesystem::path lib_dir;
};

// A precompiled header the plan uses: each of `sources` whose compile flags
// are exactly `flags` gets `-include header` (gcc then loads header.gch).
struct PchUse
{
  std::string header;
  std::vector<std::string> flags;
  std::vector<std::string> sources; // as given to plan_library
};

// True for a source nvcc compiles (*.cu.cc, *.cu).
bool is_device_source(const std::string& path);

// Everything needed to build one artifact against one SDK: pure data, so the
// same inputs always render the same build.ninja.
struct TargetPlan
{
  std::string compiler;                 // the C++ compiler's path
  std::string nvcc;                     // nvcc's path, when there are device sources
  std::filesystem::path build_dir;      // absolute
  std::string output;                   // relative to build_dir
  std::vector<CompileStep> compiles;
  std::vector<std::string> link_flags;  // after the objects: -shared (libraries), -L<sdk> -l...
  std::string static_output;            // also lib<name>.a of the project's own objects; empty: none
  std::vector<std::string> launcher;    // before the C++ compiler: ccache, distcc (build/sharing)
  int link_jobs = 0;                    // >0: links at most this many at once (compiles go to distcc helpers)
};

// The compile flags a version's SDK needs, in order: -std, the ABI macro,
// Eigen's alignment, common flags, warnings, then the SDK's include folder.
std::vector<std::string> sdk_compile_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags,
                                           const FlagOverrides& overrides);

// The flags that link against the SDK's framework library (after the objects).
std::vector<std::string> sdk_link_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags);

// Plans lib<name>.so from sources relative to `source_root`, plus sources
// opkit generated (absolute paths, e.g. the compat shim).
TargetPlan plan_library(const std::string& compiler, const std::string& name,
                        const std::filesystem::path& source_root, const std::vector<std::string>& sources,
                        const std::vector<std::filesystem::path>& generated, const sdk::Sdk& sdk,
                        const project::FrameworkFlags& flags, const FlagOverrides& overrides,
                        const std::filesystem::path& build_dir, const std::optional<CudaToolkit>& cuda = {},
                        const std::optional<PchUse>& pch = {});

// build.ninja for a plan.
std::string render_ninja(const TargetPlan& plan);

// compile_commands.json for a plan (clangd, clang-tidy).
std::string render_compile_commands(const TargetPlan& plan);

} // namespace opkit::build
