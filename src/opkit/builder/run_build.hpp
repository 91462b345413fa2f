#pragma once

// The second half of build_project: writing what the plans need, making the
// PCHs, one ninja over every target, each target's log and checks.
#include "opkit/builder/builder.hpp"
#include "opkit/builder/pch.hpp"

#include <map>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opkit::builder {

// One target, planned: nothing of it written yet.
struct PreparedTarget
{
  std::string spec;
  sdk::Sdk sdk;
  std::string runtime;
  std::string cpu;  // the CPU baseline compiles target and the check holds them to ("" = the runtime's, "none")
  TargetPlan plan;  // with the SDK's precompiled header, where sources take it
  TargetPlan plain; // without (a PCH that cannot be made costs speed, never the build)
  std::optional<PchSpec> pch;
  std::vector<std::pair<std::filesystem::path, std::string>> files;           // written (when changed) first
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> links; // symlink -> what it points to
  std::vector<std::string> skipped;
  bool nothing_to_build = false; // every selected library's `tensorflow:` range leaves this version out
  std::string portable;
  std::filesystem::path stats_log; // ccache's, when compiles go through it
};

struct RunSettings
{
  std::filesystem::path build_root;
  int jobs = 1;                                   // compiles at once over every target (PCHs too)
  int ninja_jobs = 1;                             // ninja's -j: jobs, plus distcc's helpers' slots
  bool ccache = false;                            // read each target's ccache stats log
  std::map<std::string, std::string> environment; // ninja's, added (Sharing::environment)
  std::function<const std::string&()> compiler_version;
};

BuildReport
run_targets(std::vector<PreparedTarget>& targets, const BuildOptions& options, const RunSettings& settings);

// The plan's compile steps that use the SDK's precompiled header.
int
count_pch_compiles(const TargetPlan& plan);

// A dry run: each target's steps, as its build.ninja would hold them.
BuildReport
plan_report(const std::vector<PreparedTarget>& targets);

} // namespace opkit::builder
