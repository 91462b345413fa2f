#include "opkit/settings/settings.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

extern char** environ;

namespace opkit::settings {

namespace stdfs = std::filesystem;

namespace {

constexpr std::string_view k_family = "X_Y";

std::string
with_member(const std::string& pattern, const std::string& member)
{
  return member.empty() ? pattern : pattern.substr(0, pattern.size() - k_family.size()) + member;
}

// The member of a family a name stands for: "3_6" for python_3_6 (pattern
// python_X_Y) or OPKIT_PYTHON_3_6 (pattern OPKIT_PYTHON_X_Y); "" for none.
std::string
family_member(const project::SettingSpec& spec, const std::string& pattern, const std::string& name)
{
  std::string prefix = pattern.substr(0, pattern.size() - k_family.size());
  if (!spec.family() || !starts_with(name, prefix) || name.size() <= prefix.size()) {
    return "";
  }
  std::string member = name.substr(prefix.size());
  return project::find_setting_spec(with_member(spec.key, member)) == &spec ? member : "";
}

} // namespace

struct Settings::Project
{
  std::once_flag once;
  std::function<std::optional<stdfs::path>()> find;
  std::optional<stdfs::path> file;
  std::vector<project::SettingEntry> entries;
};

std::string
source_name(Source source)
{
  switch (source) {
    case Source::flag:
      return "flag";
    case Source::environment:
      return "environment";
    case Source::project:
      return "project";
    case Source::config_file:
      return "config file";
    case Source::default_value:
      return "default";
    case Source::pip:
      return "pip";
    case Source::unset:
      break;
  }
  return "unset";
}

std::string
Value::origin() const
{
  switch (source) {
    case Source::flag:
      return fmt::format("command line ({})", variable);
    case Source::environment:
      return fmt::format("environment ({})", variable);
    case Source::project:
    case Source::config_file:
      return fmt::format("{} ({}:{})", source_name(source), file, line);
    case Source::default_value:
      return "default";
    case Source::pip:
      if (file.empty() && variable.empty()) {
        return fmt::format("pip ({}: no index-url in its configuration)", detail);
      }
      return variable.empty() ? fmt::format("pip ({}:{} {})", file, line, detail)
                              : fmt::format("pip (environment {})", variable);
    case Source::unset:
      break;
  }
  return spec != nullptr && !spec->unset.empty() ? fmt::format("unset ({})", spec->unset) : "unset";
}

Environment
Environment::real()
{
  Environment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value != nullptr && *value != '\0' ? std::optional<std::string>(value) : std::nullopt;
  };
  env.names = [] {
    std::vector<std::string> names;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view entry(*e);
      names.emplace_back(entry.substr(0, entry.find('=')));
    }
    return names;
  };
  return env;
}

Environment
Environment::from_map(std::map<std::string, std::string> variables)
{
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(variables));
  Environment env;
  env.getenv = [shared](const std::string& name) -> std::optional<std::string> {
    auto it = shared->find(name);
    return it != shared->end() && !it->second.empty() ? std::optional<std::string>(it->second) : std::nullopt;
  };
  env.names = [shared] {
    std::vector<std::string> names;
    for (const auto& entry : *shared) {
      names.push_back(entry.first);
    }
    return names;
  };
  return env;
}

SettingsFile
user_config_file(const Environment& env)
{
  SettingsFile file{"user", {}, false, ""};
  if (std::optional<std::string> named = env.getenv("OPKIT_CONFIG")) {
    file.path = *named;
    file.chosen_by = "OPKIT_CONFIG";
  } else if (std::optional<std::string> config = env.getenv("XDG_CONFIG_HOME")) {
    file.path = stdfs::path(*config) / "opkit" / "config.yaml";
    file.chosen_by = "XDG_CONFIG_HOME";
  } else {
    std::optional<std::string> home = env.getenv("HOME");
    file.path = stdfs::path(home ? *home : "/tmp") / ".config" / "opkit" / "config.yaml";
    file.chosen_by = "HOME";
  }
  std::error_code ec;
  file.exists = stdfs::is_regular_file(file.path, ec);
  return file;
}

std::optional<stdfs::path>
find_project_file(const stdfs::path& dir)
{
  std::error_code ec;
  for (stdfs::path at = stdfs::absolute(dir, ec).lexically_normal(); !at.empty(); at = at.parent_path()) {
    if (stdfs::is_regular_file(at / "opkit.yaml", ec)) {
      return at / "opkit.yaml";
    }
    if (at == at.parent_path()) {
      break;
    }
  }
  return std::nullopt;
}

Settings
Settings::load(Environment env, std::function<std::optional<stdfs::path>()> find_project)
{
  Settings settings;
  settings.env_ = std::move(env);
  settings.user_file_ = user_config_file(settings.env_);
  if (settings.user_file_.exists) {
    settings.user_entries_ =
      project::parse_settings_file(fs::read_file(settings.user_file_.path), settings.user_file_.path.string());
  }
  settings.project_ = std::make_shared<Project>();
  settings.project_->find = std::move(find_project);
  return settings;
}

Settings
Settings::with_project(std::vector<project::SettingEntry> entries) const
{
  Settings copy = *this;
  copy.project_ = std::make_shared<Project>();
  std::call_once(copy.project_->once, [&] {
    if (!entries.empty()) {
      copy.project_->file = entries.front().file;
    }
    copy.project_->entries = std::move(entries);
  });
  return copy;
}

const std::vector<project::SettingEntry>&
Settings::project_entries() const
{
  std::call_once(project_->once, [this] {
    project_->file = project_->find ? project_->find() : std::nullopt;
    if (project_->file) {
      project_->entries = project::read_project_settings(fs::read_file(*project_->file), project_->file->string());
    }
  });
  return project_->entries;
}

