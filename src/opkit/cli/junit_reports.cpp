#include "opkit/cli/junit_reports.hpp"

#include "opkit/check/checker.hpp"
#include "opkit/probe/python_runner.hpp"
#include "opkit/probe/python_vectors.hpp"
#include "opkit/probe/tester.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <map>

namespace opkit::cli {

namespace {

// The suite named `name`, made at the end when there is none yet.
JunitSuite&
suite_named(std::vector<JunitSuite>& suites, const std::string& name)
{
  for (JunitSuite& suite : suites) {
    if (suite.name == name) {
      return suite;
    }
  }
  suites.push_back(JunitSuite{name, {}});
  return suites.back();
}

JunitCase
probe_case(const probe::TestTarget& target)
{
  JunitCase test;
  test.classname = "opkit.test." + target.sdk_id;
  test.name = target.library_name.empty() ? target.library.filename().string() : target.library_name;
  std::vector<std::string> lines = {fmt::format("{} in {}", target.library.string(), target.sdk_id)};
  if (!target.report.loaded) {
    test.outcome = JunitOutcome::failure;
    test.message = "did not load: " + target.report.error;
    lines.push_back("loader: " + target.report.error);
  } else {
    lines.push_back(fmt::format("loaded into {} {}: {} op(s), {} kernel(s)", target.framework_library,
                                target.report.tf_version, target.report.ops.size(), target.report.kernels.size()));
  }
  if (!target.check_differs.empty()) {
    lines.push_back("differs from check: " + target.check_differs);
  }
  for (const std::string& difference : target.differences) {
    lines.push_back("MISMATCH " + difference);
  }
  if (target.report.loaded && !target.differences.empty()) {
    test.outcome = JunitOutcome::failure;
    test.message = fmt::format("does not match opkit.yaml: {}", join(target.differences, "; "));
  }
  for (const std::string& change : target.lock_changes) {
    lines.push_back((target.lock_state == "accepted" ? "ACCEPTED " : "CHANGED ") + change);
  }
  if (target.report.loaded && target.differences.empty() && target.lock_state == "changed") {
    test.outcome = JunitOutcome::failure;
    test.message =
      "interface changed since opkit.lock (`opkit test --update` accepts it): " + join(target.lock_changes, "; ");
  }
  test.details = join(lines, "\n") + "\n";
  return test;
}

std::string
check_text(const check::Finding& finding)
{
  std::string text = fmt::format("{} [{}] {}\n", finding.fatal ? "error" : "warning", finding.kind, finding.summary);
  for (const check::SymbolRef& symbol : finding.symbols) {
    text += fmt::format("    {}{}\n", symbol.demangled, symbol.version.empty() ? "" : "@" + symbol.version);
  }
  return text + fmt::format("  why: {}\n  fix: {}\n", finding.diagnosis, finding.remedy);
}

} // namespace

void
add_junit_option(CLI::App* cmd, std::string& file)
{
  cmd
    ->add_option("--junit", file,
                 "Also write the results as a JUnit XML report to FILE (one test case per library and version, "
                 "for CI systems' test views)")
    ->type_name("FILE");
}

void
write_junit_failure(const CLI::App& app, const std::string& message) noexcept
{
  try {
    const CLI::App* level = &app;
    std::string command = "opkit";
    while (!level->get_subcommands().empty()) {
      level = level->get_subcommands().back();
      command += " " + level->get_name();
    }
    const CLI::Option* junit = level->get_option_no_throw("--junit");
    if (junit == nullptr || junit->count() == 0) {
      return;
    }
    JunitCase failed{command, command, JunitOutcome::error, message, message};
    write_junit(junit->as<std::string>(), command, {JunitSuite{command, {failed}}});
  } catch (...) {
    // The error line is the failure's account; a report it could not write adds nothing to it.
  }
}

std::string
describe_vector_value(const std::string& json_text, bool expected)
{
  Json json = Json::parse(json_text);
  if (json.contains("error")) {
    return expected ? "error containing " + opkit::json_text(json["error"])
                    : "error " + json["error"].get<std::string>();
  }
  const Json& outputs = json["outputs"];
  if (outputs.is_array()) {
    return "outputs " + opkit::json_text(outputs);
  }
  std::vector<std::string> parts;
  for (const auto& [name, value] : outputs.items()) {
    parts.push_back(name + " = " + opkit::json_text(value));
  }
  return join(parts, ", ");
}

std::vector<JunitSuite>
junit_suites(const probe::TestReport& report)
{
  std::vector<JunitSuite> suites;
  for (const probe::TestTarget& target : report.targets) {
    suite_named(suites, "opkit test " + target.sdk_id).cases.push_back(probe_case(target));
  }
  for (const std::string& skipped : report.skipped) {
    JunitCase test{"opkit.test", skipped, JunitOutcome::skipped, skipped, ""};
    suite_named(suites, "opkit test (skipped versions)").cases.push_back(test);
  }
  return suites;
}

std::vector<JunitSuite>
junit_suites(const std::vector<probe::PythonVectorsReport>& reports)
{
  std::vector<JunitSuite> suites;
  for (const probe::PythonVectorsReport& report : reports) {
    JunitSuite& suite = suite_named(suites, "opkit test --python " + report.sdk_id);
    std::map<std::string, size_t> case_of; // library -> its case in the suite
    std::map<std::string, size_t> mismatches;
    for (const probe::VectorOutcome& outcome : report.outcomes) {
      auto [at, added] = case_of.emplace(outcome.library, suite.cases.size());
      if (added) {
        suite.cases.push_back(
          JunitCase{"opkit.test-python." + report.sdk_id, outcome.library, JunitOutcome::passed, "",
                    fmt::format("{} in {} {}\n", outcome.path.string(), report.framework, report.version)});
      }
      JunitCase& test = suite.cases[at->second];
      std::string label = fmt::format("{} ({}) vector {}{}", outcome.op, outcome.python_name, outcome.vector,
                                      outcome.name.empty() ? "" : " \"" + outcome.name + "\"");
      if (outcome.ok) {
        test.details += label + ": ok\n";
        continue;
      }
      test.outcome = JunitOutcome::failure;
      test.details +=
        fmt::format("{}: MISMATCH\n  expected {}\n  actual   {}\n", label,
                    describe_vector_value(outcome.expected, true), describe_vector_value(outcome.actual, false));
      test.message = fmt::format("{} test vector(s) did not match", ++mismatches[outcome.library]);
    }
    if (!report.problems.empty() || report.outcomes.empty()) {
      std::vector<std::string> problems = report.problems;
      if (problems.empty()) {
        problems.push_back("no test vector ran");
      }
      suite.cases.push_back(JunitCase{"opkit.test-python." + report.sdk_id, "vectors", JunitOutcome::error,
                                      problems.front(), join(problems, "\n") + "\n"});
    }
  }
  return suites;
}

std::vector<JunitSuite>
junit_suites(const probe::PythonTestResult& result)
{
  JunitCase test{"opkit.test", result.script, result.ok() ? JunitOutcome::passed : JunitOutcome::failure,
                 result.ok() ? "" : fmt::format("{} exited {}", result.script, result.exit_code), result.output};
  return {JunitSuite{"opkit test", {test}}};
}

std::vector<JunitSuite>
junit_suites(const std::vector<check::CheckReport>& reports)
{
  std::vector<JunitSuite> suites;
  for (const check::CheckReport& report : reports) {
    JunitCase test;
    test.classname = "opkit.check." + report.target;
    test.name = report.library;
    std::vector<std::string> fatal;
    test.details =
      fmt::format("{}: {} against {}\n", report.library, report.loads ? "loads" : "WILL NOT LOAD", report.target);
    for (const check::Finding& finding : report.findings) {
      test.details += check_text(finding);
      if (finding.fatal) {
        fatal.push_back(fmt::format("[{}] {}", finding.kind, finding.summary));
      }
    }
    if (!report.loads) {
      test.outcome = JunitOutcome::failure;
      test.message = fatal.empty() ? "will not load" : "will not load: " + join(fatal, "; ");
    }
    suite_named(suites, "opkit check " + report.target).cases.push_back(test);
  }
  return suites;
}

} // namespace opkit::cli
