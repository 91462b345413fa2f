#pragma once

// The JUnit XML report CI systems display (GitLab's artifacts:reports:junit,
// Jenkins' junit step, GitHub's test-report actions): <testsuites>, a
// <testsuite> per group, a <testcase> per thing tested, as the Jenkins xUnit
// plugin's junit-10.xsd lays them out. Pure values; `render_junit` writes the
// text, escaped so any bytes stay well-formed XML.
#include <filesystem>
#include <string>
#include <vector>

namespace opkit {

enum class JunitOutcome
{
  passed,
  failure, // what was tested is wrong (<failure>)
  error,   // it could not be tested (<error>)
  skipped, // it was not tested (<skipped>)
};

struct JunitCase
{
  std::string classname; // the group CI systems list it under ("opkit.test.tensorflow-2.10.1")
  std::string name;      // the thing tested ("zero_out")
  JunitOutcome outcome = JunitOutcome::passed;
  std::string message; // one line: the outcome's message attribute
  std::string details; // the outcome element's text (what failed, line by line); also kept when passed, as system-out
};

struct JunitSuite
{
  std::string name;
  std::vector<JunitCase> cases;
};

// The document: <testsuites name=...> with each suite's counts (tests,
// failures, errors, skipped) and cases. Text that is not UTF-8, and control
// bytes XML cannot hold, are written as \xNN.
std::string
render_junit(const std::string& name, const std::vector<JunitSuite>& suites);

// Writes render_junit's document to `path` atomically (a CI reader never sees
// half a report), making its folder first.
void
write_junit(const std::filesystem::path& path, const std::string& name, const std::vector<JunitSuite>& suites);

} // namespace opkit
