#pragma once

// The CPU part of opkit check: a library whose load-time code needs an
// instruction-set extension the target's CPU lacks dies of SIGILL inside
// dlopen; other code that needs one fails only when called.
#include "opkit/check/checker.hpp"
#include "opkit/check/profile.hpp"
#include "opkit/cpu/scan.hpp"
#include "opkit/sdk/store.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opkit::cpu {

// The features a target CPU has (isa.hpp's names): its baseline's, else its
// /proc/cpuinfo flags'. Nothing when the profile says nothing of its CPU.
struct TargetCpu
{
  std::string name; // "x86-64-v3", "AMD EPYC (this machine)"
  std::set<std::string> features;
};

// The features a library's load-time code uses (its initializers and what
// they reach), kept per file in $OPKIT_HOME/cache/cpu; none when it is not
// x86-64 code opkit reads.
std::set<std::string>
load_time_features(const std::filesystem::path& library);

// A baseline joined, for a runtime policy's default checked against a
// framework release, with what the release needs to start (ProfileCpu).
std::optional<TargetCpu>
target_cpu(const check::ProfileCpu& cpu, const std::string& profile_name);

// Scans `library` and adds to `report`: a fatal `cpu-feature-at-load` when
// load-time code needs more than the CPU has (each function with its first
// such instruction), and a `cpu-feature` warning for the other functions (a
// library that chooses code at run time by cpuid is told so). Nothing when
// the CPU is unknown or the library is not x86-64 code opkit can read. Load-
// time code that runs only behind a CPU test is a `cpu-dispatch-at-load`
// warning. The libraries the loader maps with it (report.mapped) are scanned
// too, for what they run at load, each finding naming the library. The
// findings are kept in $OPKIT_HOME/cache/cpu/ per library, keyed by its stamp,
// the CPU and opkit: an unchanged library is read once, as the symbol indexes
// of system libraries are.
void
add_cpu_findings(check::CheckReport& report, const std::filesystem::path& library, const check::ProfileCpu& cpu,
                 const std::string& profile_name);

// The folder where add_cpu_findings keeps `library`'s findings, a file per
// target CPU, and load_time_features its features at load (whether or not it has).
std::filesystem::path
kept_findings_file(const std::filesystem::path& library);

// The folders of $OPKIT_HOME/cache/cpu kept for the libraries `whose` says
// yes to (each folder's library as its files' keys name it, whether or not it
// is still there): `opkit clean --all` takes those under its build folder,
// `opkit sdk gc` those whose library is gone. A folder whose files name no
// library is the latter's too.
std::vector<std::filesystem::path>
kept_findings_folders(const std::function<bool(const std::optional<std::filesystem::path>& library)>& whose);

// `opkit sdk gc`: drops the kept findings of libraries no longer there.
void
collect_gone_findings(sdk::GcReport& report);

} // namespace opkit::cpu
