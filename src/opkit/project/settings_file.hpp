#pragma once

// opkit's settings as data (configs/settings.yaml) and the YAML files that set
// them: the user's config file and opkit.yaml's `settings:` section. The
// precedence between the sources is settings/'s; this side only reads YAML.
#include "opkit/project/node.hpp"
#include <string>
#include <vector>

namespace opkit::project {

struct SettingSpec
{
  std::string key;                   // "home"; a family ends in _X_Y (python_X_Y: python_3_6, ...)
  std::vector<std::string> env;      // the variables that set it, the first set wins ("OPKIT_PYTHON_X_Y" in a family)
  std::string type;                  // string, path, list, choice
  std::vector<std::string> choices;  // a choice's values
  double max = 0;                    // a number's largest value (0: none)
  std::vector<std::string> defaults; // alternatives with ${VAR} / ${key}; the first whose references are all set
  std::string unset;                 // what opkit does when it has no value (no default)
  std::string flag;                  // the flag that overrides it, if any ("--index-url")
  std::string description;
  bool project = false; // opkit.yaml's `settings:` may set it
  bool family() const;
};

// A value a YAML file gives: the key as written ("python_3_6"), the value
// as text (a list joined by spaces) and where it stands.
struct SettingEntry
{
  std::string key;
  std::string value;
  std::string file;
  int line = 0;
  int column = 0;
  std::string where() const; // "file:line:col"
};

// configs/settings.yaml, in its order.
const std::vector<SettingSpec>&
setting_specs();

// The spec of a key (a family's for python_3_6), or nullptr.
const SettingSpec*
find_setting_spec(const std::string& key);

// Error(usage) "<subject>: unknown setting 'KEY' (did you mean 'K'?)".
[[noreturn]] void
fail_unknown_setting(const std::string& subject, const std::string& key);

// An empty string when `value` suits the spec, else why not ("must be auto, on or off, got 'x'").
std::string
setting_value_problem(const SettingSpec& spec, const std::string& value);

// A user config file: a mapping of settings (empty text: none). A YAML error,
// an unknown key or a wrong type is Error(usage) "name:line:col: ...".
std::vector<SettingEntry>
parse_settings_file(const std::string& text, const std::string& name);

// opkit.yaml's project settings: its `settings:` section, and build.cache,
// build.cache_remote and build.distcc_hosts (the same settings' older
// spelling; setting one in both places is an error). Only keys marked
// `project: true` are accepted.
std::vector<SettingEntry>
parse_project_settings(const Node& doc, const std::string& name);

// The same from opkit.yaml's text, reading nothing else of it.
std::vector<SettingEntry>
read_project_settings(const std::string& text, const std::string& name);

// A config file's text with `key: value` set: the key's existing lines
// replaced (other keys and comments kept), else the line appended. The result
// is parsed back, so a bad key or value is refused before anything is written.
std::string
set_setting_in_text(const std::string& text, const std::string& name, const std::string& key, const std::string& value);

} // namespace opkit::project
