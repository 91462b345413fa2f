#include "opkit/cli/autobuild.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/cli/junit_reports.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/probe/python_runner.hpp"
#include "opkit/probe/python_vectors.hpp"
#include "opkit/probe/tester.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace opkit::cli {

namespace {

std::string
constraints_text(const std::vector<probe::RegisteredAttr>& constraints)
{
  std::vector<std::string> parts;
  parts.reserve(constraints.size());
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
    if (!report.python_process.empty()) {
      fmt::print("  loaded in {}\n", report.python_process);
    }
    if (!target.check_differs.empty()) {
      fmt::print("  differs from check: {}\n", target.check_differs);
    }
    return;
  }
  // "libtensorflow_framework", "libtorch_cpu": the framework library, without its .so suffixes.
  std::string framework = target.framework_library.substr(0, target.framework_library.find(".so"));
  fmt::print("{}: loaded {} into the real {} ({})\n", target.sdk_id, target.library, framework, report.tf_version);
  if (!report.python_process.empty()) {
    fmt::print("  in {}\n", report.python_process);
  }
  if (!target.check_differs.empty()) {
    fmt::print("  differs from check: {}\n", target.check_differs);
  }
  for (const probe::RegisteredOp& op : report.ops) {
    if (!op.schema.empty()) { // torch: the dispatcher's schema says it all
      fmt::print("  op     {}\n", op.schema);
      continue;
    }
    fmt::print("  op     {}({}) -> ({})\n", op.name, project::render_arg_specs(op.inputs),
               project::render_arg_specs(op.outputs));
    for (const project::OpAttr& attr : op.attrs) {
      fmt::print("  attr   {}\n", project::render_attr_spec(attr));
    }
  }
  std::set<std::string> untyped; // torch's ops: a dispatch key has no type constraints
  for (const probe::RegisteredOp& op : report.ops) {
    if (!op.schema.empty()) {
      untyped.insert(op.name);
    }
  }
  for (const probe::RegisteredKernel& kernel : report.kernels) {
    fmt::print("  kernel {} on {}{}\n", kernel.op, kernel.device,
               untyped.count(kernel.op) != 0 ? "" : ": " + constraints_text(kernel.constraints));
  }
  for (const std::string& function : report.functions) { // a Python module's own (pybind11)
    fmt::print("  function {}\n", function);
  }
  for (const std::string& difference : target.differences) {
    fmt::print("  MISMATCH {}\n", difference);
  }
  if (target.compared) {
    fmt::print("  {}\n", target.differences.empty() ? "matches opkit.yaml" : "does not match opkit.yaml");
  }
  const char* change = target.lock_state == "accepted" ? "ACCEPTED" : "CHANGED";
  for (const std::string& line : target.lock_changes) {
    fmt::print("  {} {}\n", change, line);
  }
  if (target.lock_state == "changed") {
    fmt::print("  interface changed since opkit.lock (`opkit test --update` accepts it)\n");
  } else if (target.lock_state == "same") {
    fmt::print("  matches opkit.lock\n");
  }
}

void
print_lock(const probe::TestReport& report)
{
  if (report.lock_file.empty()) {
    return;
  }
  for (const std::string& line : report.version_differences) {
    fmt::print("differs between versions: {}\n", line);
  }
  if (report.lock_action == "written") {
    fmt::print("{}: written: each library's interface in each version recorded (commit it)\n", report.lock_file);
  } else if (report.lock_action == "updated") {
    fmt::print("{}: updated\n", report.lock_file);
  } else if (report.lock_action == "none") {
    fmt::print("{}: not written: no library loaded\n", report.lock_file);
  } else if (report.lock_action == "kept") {
    fmt::print("{}: not updated: an interface changed (`opkit test --update` accepts it)\n", report.lock_file);
  } else {
    fmt::print("{}: unchanged\n", report.lock_file);
  }
}

void
print_test_report(const probe::TestReport& report, bool json)
{
  if (json) {
    fmt::print("{}\n", json_text(probe::to_json(report), 2));
    return;
  }
  for (const std::string& skipped : report.skipped) {
    fmt::print("{}\n", skipped);
  }
  for (const probe::TestTarget& target : report.targets) {
    print_target(target);
  }
  print_lock(report);
}

void
print_vectors(const probe::PythonVectorsReport& report)
{
  fmt::print("{} {} (Python): {}\n", report.framework, report.version, report.python);
  std::filesystem::path library;
  for (const probe::VectorOutcome& outcome : report.outcomes) {
    if (outcome.path != library) {
      library = outcome.path;
      fmt::print("  {}\n", library);
    }
    std::string label = fmt::format("{} ({}) vector {}{}", outcome.op, outcome.python_name, outcome.vector,
                                    outcome.name.empty() ? "" : " \"" + outcome.name + "\"");
    if (outcome.ok) {
      fmt::print("    {}: ok\n", label);
    } else {
      fmt::print("    {}: MISMATCH\n      expected {}\n      actual   {}\n", label,
                 describe_vector_value(outcome.expected, true), describe_vector_value(outcome.actual, false));
    }
  }
  for (const std::string& problem : report.problems) {
    fmt::print("  PROBLEM {}\n", problem);
  }
  fmt::print("  {}\n", report.ok() ? "all test vectors match" : "FAILED");
}

} // namespace

