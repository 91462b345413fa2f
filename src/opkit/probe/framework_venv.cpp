#include "opkit/probe/framework_venv.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/probe/env_step.hpp"
#include "opkit/sdk/fetch.hpp"
#include "opkit/sdk/interpreter.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

// The distribution a venv installs: the CPU build where PyPI has one.
std::string
distribution_of(const project::FrameworkFlags& flags)
{
  return flags.cpu_distribution.empty() ? flags.gpu_distribution : flags.cpu_distribution;
}

} // namespace

std::optional<VenvRecipe>
venv_recipe(const sdk::Sdk& sdk, const project::FrameworkFlags& flags)
{
  if (flags.python_env) {
    return VenvRecipe{*flags.python_env, "the table, range >=" + flags.since};
  }
  std::string python = sdk::python_of_wheel_tag(sdk.wheel_tag);
  if (python.empty()) {
    return std::nullopt;
  }
  project::PythonEnvRecipe recipe;
  recipe.python = python;
  recipe.flags = {"--no-cache-dir"};
  return VenvRecipe{recipe, "the wheel's tag " + sdk.wheel_tag};
}

stdfs::path
framework_venvs_dir()
{
  return settings::get("venvs"); // default: <home>/venvs
}

stdfs::path
ensure_framework_venv(const sdk::Sdk& sdk)
{
  const project::FrameworkTable& table = project::FrameworkTable::get(sdk.framework);
  project::FrameworkFlags flags = table.flags_for(sdk.version);
  std::string what = fmt::format("{} {}", sdk.framework, sdk.version.str());
  std::optional<VenvRecipe> chosen = venv_recipe(sdk, flags);
  if (!chosen) {
    throw Error(ExitCode::missing,
                fmt::format("{}: no Python environment recipe: the SDK came from no wheel (its tag says the Python) "
                            "and configs/frameworks/{}.yaml's range has no python_env",
                            what, sdk.framework),
                "import the SDK from its wheel (opkit sdk fetch), or add a python_env entry to its range");
  }
  const project::PythonEnvRecipe& recipe = chosen->recipe;
  std::string name = fmt::format("{}-{}-py{}", table.short_name(), sdk.version.str(), recipe.python);
  stdfs::path venv = framework_venvs_dir() / name;
  fs::create_dirs(framework_venvs_dir());
  fs::FileLock lock(framework_venvs_dir() / (name + ".lock"));
  if (stdfs::exists(venv / ".opkit-complete")) {
    return venv;
  }
  std::string requirement = distribution_of(flags) + "==" + sdk.version.str();
  stdfs::path python = sdk::find_interpreter(recipe.python, what + " (opkit test --python)");
  log_info("creating a Python {} environment with {} (once; the recipe from {}) ...", recipe.python, requirement,
           chosen->origin);
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
  // The wheel `sdk fetch` downloaded whole, when it kept one for this Python: not downloaded again.
  std::optional<stdfs::path> wheel = sdk::downloaded_wheel(distribution_of(flags), sdk.version.str(), recipe.python);
  if (wheel) {
    log_info("{}: installing {} from {}, the wheel `opkit sdk fetch` downloaded", what, requirement, wheel->string());
  }
  std::string install = wheel ? wheel->string() : requirement;
  std::vector<std::string> argv = {pip, "install"};
  argv.insert(argv.end(), output.begin(), output.end());
  argv.insert(argv.end(), recipe.flags.begin(), recipe.flags.end());
  argv.push_back(install);
  argv.insert(argv.end(), recipe.pins.begin(), recipe.pins.end());
  run_env_step(argv, "pip install " + install + " " + join(recipe.pins, " "), step, hint);
  fs::write_file_atomic(venv / ".opkit-complete", requirement + "\n");
  if (wheel) { // installed: the venv holds it now, and the download goes
    stdfs::remove(*wheel, ec);
  }
  log_info("{}: Python environment ready in {}", what, venv);
  return venv;
}

std::string
installed_framework(const stdfs::path& venv, const sdk::Sdk& sdk)
{
  // Any distribution of the framework (tensorflow, tensorflow-cpu, tensorflow-gpu, torch): a venv may hold
  // another range's, and then its version is not the SDK's.
  std::vector<std::string> prefixes;
  for (std::string distribution : project::FrameworkTable::get(sdk.framework).distributions()) {
    std::replace(distribution.begin(), distribution.end(), '-', '_'); // dist-info names: tensorflow_cpu-2.10.1
    prefixes.push_back(distribution + "-");
  }
  std::error_code ec;
  for (const auto& lib : stdfs::directory_iterator(venv / "lib", ec)) {
    stdfs::path site = lib.path() / "site-packages";
    for (const auto& entry : stdfs::directory_iterator(site, ec)) {
      std::string name = entry.path().filename().string();
      for (const std::string& prefix : prefixes) {
        if (starts_with(name, prefix) && ends_with(name, ".dist-info")) {
          return name.substr(prefix.size(), name.size() - prefix.size() - std::string(".dist-info").size());
        }
      }
    }
  }
  return "";
}

} // namespace opkit::probe
