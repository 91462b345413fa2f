#pragma once

#include "opkit/probe/probe.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
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
  bool compared = true;                 // false for a prebuilt library: no opkit.yaml to compare with
  bool ok() const { return report.loaded && differences.empty(); }
};

struct TestReport
{
  std::vector<TestTarget> targets;
  std::vector<std::string> skipped; // a line per version no library is for (skipped, never a failure)
  bool ok() const;
};

// Loads each selected library built for each target into that SDK's real
// framework and compares what registered with opkit.yaml. A library not built
// yet is Error(missing) naming the `opkit build` command; a library whose
// `tensorflow:` range leaves a version out is not tested there.
TestReport
test_project(const project::Manifest& manifest, const std::vector<std::string>& specs,
             const std::filesystem::path& build_root, const std::vector<std::string>& libraries = {});

// Loads prebuilt libraries, with no project, into each SDK's real framework
// (as TF's Python loads them) and reports what each registered. Each path
// must be a regular file (else Error(usage)); each spec an imported SDK.
TestReport
test_libraries(const std::vector<std::filesystem::path>& libraries, const std::vector<std::string>& specs);

Json
to_json(const TestReport& report);

} // namespace opkit::probe
