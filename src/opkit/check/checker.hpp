#pragma once

#include "opkit/check/profile.hpp"
#include "opkit/check/provenance.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace opkit::check {

// A symbol behind a finding.
struct SymbolRef
{
  std::string mangled;
  std::string demangled;
  std::string version;              // required version, when the reference is versioned
  std::vector<std::string> used_by; // the functions that use it ("Kernel::Compute in obj/x.o"), when known
};

// One reason a library will not load (fatal) or might surprise (warning).
struct Finding
{
  std::string kind; // stable id, e.g. "dual-abi-mismatch" (docs/check.md lists them)
  bool fatal = true;
  std::string summary;   // one line
  std::string diagnosis; // why
  std::string remedy;    // what to do, concretely
  std::vector<SymbolRef> symbols;
};

// Another TF version's framework library, to name the version a symbol the
// target's framework lacks comes from.
struct OtherFramework
{
  std::string version; // "2.15.1"
  ProfileLibrary library;
};

// What opkit check judges against: a process profile, plus what it knows of
// the framework (for diagnoses and remedies).
struct CheckTarget
{
  Profile profile;
  std::string framework = "tensorflow"; // configs/frameworks/<framework>.yaml: its words in findings
  std::string framework_version;        // "2.10.1"; empty when no SDK was named
  int cxx11_abi = -1;                   // the framework's, -1 when unknown
  int cxx_standard = 0;
  std::string cuda_version; // the framework's CUDA version, when it is a CUDA build
  // A library `opkit build` did not make (no opkit-build.json beside it lists
  // it): its remedies say which release to install, not what to rebuild.
  bool prebuilt = false;
  // Each TF framework library's name, with the versions that ship it
  // (">=2.0"): what a prebuilt library's DT_NEEDED says of its version.
  std::map<std::string, std::string> framework_libraries;
  // The other versions' frameworks (the imported SDKs), read only when a
  // TensorFlow symbol is missing; none when unset.
  std::function<std::vector<OtherFramework>()> other_frameworks;
};

// How findings name the target's framework: "TF 2.10.1", "torch 2.5.1"
// ("TF", "torch" without a version).
std::string
framework_words(const CheckTarget& target, const std::string& version);

// A library the loader maps for the op, and which library needed it.
struct MappedLibrary
{
  std::string path;
  std::string needed_by; // file name
};

struct CheckReport
{
  std::string library;
  std::string target; // "tensorflow 2.10.1 on tensorflow-2.10"
  bool loads = true;
  std::vector<Finding> findings;
  size_t undefined = 0;       // undefined symbols considered
  size_t weak_unresolved = 0; // weak references nothing provides: allowed
  std::vector<std::string> needed;
  // The files the loader maps with the op that the target does not hold
  // already (bundled through RUNPATH/RPATH, or found on this machine's disk),
  // in the order it maps them: their initializers run in dlopen too.
  std::vector<MappedLibrary> mapped;
  bool prebuilt = false;
  Provenance built_for; // for a prebuilt library: what it shows it was built for
};

// Decides, without loading it, whether `library` will load into the target
// process: every DT_NEEDED present, every required symbol version provided,
// every non-weak undefined symbol resolved as glibc's loader would resolve it.
CheckReport
check_library(const std::filesystem::path& library, const CheckTarget& target);

// The libraries this machine's loader finds no file for, among those
// `library` needs and those they need (DT_RPATH, DT_RUNPATH, ld.so.cache and
// the default folders, as glibc searches), in the order it meets them.
std::vector<std::string>
unfound_libraries(const std::filesystem::path& library);

// The report as JSON, schema "opkit.check/1" (docs/check.md documents it).
Json
to_json(const CheckReport& report);

// A mangled C++ name demangled, or the name itself when it is not one.
std::string
demangle(const std::string& mangled);

} // namespace opkit::check
