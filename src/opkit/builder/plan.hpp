#pragma once

#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::builder {

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
  // A folder mapping the Bazel include prefixes TF's GPU headers and GPU op
  // sources use (third_party/gpus/cuda/include, gpu/cub, ...) to the
  // toolkit's folders (configs/frameworks/tensorflow.yaml's cuda.include_map).
  std::filesystem::path tf_include_map;
  std::string host_compiler; // nvcc's -ccbin; empty: nvcc's own choice
  std::string release;       // the CUDA version ("11.8"); empty when unknown
  std::string origin;        // where it came from, for the log and the report
};

// A precompiled header the plan uses: each of `sources` whose compile flags
// are exactly `flags` gets `-include header` (gcc then loads header.gch).
struct PchUse
{
  std::string header;
  std::vector<std::string> flags;
  std::vector<std::string> sources; // relative to the source root
};

// True for a source nvcc compiles (*.cu.cc, *.cu).
bool
is_device_source(const std::string& path);

// One library of the project for one SDK, as the project's settings resolve
// for it (project::resolve_settings): pure data.
struct LibraryInput
{
  std::string name;                      // the library's name (objects go to obj/<name>/)
  std::string output;                    // the file it links to, relative to the build folder
  std::vector<std::string> sources;      // relative to the source root; headers already dropped
  std::vector<std::string> include_dirs; // absolute
  std::vector<std::string> defines;      // NAME or NAME=VALUE
  std::vector<std::string> cflags;
  std::vector<std::string> ldflags;
  std::vector<std::string> libs;                // -l<name>
  std::vector<std::string> compat = {};         // compat shims (opkit.yaml's `compat:`), by name
  std::vector<std::string> force_includes = {}; // their headers, forced into each source after the PCH (absolute)
  // What the framework's per-library defines name it (TORCH_EXTENSION_NAME=_C
  // for a Python module, whose PyInit_ it names); empty: `name`.
  std::string extension_name = {};
};

// Linking one library from its objects.
struct LinkStep
{
  std::string library; // the library's name
  std::string output;  // relative to the build folder
  std::vector<std::string> objects;
  std::vector<std::string> flags;    // after the objects: -shared, the library's ldflags, -L<sdk> -l..., its libs
  std::vector<std::string> archives; // among the flags too: relinks when one changes
  std::string static_output;         // also an archive of the library's own objects; empty: none
};

// Everything needed to build a project's libraries against one SDK: pure data,
// so the same inputs always render the same build.ninja.
struct TargetPlan
{
  std::string compiler;                   // the C++ compiler's path
  std::vector<std::string> compiler_args; // what CXX gave after the compiler ("g++ -m64")
  std::string nvcc;                       // nvcc's path, when there are device sources
  std::filesystem::path build_dir;        // absolute
  std::vector<CompileStep> compiles;
  std::vector<LinkStep> links;
  std::vector<std::string> launcher; // before the C++ compiler: ccache, distcc (build/sharing, or CXX's own)
  int link_jobs = 0;                 // >0: links at most this many at once (compiles go to distcc helpers)
  // Where ninja runs: the build root, when one ninja builds every target (its
  // build.ninja includes each target's with `subninja`, and the target's paths
  // are written relative to it). Empty: build_dir, a build.ninja of its own.
  std::filesystem::path ninja_dir;
  std::filesystem::path source_root; // steps are described by their sources' paths relative to it
  std::string label;                 // names the target in step descriptions ("tf-2.10.1"); empty: build_dir's name
};

// The environment variable a compile command takes extra flags from
// (`-fdiagnostics-color=always`): a shell expansion in build.ninja, so a
// change of colours never changes a command and never rebuilds anything.
inline constexpr const char* k_diagnostics_env = "OPKIT_DIAGNOSTICS_FLAGS";

// The compile flags a version's SDK needs, in order: -std, the ABI macro,
// Eigen's alignment, common flags, warnings, then the SDK's include folder.
std::vector<std::string>
sdk_compile_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const FlagOverrides& overrides);

// The flags that link against the SDK's framework library (after the objects).
std::vector<std::string>
sdk_link_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags);

// The C++ compiler as $CXX names it: an optional launcher (ccache, distcc),
// the compiler, and flags ("ccache g++", "g++ -m64"). Resolved against PATH.
struct CompilerCommand
{
  std::vector<std::string> launcher;
  std::string compiler;
  std::vector<std::string> args;
};

// Everything a target's libraries need from the SDK and the toolchain.
struct TargetInput
{
  CompilerCommand compiler;
  std::filesystem::path source_root;
  std::vector<std::filesystem::path> generated; // sources opkit writes (absolute): linked into every library
  std::filesystem::path build_dir;
  bool static_archive = false; // also lib<name>.a of each library's own objects
  // Linked into every library right after its objects and the framework
  // library (so what the framework exports binds to it first), their symbols
  // hidden (build/portable: the libstdc++ members above the target's ceiling).
  std::vector<std::string> link_archives;
  // Headers every compile (the host side of device ones too) includes after
  // everything else on its command line (build/portable: the glibc symbol
  // versions the target has).
  std::vector<std::string> force_includes;
  // Searched by the links before the toolkit's folder (build/portable: the
  // CUDA runtime bound to the target's glibc versions).
  std::vector<std::string> link_dirs;
  // -march for every compile (the host side of device ones too); empty: the
  // compiler's default. A target with one takes no precompiled header.
  std::string march;
};

// Plans every library against one SDK. Sources with a device suffix go to nvcc
// (`cuda` must be set then). Compiles with the SDK's own flags plus only
// include folders may take the precompiled header.
TargetPlan
plan_target(const TargetInput& input, const std::vector<LibraryInput>& libraries, const sdk::Sdk& sdk,
            const project::FrameworkFlags& flags, const FlagOverrides& overrides,
            const std::optional<CudaToolkit>& cuda = {}, const std::optional<PchUse>& pch = {});

// build.ninja for a plan: its outputs relative to the plan's ninja_dir; each
// step described as "CXX src/a.cc (tf-2.10.1)".
std::string
render_ninja(const TargetPlan& plan);

// The build root's build.ninja: one `subninja` per target's build.ninja
// (paths relative to the root), so one ninja runs every target under one -j.
std::string
render_top_ninja(const std::vector<std::string>& target_ninjas);

// The folder ninja runs in, and a plan's build folder relative to it ("" or "tf-2.10.1/").
std::filesystem::path
ninja_dir(const TargetPlan& plan);
std::string
output_prefix(const TargetPlan& plan);

// The label that names a plan's target in step descriptions.
std::string
target_label(const TargetPlan& plan);

// compile_commands.json for a plan (clangd, clang-tidy).
std::string
render_compile_commands(const TargetPlan& plan);

// One command line per step the plan's build.ninja holds (compiles, then
// links and archives), as ninja would run them from its folder.
struct PlannedStep
{
  std::string kind;   // "compile", "link", "archive"
  std::string output; // relative to the ninja folder
  std::string command;
};
std::vector<PlannedStep>
planned_steps(const TargetPlan& plan);

} // namespace opkit::builder
