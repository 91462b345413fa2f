#include "opkit/probe/tf_venv.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/probe/interpreter.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

// pip's own lines (what it collects, downloads, installs) are the progress of
// a step that takes minutes: they go to stderr unless -q, never to stdout,
// which holds results (`opkit test --python --json`).
bool
show_progress()
{
  return verbosity() >= Verbosity::normal;
}

// pip's options for how much it says: its bar on a terminal, its lines
// otherwise, nothing with -q.
std::vector<std::string>
pip_progress_flags()
{
  if (!show_progress()) {
    return {"--quiet"};
  }
  return {::isatty(STDERR_FILENO) != 0 ? "--progress-bar=on" : "--progress-bar=off"};
}

// Runs a step; its output streams to stderr unless -q.
void
run_step(const std::vector<std::string>& argv, const std::string& what)
{
  ProcessOptions options;
  options.capture = !show_progress();
  const NetLimits limits = settings::net_limits(); // pip reaches PyPI
  options.deadline_s = limits.deadline_s;
  ProcessResult result;
  if (options.capture) {
    result = run_process(argv, options);
  } else {
    // The child inherits our stdout: point it at stderr for the step.
    std::fflush(stdout);
    int saved = ::dup(STDOUT_FILENO);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    try {
      result = run_process(argv, options);
    } catch (...) {
      ::dup2(saved, STDOUT_FILENO);
      ::close(saved);
      throw;
    }
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
  }
  if (result.timed_out) {
    throw past_net_deadline(what, "run", limits);
  }
  if (result.exit_code != 0) {
    // pip's last lines, on the error's one line.
    std::string said = options.capture ? ": " + join(split(trim(tail_lines(result.out + result.err, 3)), '\n'), "; ")
                                       : " (its output is above)";
    throw Error(ExitCode::missing, fmt::format("{}: failed (exit {}){}", what, result.exit_code, said),
                "check the network and PyPI");
  }
}

} // namespace

stdfs::path
tf_venvs_dir()
{
  return settings::get("venvs"); // default: <home>/venvs
}

stdfs::path
ensure_tf_venv(const sdk::Sdk& sdk)
{
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  if (!flags.python_env) {
    throw Error(
      ExitCode::missing,
      fmt::format("tensorflow {}: no verified Python environment recipe in configs/frameworks/tensorflow.yaml",
                  sdk.version.str()),
      "add a python_env entry to its range (Python version, pins), checked by installing it");
  }
  const project::PythonEnvRecipe& recipe = *flags.python_env;
  std::string name = fmt::format("tf-{}-py{}", sdk.version.str(), recipe.python);
  stdfs::path venv = tf_venvs_dir() / name;
  fs::create_dirs(tf_venvs_dir());
  fs::FileLock lock(tf_venvs_dir() / (name + ".lock"));
  if (stdfs::exists(venv / ".opkit-complete")) {
    return venv;
  }
  std::string requirement = flags.cpu_distribution + "==" + sdk.version.str();
  stdfs::path python =
    find_interpreter(recipe.python, fmt::format("tensorflow {} (opkit test --python)", sdk.version.str()));
  log_info("creating a Python {} environment with {} (once) ...", recipe.python, requirement);
  std::error_code ec;
  stdfs::remove_all(venv, ec);
  run_step({python.string(), "-m", "venv", venv.string()}, python.string() + " -m venv");
  std::string pip = (venv / "bin" / "pip").string();
  std::vector<std::string> progress = pip_progress_flags();
  if (!recipe.pip.empty()) {
    std::vector<std::string> argv = {pip, "install"};
    argv.insert(argv.end(), progress.begin(), progress.end());
    argv.push_back(recipe.pip);
    run_step(argv, "pip install " + recipe.pip);
  }
  std::vector<std::string> argv = {pip, "install"};
  argv.insert(argv.end(), progress.begin(), progress.end());
  argv.insert(argv.end(), recipe.flags.begin(), recipe.flags.end());
  argv.push_back(requirement);
  argv.insert(argv.end(), recipe.pins.begin(), recipe.pins.end());
  run_step(argv, "pip install " + requirement + " " + join(recipe.pins, " "));
  fs::write_file_atomic(venv / ".opkit-complete", requirement + "\n");
  log_info("tensorflow {}: Python environment ready in {}", sdk.version.str(), venv);
  return venv;
}

std::string
installed_tensorflow(const stdfs::path& venv)
{
  std::error_code ec;
  for (const auto& lib : stdfs::directory_iterator(venv / "lib", ec)) {
    stdfs::path site = lib.path() / "site-packages";
    for (const auto& entry : stdfs::directory_iterator(site, ec)) {
      std::string name = entry.path().filename().string();
      for (const char* distribution : {"tensorflow-", "tensorflow_cpu-", "tensorflow_gpu-"}) {
        std::string prefix = distribution;
        if (starts_with(name, prefix) && ends_with(name, ".dist-info")) {
          return name.substr(prefix.size(), name.size() - prefix.size() - std::string(".dist-info").size());
        }
      }
    }
  }
  return "";
}

} // namespace opkit::probe
