#include "opkit/util/process.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char** environ;

namespace opkit {

namespace {

std::vector<std::string>
build_environment(const std::map<std::string, std::string>& overrides)
{
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string key = entry.substr(0, entry.find('='));
    if (overrides.count(key) == 0) {
      env.push_back(entry);
    }
  }
  for (const auto& [key, value] : overrides) {
    env.push_back(std::string(key).append("=").append(value));
  }
  return env;
}

std::vector<char*>
to_c_array(std::vector<std::string>& strings)
{
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    result.push_back(s.data());
  }
  result.push_back(nullptr);
  return result;
}

// Reads both pipes until both close, so neither child stream can fill up and block.
void
drain(int out_fd, int err_fd, ProcessResult& result, const std::function<void(std::string_view)>& on_stdout)
{
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  char buffer[65536];
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail(ExitCode::system, "poll failed: {}", std::strerror(errno));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0 && i == 0 && on_stdout) {
        on_stdout(std::string_view(buffer, static_cast<size_t>(n)));
      } else if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

int
wait_for(pid_t pid)
{
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fail(ExitCode::system, "waitpid failed: {}", std::strerror(errno));
    }
  }
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return 128 + WTERMSIG(status);
}

} // namespace

std::filesystem::path
find_program(const std::string& name)
{
  if (name.find('/') != std::string::npos) {
    return ::access(name.c_str(), X_OK) == 0 ? std::filesystem::path(name) : std::filesystem::path();
  }
  const char* path_env = std::getenv("PATH");
  for (const std::string& dir : split(path_env ? path_env : "/usr/bin:/bin", ':')) {
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

std::string
format_argv(const std::vector<std::string>& argv)
{
  std::vector<std::string> parts;
  parts.reserve(argv.size());
  for (const std::string& arg : argv) {
    parts.push_back(arg.find_first_of(" \t\"'") == std::string::npos ? arg : "'" + arg + "'");
  }
  return join(parts, " ");
}

ProcessResult
run_process(const std::vector<std::string>& argv, const ProcessOptions& options)
{
  if (argv.empty() || find_program(argv[0]).empty()) {
    fail(ExitCode::missing, "{}: not found in PATH", argv.empty() ? "" : argv[0]);
  }
  log_debug("running: {}", format_argv(argv));
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (options.capture) {
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
      fail(ExitCode::system, "pipe failed: {}", std::strerror(errno));
    }
  }
  // Everything the child needs is made before fork: after it, only system calls.
  std::string program = std::filesystem::absolute(find_program(argv[0])).string();
  std::vector<std::string> args = argv;
  std::vector<std::string> env = build_environment(options.env_set);
  std::vector<char*> c_args = to_c_array(args);
  std::vector<char*> c_env = to_c_array(env);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // The child dies with opkit (a killed `opkit build` takes its ninja, and
    // ninja its compilers, along) instead of running on unseen.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) {
      ::_exit(127);
    }
    if (options.capture && (::dup2(out_pipe[1], 1) < 0 || ::dup2(err_pipe[1], 2) < 0)) {
      ::_exit(127);
    }
    if (cwd != nullptr && ::chdir(cwd) != 0) {
      ::_exit(127);
    }
    ::execve(program.c_str(), c_args.data(), c_env.data());
    ::_exit(127);
  }
  int rc = pid < 0 ? errno : 0;
  ProcessResult result;
  if (options.capture) {
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (rc == 0) {
      drain(out_pipe[0], err_pipe[0], result, options.on_stdout);
    } else {
      ::close(out_pipe[0]);
      ::close(err_pipe[0]);
    }
  }
  if (rc != 0) {
    fail(ExitCode::missing, "{}: cannot start: {}", argv[0], std::strerror(rc));
  }
  result.exit_code = wait_for(pid);
  return result;
}

} // namespace opkit
