#include "opkit/util/process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <csignal>

#include <sys/types.h>

namespace {

// Whether a process still runs within 2 s (a zombie no longer does).
bool
runs(pid_t pid)
{
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line) || line.find(") Z ") != std::string::npos) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

} // namespace

TEST(Process, ExitCodesAndSignalsComeThroughTheGuard)
{
  EXPECT_EQ(opkit::run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}).exit_code, 3);
  opkit::ProcessResult result = opkit::run_process({"sh", "-c", "echo out; echo err >&2"});
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_EQ(opkit::run_process({"sh", "-c", "kill -TERM $$"}).exit_code, 128 + SIGTERM);
  EXPECT_EQ(opkit::run_process({"sh", "-c", "read line; echo \"[$line]\""}).out, "[]\n") << "stdin is /dev/null";
}

TEST(Process, WhatTheProgramLeftRunningInItsGroupEndsWithIt)
{
  // Once, a background child kept the pipe open (the run waited for it) and ran on.
  auto start = std::chrono::steady_clock::now();
  opkit::ProcessResult result = opkit::run_process({"sh", "-c", "sleep 60 & echo $!"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  pid_t left = static_cast<pid_t>(std::stol(result.out));
  EXPECT_FALSE(runs(left)) << "sleep " << left << " runs on";
}

TEST(Process, ADeadlineEndsTheProgramAndWhatItStarted)
{
  for (bool capture : {true, false}) {
    opkit::ProcessOptions options;
    options.deadline_s = 0.5;
    options.capture = capture;
    auto start = std::chrono::steady_clock::now();
    // The grandchild's pid goes to a file: without capture its stdout is ours.
    std::string file = ::testing::TempDir() + "opkit-deadline-pid";
    opkit::ProcessResult result = opkit::run_process({"sh", "-c", "sleep 60 & echo $! >" + file + "; wait"}, options);
    EXPECT_TRUE(result.timed_out) << "capture " << capture;
    EXPECT_EQ(result.exit_code, 128 + SIGTERM);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    std::ifstream pid_file(file);
    long pid = 0;
    ASSERT_TRUE(pid_file >> pid);
    EXPECT_FALSE(runs(static_cast<pid_t>(pid))) << "sleep " << pid << " runs on past the deadline";
  }
  opkit::ProcessOptions roomy;
  roomy.deadline_s = 30;
  opkit::ProcessResult quick = opkit::run_process({"sh", "-c", "echo done"}, roomy);
  EXPECT_FALSE(quick.timed_out);
  EXPECT_EQ(quick.out, "done\n");
}
