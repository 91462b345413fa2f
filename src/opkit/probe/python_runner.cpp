#include "opkit/probe/python_runner.hpp"

#include "opkit/probe/env_step.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/scaffold/scaffold.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>

#include <unistd.h>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

std::string
self_path()
{
  std::error_code ec;
  stdfs::path self = stdfs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("opkit") : self.string();
}

} // namespace

std::string
local_python()
{
  return settings::get("python");
}

stdfs::path
ensure_venv(const std::vector<std::string>& requirements)
{
  std::vector<std::string> sorted = requirements;
  std::sort(sorted.begin(), sorted.end());
  std::string key = sha256_hex(join(sorted, "\n")).substr(0, 12);
  stdfs::path venv = sdk::opkit_home() / "venvs" / ("py-" + key);
  fs::FileLock lock(sdk::opkit_home() / "venvs" / ("py-" + key + ".lock"));
  // The stamp is written last: a venv without it was interrupted and is redone.
  if (stdfs::exists(venv / ".opkit-complete")) {
    return venv;
  }
  log_info("creating a Python environment for {} ...", join(sorted, " "));
  progress::Step step("creating a Python environment for " + join(sorted, " "));
  const std::string hint = "scripts/setup.sh installs python3-venv; PyPI must be reachable";
  std::error_code ec;
  stdfs::remove_all(venv, ec);
  run_env_step({local_python(), "-m", "venv", venv.string()}, local_python() + " -m venv", step, hint);
  if (!sorted.empty()) {
    std::vector<std::string> argv = {(venv / "bin" / "python").string(), "-m", "pip", "install"};
    std::vector<std::string> output = pip_output_flags();
    argv.insert(argv.end(), output.begin(), output.end());
    argv.insert(argv.end(), sorted.begin(), sorted.end());
    run_env_step(argv, "pip install " + join(sorted, " "), step, hint);
  }
  fs::write_file_atomic(venv / ".opkit-complete", join(sorted, "\n") + "\n");
  return venv;
}

PythonTestResult
run_python_test(const project::Manifest& manifest, const project::TemplateSpec& spec)
{
  PythonTestResult result;
  result.script =
    scaffold::render_mustache(spec.test, {{"name", manifest.name}, {"op_name", manifest.primary_op().name}});
  if (!stdfs::is_regular_file(manifest.root / result.script)) {
    fail(ExitCode::usage, "{}: the template's test script is missing", manifest.root / result.script);
  }
  result.python = ensure_venv(spec.requirements) / "bin" / "python";
  ProcessOptions options;
  options.cwd = manifest.root;
  options.env_set["OPKIT"] = self_path();
  options.env_set["OPKIT_PROJECT"] = manifest.root.string();
  options.env_set["PYTHONDONTWRITEBYTECODE"] = "1";
  log_info("running {} with {} ...", result.script, result.python);
  ProcessResult run = run_process({result.python.string(), result.script}, options);
  result.exit_code = run.exit_code;
  result.output = run.out + run.err;
  return result;
}

} // namespace opkit::probe
