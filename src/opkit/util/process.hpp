#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

struct ProcessOptions
{
  std::filesystem::path cwd;                  // empty: inherit
  std::map<std::string, std::string> env_set; // added to (or replacing in) the inherited environment
  std::vector<std::string> env_unset;         // left out of the inherited environment
  bool capture = true;                        // false: stdout/stderr go to ours
  // With capture: each piece of stdout as it arrives, instead of collecting it in ProcessResult::out.
  std::function<void(std::string_view)> on_stdout;
  // > 0: after this many seconds the program and everything it started are
  // ended (SIGTERM to its process group) and ProcessResult::timed_out is set.
  double deadline_s = 0;
};

struct ProcessResult
{
  int exit_code = -1;     // 128 + signal when killed by a signal
  bool timed_out = false; // ended at ProcessOptions::deadline_s
  std::string out;
  std::string err;
};

// Runs argv (never through a shell) and waits. Throws Error(missing) when
// argv[0] cannot be found or started; a non-zero exit is a value, not an error.
ProcessResult
run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The full path of a program found on PATH, or empty.
std::filesystem::path
find_program(const std::string& name);

// This process's arguments, from /proc/self/cmdline (argv[0] as it was given).
std::vector<std::string>
own_argv();

// argv joined for display, quoting arguments that contain spaces.
std::string
format_argv(const std::vector<std::string>& argv);

} // namespace opkit
