#pragma once

// `--junit FILE` of `opkit test` and `opkit check`: the reports their --json
// prints, as JUnit test cases (util/junit), one per library and version.
#include "opkit/util/junit.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace opkit::check {
struct CheckReport;
}
namespace opkit::probe {
struct TestReport;
struct PythonVectorsReport;
struct PythonTestResult;
} // namespace opkit::probe

namespace opkit::cli {

// Adds --junit FILE to a command.
void
add_junit_option(CLI::App* cmd, std::string& file);

// The command failed before its report (an opkit::Error): when it was given
// --junit FILE, FILE gets one errored case naming the command and the error,
// so a CI system's test view shows the failure instead of no report. Never
// throws: a report that cannot be written is left out (the error line says why
// the command failed).
void
write_junit_failure(const CLI::App& app, const std::string& message) noexcept;

// A vector's expected or actual value as the report shows it: {"outputs": {"a": 1, "b": [2]}} as
// `a = 1, b = [2]`; {"error": "x"} as `error containing "x"` (expected) or `error X` (actual).
std::string
describe_vector_value(const std::string& json_text, bool expected);

// The load probe: a suite per SDK, a case per library (loaded, matching
// opkit.yaml and opkit.lock, or a failure saying what did not); a version no
// library is for is a skipped case.
std::vector<JunitSuite>
junit_suites(const probe::TestReport& report);

// The test vectors: a suite per version, a case per library (a failure per
// vector that did not match); ops whose vectors did not run are an error case.
std::vector<JunitSuite>
junit_suites(const std::vector<probe::PythonVectorsReport>& reports);

// A template's own test script: one case.
std::vector<JunitSuite>
junit_suites(const probe::PythonTestResult& result);

// The checks: a case per library and target, a failure with each fatal
// finding when it will not load (warnings are its system-out).
std::vector<JunitSuite>
junit_suites(const std::vector<check::CheckReport>& reports);

} // namespace opkit::cli