std::optional<std::string>
Settings::expand_default(const std::string& pattern, int depth) const
{
  std::string out;
  size_t at = 0;
  while (at < pattern.size()) {
    size_t open = pattern.find("${", at);
    if (open == std::string::npos) {
      out += pattern.substr(at);
      break;
    }
    size_t close = pattern.find('}', open);
    std::string name = pattern.substr(open + 2, close - open - 2);
    std::optional<std::string> value;
    if (const project::SettingSpec* spec = project::find_setting_spec(name); spec != nullptr && depth < 4) {
      Value resolved = resolve_spec(*spec, name, depth + 1);
      value = resolved.is_set() ? std::optional<std::string>(resolved.value) : std::nullopt;
    } else {
      value = env_.getenv(name);
    }
    if (!value) {
      return std::nullopt;
    }
    out += pattern.substr(at, open - at) + *value;
    at = close + 1;
  }
  return out;
}

Value
Settings::resolve_spec(const project::SettingSpec& spec, const std::string& key, int depth) const
{
  Value value;
  value.key = key;
  value.spec = &spec;
  std::string member = family_member(spec, spec.key, key);
  for (const std::string& pattern : spec.env) {
    std::string variable = with_member(pattern, member);
    if (std::optional<std::string> text = env_.getenv(variable)) {
      if (std::string problem = project::setting_value_problem(spec, *text); !problem.empty()) {
        fail(ExitCode::usage, "{}: {}", variable, problem);
      }
      value.value = *text;
      value.source = Source::environment;
      value.variable = variable;
      return value;
    }
  }
  auto from_entries = [&](const std::vector<project::SettingEntry>& entries, Source source) {
    for (const project::SettingEntry& entry : entries) {
      if (entry.key == key) {
        value.value = entry.value;
        value.source = source;
        value.file = entry.file;
        value.line = entry.line;
        return true;
      }
    }
    return false;
  };
  if ((spec.project && from_entries(project_entries(), Source::project))
      || from_entries(user_entries_, Source::config_file)) {
    return value;
  }
  for (const std::string& pattern : spec.defaults) {
    if (std::optional<std::string> text = expand_default(pattern, depth)) {
      value.value = *text;
      value.source = Source::default_value;
      return value;
    }
  }
  return value;
}

Value
Settings::resolve(const std::string& key, const std::string& flag_value, const std::string& flag_name) const
{
  const project::SettingSpec* spec = project::find_setting_spec(key);
  if (spec == nullptr || (spec->family() && key == spec->key)) {
    project::fail_unknown_setting("opkit config", key);
  }
  if (!flag_value.empty()) {
    Value value;
    value.key = key;
    value.spec = spec;
    value.value = flag_value;
    value.source = Source::flag;
    value.variable = flag_name.empty() ? spec->flag : flag_name;
    return value;
  }
  return resolve_spec(*spec, key, 0);
}

std::optional<Value>
Settings::resolve_variable(const std::string& variable) const
{
  for (const project::SettingSpec& spec : project::setting_specs()) {
    for (const std::string& pattern : spec.env) {
      if (!spec.family() && pattern == variable) {
        return resolve_spec(spec, spec.key, 0);
      }
      if (std::string member = family_member(spec, pattern, variable); !member.empty()) {
        std::string key = with_member(spec.key, member);
        return resolve_spec(spec, key, 0);
      }
    }
  }
  return std::nullopt;
}

std::vector<Value>
Settings::list() const
{
  std::vector<Value> values;
  for (const project::SettingSpec& spec : project::setting_specs()) {
    if (!spec.family()) {
      values.push_back(resolve_spec(spec, spec.key, 0));
      continue;
    }
    std::vector<std::string> members;
    for (const std::string& name : env_.names()) {
      for (const std::string& pattern : spec.env) {
        if (std::string member = family_member(spec, pattern, name); !member.empty() && env_.getenv(name)) {
          members.push_back(member);
        }
      }
    }
    for (const project::SettingEntry& entry : user_entries_) {
      if (std::string member = family_member(spec, spec.key, entry.key); !member.empty()) {
        members.push_back(member);
      }
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    for (const std::string& member : members) {
      values.push_back(resolve_spec(spec, with_member(spec.key, member), 0));
    }
  }
  return values;
}

std::vector<SettingsFile>
Settings::files() const
{
  std::vector<SettingsFile> files = {user_file_};
  project_entries();
  if (project_->file) {
    files.push_back({"project", *project_->file, true, "opkit.yaml in the current folder or above"});
  }
  return files;
}

const Settings&
current()
{
  static const Settings settings =
    Settings::load(Environment::real(), [] { return find_project_file(stdfs::current_path()); });
  return settings;
}

std::string
get(const std::string& key)
{
  return current().get(key);
}

NetLimits
net_limits()
{
  // Each value was checked (a positive number) where it was read.
  NetLimits limits;
  parse_positive_number(get("net_deadline"), limits.deadline_s);
  parse_positive_number(get("net_min_speed"), limits.min_bytes_per_s);
  parse_positive_number(get("net_speed_window"), limits.window_s);
  return limits;
}

stdfs::path
set_user_setting(const std::string& key, const std::string& value)
{
  SettingsFile file = user_config_file(Environment::real());
  std::string text = file.exists ? fs::read_file(file.path) : "";
  std::string updated = project::set_setting_in_text(text, file.path.string(), key, value);
  fs::create_dirs(file.path.parent_path());
  fs::write_file_atomic(file.path, updated);
  return file.path;
}

} // namespace opkit::settings
