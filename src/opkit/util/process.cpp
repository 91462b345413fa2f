#include "opkit/util/process.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char** environ;

namespace opkit {

namespace {

std::vector<std::string>
build_environment(const std::map<std::string, std::string>& overrides, const std::vector<std::string>& unset)
{
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string key = entry.substr(0, entry.find('='));
    if (overrides.count(key) == 0 && std::find(unset.begin(), unset.end(), key) == unset.end()) {
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

// When a program's time is up: the deadline, and the process group to end then.
struct Deadline
{
  std::optional<std::chrono::steady_clock::time_point> at;
  pid_t group = 0;

  // Milliseconds to the deadline for poll (-1: none); ends the group when it has passed.
  int wait_ms(ProcessResult& result)
  {
    if (!at || result.timed_out) {
      return -1;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*at - std::chrono::steady_clock::now()).count();
    if (left > 0) {
      return static_cast<int>(std::min<long long>(left, 60000));
    }
    result.timed_out = true;
    ::kill(-group, SIGTERM); // the pipes close as the group ends
    return -1;
  }
};

// Reads both pipes until both close, so neither child stream can fill up and block.
void
drain(int out_fd, int err_fd, ProcessResult& result, const std::function<void(std::string_view)>& on_stdout,
      Deadline& deadline)
{
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  char buffer[65536];
  while (open_count > 0) {
    int ready = ::poll(fds, 2, deadline.wait_ms(result));
    if (ready == 0) {
      continue; // the deadline: wait_ms ends the group
    }
    if (ready < 0) {
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

// The process groups of the children running now (0: a free slot), which
// opkit's SIGINT/SIGTERM/SIGHUP handler ends before opkit itself ends.
const size_t k_max_children = 64;
std::atomic<pid_t> g_children[k_max_children];
std::once_flag g_handlers_once;

void
on_fatal_signal(int signal)
{
  for (std::atomic<pid_t>& group : g_children) {
    if (pid_t pgid = group.load(); pgid > 0) {
      ::kill(-pgid, SIGTERM);
    }
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

void
install_handlers()
{
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old = {};
    // A signal ignored when opkit started (nohup) stays ignored.
    if (::sigaction(signal, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
      struct sigaction action = {};
      action.sa_handler = on_fatal_signal;
      ::sigemptyset(&action.sa_mask);
      ::sigaction(signal, &action, nullptr);
    }
  }
}

// Holds a child's process group in g_children while it runs.
class ChildSlot
{
public:
  explicit ChildSlot(pid_t pgid)
  {
    for (std::atomic<pid_t>& slot : g_children) {
      pid_t free = 0;
      if (slot.compare_exchange_strong(free, pgid)) {
        m_slot = &slot;
        return;
      }
    }
  }
  ~ChildSlot()
  {
    if (m_slot != nullptr) {
      m_slot->store(0);
    }
  }
  ChildSlot(const ChildSlot&) = delete;
  ChildSlot& operator=(const ChildSlot&) = delete;

private:
  std::atomic<pid_t>* m_slot = nullptr;
};

// The forked child, leading a process group of its own: it runs the program
// in a grandchild and waits, and when opkit dies (even of SIGKILL: the parent
// death signal) or forwards a signal, ends the whole group, so no grandchild
// the program started (pip's, venv's ensurepip) runs on unseen. Its exit
// mirrors the program's. Only system calls here: this runs between fork and exec.
[[noreturn]] void
guard_program(pid_t parent, const char* program, char** args, char** env, const char* cwd, const int* out_pipe,
              const int* err_pipe, bool capture)
{
  ::setpgid(0, 0);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    ::signal(signal, SIG_DFL); // not opkit's handler, which would end opkit's other children
  }
  sigset_t waited;
  sigset_t previous;
  ::sigemptyset(&waited);
  for (int signal : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) {
    ::sigaddset(&waited, signal);
  }
  ::sigprocmask(SIG_BLOCK, &waited, &previous);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) {
    ::_exit(127);
  }
  if (capture && (::dup2(out_pipe[1], 1) < 0 || ::dup2(err_pipe[1], 2) < 0)) {
    ::_exit(127);
  }
  if (cwd != nullptr && ::chdir(cwd) != 0) {
    ::_exit(127);
  }
  // Out of the terminal's foreground group, a read of it would stop the program: it reads nothing.
  if (int null = ::open("/dev/null", O_RDONLY); null >= 0) {
    ::dup2(null, 0);
    ::close(null);
  }
  pid_t worker = ::fork();
  if (worker == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::execve(program, args, env);
    ::_exit(127);
  }
  if (worker < 0) {
    ::_exit(127);
  }
  int status = 0;
  bool ending = false;
  for (;;) {
    int signal = 0;
    if (::sigwait(&waited, &signal) != 0) {
      continue;
    }
    if (signal != SIGCHLD) {
      if (!ending) {
        ending = true;
        ::kill(-::getpgrp(), SIGTERM); // this one included: consumed by the next sigwait
      }
      continue;
    }
    pid_t done = ::waitpid(worker, &status, WNOHANG);
    if (done == worker) {
      break;
    }
  }
  ::kill(-::getpgrp(), SIGTERM); // what the program left running in the group
  if (WIFEXITED(status)) {
    ::_exit(WEXITSTATUS(status));
  }
  int killed_by = WTERMSIG(status);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    ::signal(signal, SIG_IGN); // drops the SIGTERM sent to the group above, still pending here
  }
  ::signal(killed_by, SIG_DFL);
  ::sigprocmask(SIG_UNBLOCK, &waited, nullptr);
  ::raise(killed_by);
  ::_exit(128 + killed_by);
}

int
wait_for(pid_t pid, Deadline& deadline, ProcessResult& result)
{
  int status = 0;
  for (;;) {
    // Without a deadline (or past it) block; with one, look every 20 ms (the program's output is not ours to poll).
    bool timed = deadline.wait_ms(result) >= 0;
    pid_t done = ::waitpid(pid, &status, timed ? WNOHANG : 0);
    if (done == pid) {
      break;
    }
    if (done < 0 && errno != EINTR) {
      fail(ExitCode::system, "waitpid failed: {}", std::strerror(errno));
    }
    if (done == 0) {
      ::usleep(20000);
    }
  }
  if (WIFEXITED(status)) {
    return WEXITSTATUS(status);
  }
  return 128 + WTERMSIG(status);
}

} // namespace

std::vector<std::string>
own_argv()
{
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv = split(text, '\0');
  while (!argv.empty() && argv.back().empty()) {
    argv.pop_back();
  }
  return argv;
}

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
  std::vector<std::string> env = build_environment(options.env_set, options.env_unset);
  std::vector<char*> c_args = to_c_array(args);
  std::vector<char*> c_env = to_c_array(env);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  pid_t parent = ::getpid();
  std::call_once(g_handlers_once, install_handlers);
  pid_t pid = ::fork();
  if (pid == 0) {
    // The child dies with opkit (a killed `opkit build` takes its ninja, and
    // ninja its compilers, along) instead of running on unseen.
    guard_program(parent, program.c_str(), c_args.data(), c_env.data(), cwd, out_pipe, err_pipe, options.capture);
  }
  int rc = pid < 0 ? errno : 0;
  if (pid > 0) {
    ::setpgid(pid, pid); // also here: the group exists before ChildSlot names it
  }
  ChildSlot slot(pid > 0 ? pid : 0);
  ProcessResult result;
  Deadline deadline{std::nullopt, pid};
  if (options.deadline_s > 0) {
    deadline.at = std::chrono::steady_clock::now()
                  + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(options.deadline_s));
  }
  if (options.capture) {
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (rc == 0) {
      drain(out_pipe[0], err_pipe[0], result, options.on_stdout, deadline);
    } else {
      ::close(out_pipe[0]);
      ::close(err_pipe[0]);
    }
  }
  if (rc != 0) {
    fail(ExitCode::missing, "{}: cannot start: {}", argv[0], std::strerror(rc));
  }
  result.exit_code = wait_for(pid, deadline, result);
  return result;
}

} // namespace opkit
