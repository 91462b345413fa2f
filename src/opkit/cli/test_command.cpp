#include "opkit/cli/commands.hpp"
#include "opkit/probe/python_runner.hpp"
#include "opkit/probe/python_vectors.hpp"
#include "opkit/probe/tester.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace {

std::string
args_text(const std::vector<project::OpArg>& args)
{
  std::vector<std::string> parts;
  for (const project::OpArg& arg : args) {
    parts.push_back(arg.name + ": " + arg.type);
  }
  return join(parts, ", ");
}

std::string
constraints_text(const std::vector<probe::RegisteredAttr>& constraints)
{
  std::vector<std::string> parts;
  for (const probe::RegisteredAttr& c : constraints) {
    parts.push_back(fmt::format("{} in {{{}}}", c.name, join(c.allowed, ", ")));
  }
  return parts.empty() ? "any types" : join(parts, "; ");
}

void
print_target(const probe::TestTarget& target)
{
  const probe::ProbeReport& report = target.report;
  if (!report.loaded) {
    fmt::print("{}: LOAD FAILED {}\n  loader: {}\n", target.sdk_id, target.library, report.error);
    return;
  }
  fmt::print("{}: loaded {} into the real libtensorflow_framework ({})\n", target.sdk_id, target.library,
             report.tf_version);
  for (const probe::RegisteredOp& op : report.ops) {
    fmt::print("  op     {}({}) -> ({})\n", op.name, args_text(op.inputs), args_text(op.outputs));
    for (const probe::RegisteredAttr& attr : op.attrs) {
      fmt::print("  attr   {}: {}{}\n", attr.name, attr.type,
                 attr.allowed.empty() ? "" : " in {" + join(attr.allowed, ", ") + "}");
    }
  }
  for (const probe::RegisteredKernel& kernel : report.kernels) {
    fmt::print("  kernel {} on {}: {}\n", kernel.op, kernel.device, constraints_text(kernel.constraints));
  }
  for (const std::string& difference : target.differences) {
    fmt::print("  MISMATCH {}\n", difference);
  }
  fmt::print("  {}\n", target.differences.empty() ? "matches opkit.yaml" : "does not match opkit.yaml");
}

void
print_vectors(const probe::PythonVectorsReport& report)
{
  fmt::print("tensorflow {} (Python): {}\n", report.tf_version, report.library);
  for (const probe::VectorOutcome& outcome : report.outcomes) {
    if (outcome.ok) {
      fmt::print("  vector {} {}: ok\n", outcome.vector, outcome.output);
    } else {
      fmt::print("  vector {} {}: MISMATCH\n    expected {}\n    got      {}\n", outcome.vector, outcome.output,
                 outcome.expected, outcome.got);
    }
  }
  if (!report.ran) {
    fmt::print("  the op did not run:\n{}\n", tail_lines(report.log, 15));
  }
  fmt::print("  {}\n", report.ok() ? "all test vectors match" : "FAILED");
}

} // namespace

void
add_test_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static std::vector<std::string> versions;
  static std::string build_dir;
  CLI::App* cmd = app.add_subcommand("test", "Load the built op into each real TensorFlow and check what registered");
  cmd->add_option("--tf", versions, "Versions to test (default: opkit.yaml's targets)");
  cmd->add_option("--build-dir", build_dir, "Build folder (default: <project>/build)");
  cmd->add_flag("--json", global.json, "Print the report as JSON");
  static std::vector<std::string> libraries;
  cmd->add_option("--lib", libraries, "Test only these libraries of opkit.yaml (repeatable)");
  static bool python = false;
  cmd->add_flag("--python", python,
                "Run the op on opkit.yaml's test vectors in a real TensorFlow the local Python imports");
  cmd->callback([&global, &exit_code] {
    project::Manifest manifest = project::load_manifest(".");
    project::TemplateSpec spec = project::load_template_spec(manifest.template_name);
    if (python) {
      std::vector<std::string> specs = split_versions(versions);
      if (specs.empty()) {
        specs = manifest.tf_versions;
      }
      if (specs.empty()) { // no targets: the TensorFlow this machine's python3 imports
        probe::PythonVectorsReport report = probe::test_in_python(manifest, build_dir);
        print_vectors(report);
        exit_code = static_cast<int>(report.ok() ? ExitCode::ok : ExitCode::failed);
        return;
      }
      bool ok = true;
      for (const probe::PythonVectorsReport& report : probe::test_in_tf_versions(manifest, specs, build_dir)) {
        print_vectors(report);
        ok = ok && report.ok();
      }
      exit_code = static_cast<int>(ok ? ExitCode::ok : ExitCode::failed);
      return;
    }
    if (spec.kind != project::TemplateKind::tensorflow) {
      probe::PythonTestResult result = probe::run_python_test(manifest, spec);
      fmt::print("{}", result.output);
      fmt::print("{}: {} (exit {})\n", result.script, result.ok() ? "passed" : "FAILED", result.exit_code);
      exit_code = static_cast<int>(result.ok() ? ExitCode::ok : ExitCode::failed);
      return;
    }
    probe::TestReport report = probe::test_project(manifest, split_versions(versions), build_dir, libraries);
    if (global.json) {
      fmt::print("{}\n", probe::to_json(report).dump(2));
    } else {
      for (const probe::TestTarget& target : report.targets) {
        print_target(target);
      }
    }
    exit_code = static_cast<int>(report.ok() ? ExitCode::ok : ExitCode::failed);
  });
}

} // namespace opkit::cli
