#pragma once

#include "opkit/probe/lock.hpp"
#include "opkit/probe/probe.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::probe {

// One library of the project in one SDK's framework.
struct TestTarget
{
  std::string spec;
  std::string sdk_id;
  std::string version;
  std::string library_name;
  std::filesystem::path library;
  ProbeReport report;
  std::vector<std::string> differences; // from opkit.yaml
  bool compared = true;                 // false for a prebuilt library, or a library with no `ops:`
  // Against opkit.lock: "recorded" (not in it before), "same", "changed" (lock_changes: exit 1),
  // "accepted" (changed, --update); "" when not locked (prebuilt, or not loaded).
  std::string lock_state;
  std::vector<std::string> lock_changes;
  std::string framework_library = {}; // what the probe loaded it into ("libtorch_cpu.so")
  // Where `opkit check --runtime host` (this machine as the framework's
  // process) and the probe's load disagree: what check says and why they can
  // differ; "" when they agree.
  std::string check_differs = {};
  bool ok() const { return report.loaded && differences.empty() && lock_state != "changed"; }
};

struct TestReport
{
  std::vector<TestTarget> targets;
  std::vector<std::string> skipped; // a line per version no library is for (skipped, never a failure)
  // The project's lock file ("opkit.lock", relative to the project) and what this run did to it:
  // "written" (it did not exist), "updated", "unchanged", "kept" (a change not accepted:
  // not written), "none" (no lock and nothing loaded to record); "" with no project.
  std::string lock_file;
  std::string lock_action;
  // Where one library's SDKs differ from each other: "hash_ops: tensorflow-1.12.0 -> tensorflow-2.10.1:
  // HashStrings: attr clip: default 100 -> 50" (informational).
  std::vector<std::string> version_differences;
  bool ok() const;
};

// Loads each selected library built for each target into that SDK's real
// framework and compares what registered with opkit.yaml's `ops:` (where a
// library has them) and with opkit.lock (probe/lock), which it writes when
// absent, extends with interfaces not in it, and rewrites with changed ones
// only when `update`. A library not built yet is Error(missing) naming the
// `opkit build` command; a library whose `tensorflow:` range leaves a version
// out is not tested there. A damaged opkit.lock is Error(usage).
TestReport
test_project(const project::Manifest& manifest, const std::vector<std::string>& specs,
             const std::filesystem::path& build_root, const std::vector<std::string>& libraries = {},
             bool update = false);

// The project's opkit.lock as it is on disk: its text (none when absent) and
// what it holds. A damaged one is Error(usage) "opkit.lock:line:col: cause".
struct LockOnDisk
{
  std::optional<std::string> text;
  LockFile lock;
};
LockOnDisk
read_lock(const std::filesystem::path& project_root);

// Loads prebuilt libraries, with no project, into each SDK's real framework
// (as its Python loads them) and reports what each registered. Each path
// must be a regular file (else Error(usage)); each spec an imported SDK of `framework`.
TestReport
test_libraries(const std::vector<std::filesystem::path>& libraries, const std::vector<std::string>& specs,
               const std::string& framework = "tensorflow");

Json
to_json(const TestReport& report);

} // namespace opkit::probe
