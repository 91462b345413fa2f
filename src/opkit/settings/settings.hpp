#pragma once

// opkit's own settings, each resolved from its sources in precedence order:
// the command's flag (the caller passes it), the environment, the project's
// opkit.yaml `settings:` (project settings only), the user config file, the
// default. Which settings exist is data (configs/settings.yaml, read by
// project/settings_file); this folder only decides which source wins and
// says where each value came from (`opkit config list`).
#include "opkit/project/settings_file.hpp"
#include "opkit/util/http.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opkit::settings {

enum class Source
{
  flag,
  environment,
  project,
  config_file,
  default_value,
  pip, // index_url: pip's own configuration (sdk/pip_config), when opkit's sources leave it unset
  unset,
};

// "flag", "environment", "project", "config file", "default", "pip", "unset".
std::string
source_name(Source source);

struct Value
{
  std::string key; // as asked ("python_3_6" for the family python_X_Y)
  std::string value;
  Source source = Source::unset;
  std::string variable; // Source::environment: the variable; Source::flag: the flag
  std::string file;     // Source::project, Source::config_file, Source::pip (a pip.conf)
  int line = 0;
  std::string detail; // Source::pip: where in the file ("[download] index_url")
  const project::SettingSpec* spec = nullptr;

  bool is_set() const { return source != Source::unset; }
  // "default", "environment (OPKIT_HOME)", "config file (/home/u/.config/opkit/config.yaml:3)",
  // "project (/p/opkit.yaml:12)", "command line (--protoc)", "unset (protoc on PATH)",
  // "pip (/root/.config/pip/pip.conf:3 [download] index_url)".
  std::string origin() const;
};

// The process environment (or a test's): non-empty values only, as opkit has
// always read them (an empty variable is an unset one).
struct Environment
{
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::function<std::vector<std::string>()> names; // every variable's name, for families (OPKIT_PYTHON_3_6)

  static Environment real();
  static Environment from_map(std::map<std::string, std::string> variables);
};

// A file settings are read from.
struct SettingsFile
{
  std::string role; // "user" or "project"
  std::filesystem::path path;
  bool exists = false;
  std::string chosen_by; // "OPKIT_CONFIG", "XDG_CONFIG_HOME", "HOME", "opkit.yaml above the current folder"
};

class Settings
{
public:
  // The user config file `env` names (read and checked now: a bad one is
  // Error(usage) file:line:col) and the project `find_project` finds,
  // read when a project setting is first resolved.
  static Settings load(Environment env, std::function<std::optional<std::filesystem::path>()> find_project = {});

  // The value of `key` (Error(usage) with a suggestion for an unknown key);
  // a non-empty `flag_value` wins, named `flag_name`.
  Value resolve(const std::string& key, const std::string& flag_value = "", const std::string& flag_name = "") const;
  std::string get(const std::string& key) const { return resolve(key).value; }
  // The setting an environment variable belongs to ("OPKIT_PYTHON_3_6" -> python_3_6), resolved.
  std::optional<Value> resolve_variable(const std::string& variable) const;

  // These settings with the project layer given (a loaded opkit.yaml's).
  Settings with_project(std::vector<project::SettingEntry> entries) const;

  // Every setting in configs/settings.yaml's order; a family once per member set anywhere.
  std::vector<Value> list() const;
  // The files read: the user file, and the project's when one was found.
  std::vector<SettingsFile> files() const;

private:
  struct Project;
  Environment env_;
  SettingsFile user_file_;
  std::vector<project::SettingEntry> user_entries_;
  std::shared_ptr<Project> project_;

  const std::vector<project::SettingEntry>& project_entries() const;
  std::optional<std::string> expand_default(const std::string& pattern, int depth) const;
  Value resolve_spec(const project::SettingSpec& spec, const std::string& key, int depth) const;
};

// The user config file the environment names: $OPKIT_CONFIG, else
// $XDG_CONFIG_HOME/opkit/config.yaml, else ~/.config/opkit/config.yaml.
SettingsFile
user_config_file(const Environment& env);

// opkit.yaml in `dir` or the nearest folder above it.
std::optional<std::filesystem::path>
find_project_file(const std::filesystem::path& dir);

// This process's settings: the real environment, the user config file (read
// once), the project around the current folder (read when first needed).
const Settings&
current();

// current().resolve(key, ...).value: the shorthand the rest of opkit uses.
std::string
get(const std::string& key);

// Every network operation's limits: net_deadline, net_min_speed, net_speed_window.
NetLimits
net_limits();

// `opkit config set`: writes `key: value` into the user config file
// (atomically, other keys and comments kept) and returns the file.
std::filesystem::path
set_user_setting(const std::string& key, const std::string& value);

} // namespace opkit::settings
