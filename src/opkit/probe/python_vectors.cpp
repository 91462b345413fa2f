#include "opkit/probe/python_vectors.hpp"

#include "opkit/check/target.hpp"
#include "opkit/probe/tf_venv.hpp"
#include "opkit/project/names.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/probe/python_runner.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/importer.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

using TestedOp = std::pair<const project::LibrarySpec*, const project::OpSpec*>;

std::string
local_python_version()
{
  std::string python = local_python();
  ProcessResult result = run_process({python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"});
  if (result.exit_code != 0) {
    throw Error(ExitCode::missing, fmt::format("{}: cannot run: {}", python, trim(result.err)),
                "scripts/setup.sh installs python3");
  }
  return trim(result.out);
}

// The SDK for the venv's TF: from the store, else imported from the venv itself.
void
ensure_sdk(const std::string& tf_version, const stdfs::path& venv, const std::string& python_version)
{
  try {
    sdk::resolve_sdk(tf_version);
    return;
  } catch (const Error& e) {
    if (e.code() != ExitCode::missing) {
      throw;
    }
  }
  stdfs::path package = venv / "lib" / ("python" + python_version) / "site-packages" / "tensorflow";
  log_info("importing the tensorflow {} SDK from {}", tf_version, package);
  sdk::import_sdk(package);
}

Json
vectors_json(const project::OpSpec& op)
{
  Json vectors = Json::array();
  for (const project::TestVector& vector : op.tests) {
    Json inputs = Json::array();
    for (const auto& input : vector.inputs) {
      inputs.push_back({{"name", input.name}, {"dtype", input.dtype}, {"value", Json::parse(input.json)}});
    }
    Json outputs = Json::array();
    for (const auto& output : vector.outputs) {
      outputs.push_back({{"name", output.name}, {"value", Json::parse(output.json)}});
    }
    vectors.push_back({{"inputs", inputs}, {"outputs", outputs}, {"tolerance", vector.tolerance}});
  }
  return vectors;
}

void
parse_outcomes(const std::string& out, PythonVectorsReport& report)
{
  for (const std::string& line : split(out, '\n')) {
    if (trim(line).empty() || line.front() != '{') {
      continue;
    }
    Json json = Json::parse(line, nullptr, false);
    if (json.is_discarded()) {
      continue;
    }
    if (json.contains("failures")) {
      report.ran = true;
      report.tf_version = json.value("tf_version", report.tf_version);
      continue;
    }
    report.outcomes.push_back({json.value("vector", 0), json.value("output", ""), json.value("ok", false),
                               json["expected"].dump(), json["got"].dump()});
  }
}

// Runs every tested op's vectors on the libraries of one build folder, with a venv's python.
void
run_vectors(const stdfs::path& python, const stdfs::path& dir, const std::vector<build::LibraryResult>& libraries,
            const std::vector<TestedOp>& tested, PythonVectorsReport& report)
{
  fs::write_file_if_changed(dir / "run_vectors.py", require_embedded("templates/probe/run_vectors.py"));
  for (const auto& [library, op] : tested) {
    auto built_library = std::find_if(libraries.begin(), libraries.end(),
                                      [&](const build::LibraryResult& l) { return l.name == library->name; });
    if (built_library == libraries.end()) {
      continue; // its tensorflow: range leaves this version out
    }
    if (report.library.empty()) {
      report.library = built_library->library;
    }
    stdfs::path vectors = dir / ("opkit-vectors-" + project::python_op_name(op->name) + ".json");
    fs::write_file_if_changed(vectors, vectors_json(*op).dump(2) + "\n");
    ProcessOptions run;
    run.env_set["TF_CPP_MIN_LOG_LEVEL"] = "3";
    ProcessResult result =
      run_process({python.string(), (dir / "run_vectors.py").string(), built_library->library.string(),
                   project::python_op_name(op->name), vectors.string()},
                  run);
    size_t before = report.outcomes.size();
    parse_outcomes(result.out, report);
    if (tested.size() > 1) {
      for (size_t i = before; i < report.outcomes.size(); ++i) {
        report.outcomes[i].output = op->name + " " + report.outcomes[i].output;
      }
    }
    report.log += result.err;
  }
}

// Every op with test vectors, in the library that declares it.
std::vector<TestedOp>
tested_ops(const project::Manifest& manifest)
{
  std::vector<TestedOp> tested;
  for (const project::LibrarySpec& library : manifest.libraries) {
    for (const project::OpSpec& op : library.ops) {
      if (!op.tests.empty()) {
        tested.emplace_back(&library, &op);
      }
    }
  }
  if (tested.empty()) {
    fail(ExitCode::usage, "{}: no test vectors (an op's tests:) to run", manifest.root / "opkit.yaml");
  }
  return tested;
}

} // namespace

bool
PythonVectorsReport::ok() const
{
  return ran && !outcomes.empty()
         && std::all_of(outcomes.begin(), outcomes.end(), [](const VectorOutcome& o) { return o.ok; });
}

PythonVectorsReport
test_in_python(const project::Manifest& manifest, const stdfs::path& build_root)
{
  std::vector<TestedOp> tested = tested_ops(manifest);
  std::string python_version = local_python_version();
  PythonVectorsReport report;
  report.tf_version = project::FrameworkTable::tensorflow().tf_for_python(python_version);
  if (report.tf_version.empty()) {
    fail(ExitCode::missing, "Python {}: no TensorFlow release with wheels for it is configured", python_version);
  }
  stdfs::path venv = ensure_venv({"tensorflow-cpu==" + report.tf_version});
  ensure_sdk(report.tf_version, venv, python_version);

  build::BuildOptions options;
  options.tf_specs = {report.tf_version};
  options.build_root = build_root;
  build::BuildReport built = build::build_project(manifest, options);
  const build::TargetResult& target = built.targets.front();
  if (!target.ok) {
    fail(ExitCode::failed, "{}: build for tensorflow {} failed:\n{}", manifest.name, report.tf_version,
         tail_lines(target.log, 20));
  }
  run_vectors(venv / "bin" / "python", target.dir, target.libraries, tested, report);
  return report;
}

std::vector<PythonVectorsReport>
test_in_tf_versions(const project::Manifest& manifest, const std::vector<std::string>& specs,
                    const stdfs::path& build_root)
{
  std::vector<TestedOp> tested = tested_ops(manifest);
  stdfs::path root = build_root.empty() ? manifest.root / "build" : build_root;
  // Every library must be built, and load, before any venv is made.
  std::vector<build::BuiltTarget> built = build::find_built_libraries(manifest, specs, build_root);
  std::vector<std::vector<build::LibraryResult>> libraries;
  for (const build::BuiltTarget& target : built) {
    libraries.emplace_back();
    for (const auto& [spec, path] : target.libraries) {
      check::CheckReport check = check::check_library(path, check::make_check_target(target.sdk, manifest.runtime, {}));
      if (!check.loads) {
        const check::Finding& first = check.findings.front();
        fail(ExitCode::failed, "{}: will not load in tensorflow {}: [{}] {}", path, target.sdk.version.str(),
             first.kind, first.summary);
      }
      libraries.back().push_back({spec->name, path, false, {}});
    }
  }
  std::vector<PythonVectorsReport> reports;
  for (size_t i = 0; i < built.size(); ++i) {
    const sdk::Sdk& sdk = built[i].sdk;
    stdfs::path venv = ensure_tf_venv(sdk);
    PythonVectorsReport report;
    run_vectors(venv / "bin" / "python", build::target_dir(root, sdk), libraries[i], tested, report);
    if (report.ran && report.tf_version != sdk.version.str()) {
      fail(ExitCode::failed, "{}: its TensorFlow is {}, the library was built for {}", venv, report.tf_version,
           sdk.version.str());
    }
    if (report.tf_version.empty()) {
      report.tf_version = sdk.version.str();
    }
    reports.push_back(report);
  }
  return reports;
}

} // namespace opkit::probe
