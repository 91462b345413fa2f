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
