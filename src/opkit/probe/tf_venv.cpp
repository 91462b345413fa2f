#include "opkit/probe/tf_venv.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/probe/env_step.hpp"
#include "opkit/probe/interpreter.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

namespace opkit::probe {

namespace stdfs = std::filesystem;

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
  progress::Step step(fmt::format("creating a Python {} environment with {}", recipe.python, requirement));
  const std::string hint = "check the network and PyPI";
  std::error_code ec;
  stdfs::remove_all(venv, ec);
  run_env_step({python.string(), "-m", "venv", venv.string()}, python.string() + " -m venv", step, hint);
  std::string pip = (venv / "bin" / "pip").string();
  std::vector<std::string> output = pip_output_flags();
  if (!recipe.pip.empty()) {
    std::vector<std::string> argv = {pip, "install"};
    argv.insert(argv.end(), output.begin(), output.end());
    argv.push_back(recipe.pip);
    run_env_step(argv, "pip install " + recipe.pip, step, hint);
  }
  std::vector<std::string> argv = {pip, "install"};
  argv.insert(argv.end(), output.begin(), output.end());
  argv.insert(argv.end(), recipe.flags.begin(), recipe.flags.end());
  argv.push_back(requirement);
  argv.insert(argv.end(), recipe.pins.begin(), recipe.pins.end());
  run_env_step(argv, "pip install " + requirement + " " + join(recipe.pins, " "), step, hint);
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
