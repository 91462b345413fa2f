#include "opkit/sdk/interpreter.hpp"

#include "opkit/project/version.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include <unistd.h>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

bool
is_executable(const stdfs::path& path)
{
  std::error_code ec;
  return stdfs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

InterpreterSearch
InterpreterSearch::from_environment()
{
  InterpreterSearch search;
  search.getenv = [](const std::string& name) -> std::optional<std::string> {
    // OPKIT_PYTHON_3_6, else python_3_6 in the config file
    std::optional<settings::Value> value = settings::current().resolve_variable(name);
    return value && value->is_set() ? std::optional<std::string>(value->value) : std::nullopt;
  };
  if (const char* path = std::getenv("PATH")) {
    for (const std::string& dir : split(path, ':')) {
      if (!dir.empty()) {
        search.path.emplace_back(dir);
      }
    }
  }
  if (const char* root = std::getenv("PYENV_ROOT"); root != nullptr && *root != '\0') {
    search.pyenv_root = root;
  } else if (const char* home = std::getenv("HOME")) {
    search.pyenv_root = stdfs::path(home) / ".pyenv";
  }
  search.is_version = [](const stdfs::path& python, const std::string& version) {
    ProcessResult result = run_process({python.string(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"});
    return result.exit_code == 0 && trim(result.out) == version;
  };
  return search;
}

std::string
interpreter_variable(const std::string& python_version)
{
  std::string name = "OPKIT_PYTHON_" + python_version;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

stdfs::path
find_interpreter(const std::string& python_version, const std::string& needed_by, const InterpreterSearch& search)
{
  std::string variable = interpreter_variable(python_version);
  if (std::optional<std::string> named = search.getenv ? search.getenv(variable) : std::nullopt) {
    if (!is_executable(*named)) {
      fail(ExitCode::missing, "{}={}: no such Python interpreter (needed for {})", variable, *named, needed_by);
    }
    return *named;
  }
  std::string program = "python" + python_version;
  for (const stdfs::path& dir : search.path) {
    if (is_executable(dir / program) && (!search.is_version || search.is_version(dir / program, python_version))) {
      return dir / program;
    }
  }
  // pyenv: versions/3.6.15/bin/python3.6, the newest patch release first.
  std::optional<project::Version> best;
  stdfs::path found;
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(search.pyenv_root / "versions", ec)) {
    std::string name = entry.path().filename().string();
    std::optional<project::Version> version = project::parse_version(name);
    if (!version || !starts_with(name, python_version + ".") || !is_executable(entry.path() / "bin" / program)) {
      continue;
    }
    if (!best || *best < *version) {
      best = version;
      found = entry.path() / "bin" / program;
    }
  }
  if (!found.empty()) {
    return found;
  }
  throw Error(ExitCode::missing,
              fmt::format("Python {}: no interpreter found (needed for {}): not in ${}, not {} on PATH, not under {}",
                          python_version, needed_by, variable, program, (search.pyenv_root / "versions").string()),
              fmt::format("install it (`pyenv install {}`) or set {}=/path/to/{}", python_version, variable, program));
}

const PythonBuildFacts&
python_build_facts(const std::string& python_version, const std::string& needed_by)
{
  static std::mutex mutex;
  static std::map<std::string, PythonBuildFacts> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = known.find(python_version); found != known.end()) {
    return found->second;
  }
  PythonBuildFacts facts;
  facts.version = python_version;
  facts.interpreter = find_interpreter(python_version, needed_by);
  ProcessResult result = run_process(
    {facts.interpreter.string(), "-c",
     "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"});
  std::vector<std::string> lines = split(trim(result.out), '\n');
  if (result.exit_code != 0 || lines.size() != 2) {
    fail(ExitCode::system, "{}: cannot ask it for its headers and extension suffix (sysconfig): {}", facts.interpreter,
         tail_lines(result.err, 3));
  }
  facts.include_dir = trim(lines[0]);
  facts.ext_suffix = trim(lines[1]);
  std::error_code ec;
  if (!stdfs::is_regular_file(facts.include_dir / "Python.h", ec)) {
    throw Error(ExitCode::missing,
                fmt::format("{}: no Python.h in {} (needed for {})", facts.interpreter, facts.include_dir, needed_by),
                fmt::format("install Python {}'s headers (Debian: python{}-dev; pyenv installs them), or set {} to "
                            "an interpreter that has them",
                            python_version, python_version, interpreter_variable(python_version)));
  }
  return known.emplace(python_version, facts).first->second;
}

std::string
cpython_tag(const std::string& python_version)
{
  std::string digits = python_version;
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  return "cp" + digits;
}

} // namespace opkit::sdk
