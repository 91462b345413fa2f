#pragma once

#include "opkit/check/checker.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace opkit::check {

// How the user named the target: a TF version (its SDK supplies the framework
// library, its config row the default runtime), a runtime policy or "host",
// and/or a captured profile.
struct TargetOptions
{
  std::string tf_spec;                  // a version (or SDK id) of `framework`: the SDK to check against
  std::string framework = "tensorflow"; // --tf or --torch
  std::string runtime;                  // empty: the framework version's default, or host
  std::filesystem::path profile_file;
  // A CPU baseline (configs/cpu/baselines.yaml) instead of the profile's CPU;
  // "none": no CPU check; empty: the profile's.
  std::string cpu;
};

// Applies a --cpu value to a profile (see TargetOptions::cpu); Error(usage) for an unknown baseline.
void
apply_cpu_option(Profile& profile, const std::string& cpu);

// The profile and framework facts to check against. Errors: unknown runtime
// (usage), unreadable profile (usage), no SDK for the version (missing).
CheckTarget
make_check_target(const TargetOptions& options);

// The framework's Python process as a library of the profile: the interpreter
// is in the global scope there, so an op may call the Python C API without
// linking libpython (configs/python/, made by scripts/python-symbols.sh from
// the real interpreter). Nothing when the SDK's wheel names no CPython opkit
// has the symbols of.
// `python` ("3.11") names the interpreter instead (a Python module built for it).
std::optional<ProfileLibrary>
python_interpreter(const sdk::Sdk& sdk, const std::string& python = "");

// The CPython a module's file is named for ("_C.cpython-311-x86_64-linux-gnu.so": "3.11"), "" for another name.
std::string
python_of_module_file(const std::filesystem::path& library);

// The same, from an SDK already resolved (opkit build); `python`: the
// interpreter of the process, where not the wheel tag's (a module built for it).
CheckTarget
make_check_target(const sdk::Sdk& sdk, const std::string& runtime, const std::filesystem::path& profile_file,
                  const std::string& python = "");

} // namespace opkit::check
