#include "opkit/check/checker.hpp"
#include "opkit/cli/junit_reports.hpp"
#include "opkit/probe/python_runner.hpp"
#include "opkit/probe/python_vectors.hpp"
#include "opkit/probe/tester.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

probe::TestTarget
target(const std::string& sdk, const std::string& library)
{
  probe::TestTarget t;
  t.sdk_id = sdk;
  t.library_name = library;
  t.library = "build/" + sdk + "/lib" + library + ".so";
  t.framework_library = "libtensorflow_framework.so.2";
  t.report.loaded = true;
  t.report.tf_version = "2.10.1";
  return t;
}

} // namespace

TEST(JunitReports, ProbeCasePerLibraryAndVersion)
{
  probe::TestReport report;
  report.targets.push_back(target("tensorflow-1.12.0", "a"));
  report.targets.back().report.loaded = false;
  report.targets.back().report.error = "undefined symbol: _ZN10tensorflow8OpKernelD2Ev";
  report.targets.push_back(target("tensorflow-1.12.0", "b"));
  report.targets.back().differences = {"B attr n: opkit.yaml declares minimum 2, the library registered minimum 1"};
  report.targets.push_back(target("tensorflow-2.10.1", "a"));
  report.targets.back().lock_state = "changed";
  report.targets.back().lock_changes = {"A: attr clip: default 100 -> 50.5"};
  report.targets.push_back(target("tensorflow-2.10.1", "b"));
  report.skipped = {"tensorflow-2.4.0: no library is for it"};
  std::vector<JunitSuite> suites = cli::junit_suites(report);
  ASSERT_EQ(suites.size(), 3U);
  EXPECT_EQ(suites[0].name, "opkit test tensorflow-1.12.0");
  ASSERT_EQ(suites[0].cases.size(), 2U);
  EXPECT_EQ(suites[0].cases[0].classname, "opkit.test.tensorflow-1.12.0");
  EXPECT_EQ(suites[0].cases[0].name, "a");
  EXPECT_EQ(suites[0].cases[0].outcome, JunitOutcome::failure);
  EXPECT_EQ(suites[0].cases[0].message, "did not load: undefined symbol: _ZN10tensorflow8OpKernelD2Ev");
  EXPECT_EQ(suites[0].cases[1].outcome, JunitOutcome::failure);
  EXPECT_EQ(suites[0].cases[1].message, "does not match opkit.yaml: B attr n: opkit.yaml declares minimum 2, the "
                                        "library registered minimum 1");
  EXPECT_NE(suites[0].cases[1].details.find("MISMATCH B attr n"), std::string::npos);
  EXPECT_EQ(suites[1].cases[0].outcome, JunitOutcome::failure);
  EXPECT_NE(suites[1].cases[0].message.find("interface changed since opkit.lock"), std::string::npos);
  EXPECT_NE(suites[1].cases[0].details.find("CHANGED A: attr clip: default 100 -> 50.5"), std::string::npos);
  EXPECT_EQ(suites[1].cases[1].outcome, JunitOutcome::passed);
  EXPECT_EQ(suites[2].cases[0].outcome, JunitOutcome::skipped);
}

TEST(JunitReports, VectorsCasePerLibraryWithEachMismatch)
{
  probe::PythonVectorsReport report;
  report.sdk_id = "tensorflow-2.10.1";
  report.framework = "tensorflow";
  report.version = "2.10.1";
  probe::VectorOutcome ok{
    "a", "build/liba.so", "A", "a_op", 0, "", true, R"({"outputs": {"y": 1}})", R"({"outputs": {"y": 1}})"};
  probe::VectorOutcome bad{"a",
                           "build/liba.so",
                           "A",
                           "a_op",
                           1,
                           "negatives",
                           false,
                           R"({"outputs": {"y": [0, 0]}})",
                           R"({"outputs": {"y": [0, -1]}})"};
  probe::VectorOutcome other{"b",
                             "build/libb.so",
                             "B",
                             "b_op",
                             0,
                             "",
                             true,
                             R"({"error": "must be"})",
                             R"({"error": "InvalidArgumentError: must be positive"})"};
  report.outcomes = {ok, bad, other};
  report.problems = {"C in libc.so: the op did not run (exit 1):\nImportError"};
  std::vector<JunitSuite> suites = cli::junit_suites(std::vector<probe::PythonVectorsReport>{report});
  ASSERT_EQ(suites.size(), 1U);
  ASSERT_EQ(suites[0].cases.size(), 3U);
  const JunitCase& a = suites[0].cases[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.outcome, JunitOutcome::failure);
  EXPECT_EQ(a.message, "1 test vector(s) did not match");
  EXPECT_NE(a.details.find("A (a_op) vector 0: ok"), std::string::npos) << a.details;
  EXPECT_NE(a.details.find("A (a_op) vector 1 \"negatives\": MISMATCH\n  expected y = [0,0]\n  actual   y = [0,-1]"),
            std::string::npos)
    << a.details;
  EXPECT_EQ(suites[0].cases[1].outcome, JunitOutcome::passed);
  EXPECT_EQ(suites[0].cases[2].name, "vectors");
  EXPECT_EQ(suites[0].cases[2].outcome, JunitOutcome::error);
  EXPECT_EQ(suites[0].cases[2].message, report.problems[0]);
}

TEST(JunitReports, CheckFailsWithItsFatalFindings)
{
  check::CheckReport fails;
  fails.library = "build/tf-1.12.0/liba.so";
  fails.target = "tensorflow 2.10.1 on tensorflow-2.10";
  fails.loads = false;
  fails.findings.push_back({"dual-abi-mismatch", true, "built with the old C++ ABI", "why text", "fix text", {}});
  fails.findings.push_back({"cpu-feature", false, "uses AVX2", "w", "r", {}});
  check::CheckReport loads;
  loads.library = "build/tf-2.10.1/liba.so";
  loads.target = fails.target;
  loads.findings.push_back({"cpu-feature", false, "uses AVX2", "w", "r", {}});
  std::vector<JunitSuite> suites = cli::junit_suites(std::vector<check::CheckReport>{fails, loads});
  ASSERT_EQ(suites.size(), 1U);
  ASSERT_EQ(suites[0].cases.size(), 2U);
  EXPECT_EQ(suites[0].cases[0].classname, "opkit.check.tensorflow 2.10.1 on tensorflow-2.10");
  EXPECT_EQ(suites[0].cases[0].outcome, JunitOutcome::failure);
  EXPECT_EQ(suites[0].cases[0].message, "will not load: [dual-abi-mismatch] built with the old C++ ABI");
  EXPECT_NE(suites[0].cases[0].details.find("  why: why text\n  fix: fix text\n"), std::string::npos);
  EXPECT_EQ(suites[0].cases[1].outcome, JunitOutcome::passed);
  EXPECT_NE(suites[0].cases[1].details.find("warning [cpu-feature] uses AVX2"), std::string::npos);
}

TEST(JunitReports, TemplateScriptIsOneCase)
{
  probe::PythonTestResult result{"test_op.py", "/venv/bin/python", 1, "AssertionError\n"};
  std::vector<JunitSuite> suites = cli::junit_suites(result);
  ASSERT_EQ(suites.size(), 1U);
  EXPECT_EQ(suites[0].cases[0].outcome, JunitOutcome::failure);
  EXPECT_EQ(suites[0].cases[0].message, "test_op.py exited 1");
  EXPECT_EQ(suites[0].cases[0].details, "AssertionError\n");
}