void
add_test_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static FrameworkVersions versions;
  static std::string build_dir;
  CLI::App* cmd =
    app.add_subcommand("test", "Load the built op into each real framework version and check what registered");
  add_framework_versions(cmd, versions, "Versions to test (default: opkit.yaml's targets)", "test");
  cmd->add_option("--build-dir", build_dir, "Build folder (default: <project>/build)");
  static std::vector<std::string> libraries;
  cmd->add_option("--lib", libraries, "Test only these libraries of opkit.yaml (repeatable)");
  static bool python = false;
  cmd->add_flag("--python", python,
                "Run the ops on opkit.yaml's test vectors in the real framework of each version (a venv)");
  add_json_flag(cmd, global.json, "opkit.test/1",
                "Print the report as JSON (schema opkit.test/1; with --python, opkit.test-python/1)",
                [] { return python ? "opkit.test-python/1" : "opkit.test/1"; });
  static bool no_build = false;
  add_no_build_flag(cmd, no_build);
  static bool no_wait = false;
  cmd->add_flag("--no-wait", no_wait, k_no_wait_help);
  static bool update = false;
  cmd->add_flag("--update", update, "Accept changed op interfaces: rewrite opkit.lock with what registered");
  static std::vector<std::string> prebuilt;
  cmd->add_option("library", prebuilt, "Prebuilt libraries to load, with no project (needs --tf)");
  static std::string junit;
  add_junit_option(cmd, junit);
  // The JUnit report, when asked for, is written before the report is printed.
  auto write_report = [](const std::vector<JunitSuite>& suites) {
    if (!junit.empty()) {
      write_junit(junit, "opkit test", suites);
    }
  };
  cmd->callback([&global, &exit_code, write_report] {
    if (!prebuilt.empty()) {
      if (python || update || !libraries.empty() || !build_dir.empty()) {
        fail(ExitCode::usage,
             "opkit test LIBRARY...: --python, --update, --lib and --build-dir are for a project's libraries");
      }
      std::vector<std::filesystem::path> paths(prebuilt.begin(), prebuilt.end());
      std::string framework = versions.chosen();
      framework = framework.empty() ? "tensorflow" : framework;
      probe::TestReport report = probe::test_libraries(paths, versions.for_framework(framework), framework);
      write_report(junit_suites(report));
      print_test_report(report, global.json);
      exit_code = static_cast<int>(report.ok() ? ExitCode::ok : ExitCode::failed);
      return;
    }
    project::Manifest manifest = project::load_manifest(".");
    project::TemplateSpec spec = project::load_template_spec(manifest.template_name);
    std::vector<std::string> specs = versions.for_framework(manifest.framework);
    if (!python && spec.kind == project::TemplateKind::compiled) {
      probe::read_lock(manifest.root); // a damaged opkit.lock stops the test before anything is built
    }
    // Held from the build to the end of the probe: a concurrent `opkit clean`
    // (or build) waits, and never takes a library away between the two.
    std::unique_ptr<builder::HeldBuildFolder> held;
    if (python || spec.kind == project::TemplateKind::compiled) {
      held = builder::lock_build_folder(project::build_root(manifest.root, build_dir), !no_wait);
      build_out_of_date(manifest, specs, build_dir, libraries, no_build, !no_wait, held.get());
    }
    if (python && update) {
      fail(ExitCode::usage, "opkit test --python runs test vectors; --update is for the op interfaces (opkit.lock)");
    }
    if (python) {
      std::vector<probe::PythonVectorsReport> reports =
        probe::test_in_framework_versions(manifest, specs, build_dir, libraries);
      write_report(junit_suites(reports));
      if (global.json) {
        fmt::print("{}\n", json_text(probe::to_json(reports), 2));
      } else {
        for (const probe::PythonVectorsReport& report : reports) {
          print_vectors(report);
        }
      }
      bool ok = std::all_of(reports.begin(), reports.end(), [](const auto& r) { return r.ok(); });
      exit_code = static_cast<int>(ok ? ExitCode::ok : ExitCode::failed);
      return;
    }
    if (spec.kind != project::TemplateKind::compiled) {
      probe::PythonTestResult result = probe::run_python_test(manifest, spec);
      write_report(junit_suites(result));
      fmt::print("{}", result.output);
      fmt::print("{}: {} (exit {})\n", result.script, result.ok() ? "passed" : "FAILED", result.exit_code);
      exit_code = static_cast<int>(result.ok() ? ExitCode::ok : ExitCode::failed);
      return;
    }
    probe::TestReport report = probe::test_project(manifest, specs, build_dir, libraries, update);
    write_report(junit_suites(report));
    print_test_report(report, global.json);
    exit_code = static_cast<int>(report.ok() ? ExitCode::ok : ExitCode::failed);
  });
}

} // namespace opkit::cli
