#pragma once

#include "opkit/builder/folder_lock.hpp"
#include "opkit/builder/console.hpp"
#include "opkit/builder/plan.hpp"
#include "opkit/builder/sharing.hpp"
#include "opkit/check/checker.hpp"
#include "opkit/sdk/interpreter.hpp"
#include "opkit/util/json.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/fs.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opkit::builder {

struct BuildOptions
{
  std::vector<std::string> tf_specs; // empty: the manifest's targets
  int jobs = 0;                      // 0: the number of CPUs
  FlagOverrides overrides;
  std::filesystem::path build_root;   // empty: <project>/build
  bool check = true;                  // run opkit check on each library after linking
  bool static_archive = false;        // also lib<name>.a (for static linking, e.g. TF Serving)
  std::string runtime;                // the check's runtime (empty: opkit.yaml's, else the TF default)
  std::filesystem::path profile_file; // or a captured profile
  // A CPU baseline (configs/cpu/baselines.yaml): compiles take its -march and
  // the check holds the libraries to it (no precompiled header then). Empty:
  // the compiler's default code, checked against the runtime's CPU.
  std::string cpu;
  bool pch = true;                    // use the SDK's precompiled header where a source can
  std::optional<bool> cache;          // --cache/--no-cache: ccache on or off, whatever the settings say
  std::vector<std::string> libraries; // --lib: only these (empty: every library)
  std::vector<std::string> pythons;   // --python: the CPythons Python modules are built for (empty: each release's)
  bool dry_run = false;               // plan only: each target's steps, nothing written in the project
  bool wait = true;                   // the build folder in use by another opkit: wait for it (--no-wait: fail at once)
  // The build folder's lock, when the caller holds it already (`opkit test`
  // holds it from its build to the end of its probe): not taken again.
  const HeldBuildFolder* held = nullptr;
  // Given to every compile through the environment (k_diagnostics_env), so
  // they never make a rebuild: -fdiagnostics-color=always on a terminal.
  std::vector<std::string> diagnostics_flags;
  BuildObserver* observer = nullptr; // hears ninja's steps (BuildConsole: progress and diagnostics on stderr)
};

// One library of a target.
struct LibraryResult
{
  std::string name;
  std::filesystem::path library;
  bool check_reused = false;               // the library and target were unchanged: the last verdict stands
  std::optional<check::CheckReport> check; // the verdict on the linked library, unless --no-check
};

// The outcome of one target, as data; cli/ prints it.
struct TargetResult
{
  std::string spec;          // what the user asked for ("2.10")
  std::string sdk_id;        // what it resolved to ("tensorflow-2.10.1")
  std::string version;       // "2.10.1"
  std::filesystem::path dir; // the target's build folder
  bool ok = false;
  bool up_to_date = false;         // ninja had no work to do
  int compiled = 0;                // compile steps ninja ran
  int pch_compiles = 0;            // of the plan's compile steps, those using the SDK's precompiled header
  std::optional<CacheStats> cache; // ccache's hits and misses, when the compiles went through it
  std::string log;                 // ninja's output for this target (steps, failed commands, diagnostics)
  std::filesystem::path log_file;  // ... kept as <dir>/build.log, rewritten by every build
  double seconds = 0;              // from the build's start to its last step, plus its checks
  std::vector<PlannedStep> steps;  // --dry-run: what its build.ninja holds
  std::vector<LibraryResult> libraries;
  std::vector<std::string> skipped; // libraries whose `tensorflow:` range leaves this version out
  bool nothing_to_build = false;    // ... all of them: the target is skipped, never a failure
  std::string portable;             // what the link did to fit the target runtime (build/portable), if anything

  bool loads() const; // every checked library loads
};

struct BuildReport
{
  std::vector<TargetResult> targets;
  bool dry_run = false;
  std::filesystem::path compile_commands; // the build root's, merging the targets' (newest version's entry per file)
  // What the plan read beyond the project's own files: opkit.yaml, the
  // compiler, the SDKs (and their store), the profile, the CUDA toolkit. A
  // no-op is kept with their stamps (build/noop_record).
  std::vector<std::filesystem::path> watched;
  bool ok() const;
};

// The C++ compiler opkit builds with: $CXX (a compiler, optionally after a
// launcher and before flags: "ccache g++", "g++ -m64"), else g++.
// Error(missing) naming the program looked for when it is absent.
CompilerCommand
find_compiler();

// Runs the plan's build.ninja with ninja, writing build.ninja and
// compile_commands.json first (only when their content changed).
TargetResult
run_plan(const TargetPlan& plan, int jobs);

// Resolves every SDK first (a missing one is an error before anything is
// written), then plans every target, writes their build.ninja files and runs
// one ninja over all of them (the build root's build.ninja), so -j caps every
// compile at once. With dry_run, returns the plans' steps and writes nothing
// in the project.
BuildReport
build_project(const project::Manifest& manifest, const BuildOptions& options);

// The facts of one built library, written beside it as opkit-build.json so
// packages can carry them in their manifests, and `opkit check` without --tf
// judges it against the SDK and runtime ("" = the TF version's own) it was built for.
Json
build_info_json(const sdk::Sdk& sdk, const TargetPlan& plan, const std::string& runtime,
                const std::string& compiler_version);

// The compiler's own version line ("g++ (Debian 12.2.0-14) 12.2.0").
std::string
compiler_version(const std::string& compiler);

// The build folder of one target: <root>/tf-<version>, and tf-<version>-cuda
// for a CUDA build (each SDK its own).
std::filesystem::path
target_dir(const std::filesystem::path& build_root, const sdk::Sdk& sdk);

// What `opkit build` made for one target: the libraries whose `tensorflow:` range holds its version.
struct BuiltTarget
{
  std::string spec; // what the user asked for ("1.12")
  sdk::Sdk sdk;     // what it resolved to
  std::vector<std::pair<const project::LibrarySpec*, std::filesystem::path>> libraries; // <root>/tf-<v>/<output>
  std::shared_ptr<const fs::FileLock> in_use; // the SDK, while this value lives (sdk::use_sdk)
  std::vector<std::string> skipped;           // libraries whose `tensorflow:` range leaves this version out
  // A Python module's file -> the Python ("3.10") it was built for (only modules are here).
  std::map<std::filesystem::path, std::string> module_pythons = {};

  // The Python a library's file is for; "" for a library that is no module.
  std::string python_of(const std::filesystem::path& library) const;

  // No library is for this version: `opkit build` skipped it, and so do test and package.
  bool nothing_built() const { return libraries.empty(); }
  // "tensorflow-1.12.0: nothing to <verb>: no library is for TensorFlow 1.12.0 (bop: tensorflow >=2.0)"
  std::string skip_line(const std::string& verb) const;
};

// The built libraries of `selected` (every library when empty) for each spec,
// a Python module's for each of `pythons` (empty: the release's own Python).
// One not built yet is Error(missing) naming the `opkit build` command.
std::vector<BuiltTarget>
find_built_libraries(const project::Manifest& manifest, const std::vector<std::string>& specs,
                     const std::filesystem::path& build_root, const std::vector<std::string>& selected = {},
                     const std::vector<std::string>& pythons = {});

// The libraries of `selected` that build for this SDK's version, each with its
// settings resolved for it, a Python module once per Python of `pythons` (pure).
std::vector<LibraryInput>
library_inputs(const project::Manifest& manifest, const std::vector<const project::LibrarySpec*>& selected,
               const sdk::Sdk& sdk, const std::vector<sdk::PythonBuildFacts>& pythons = {});

} // namespace opkit::builder
