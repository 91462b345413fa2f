#include "opkit/sdk/pip_config.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/ini_file.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <pwd.h>
#include <unistd.h>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

// pip's _normalize_name: lower case, '_' as '-', without a leading "--".
std::string
normalize_name(std::string name)
{
  name = ascii_lower(name);
  std::replace(name.begin(), name.end(), '_', '-');
  return starts_with(name, "--") ? name.substr(2) : name;
}

// An insertion-ordered map: assigning to a key it has keeps that key's place (Python's dict).
template<typename T>
struct OrderedMap
{
  std::vector<std::pair<std::string, T>> items;
  std::unordered_map<std::string, size_t> index; // key -> its place in `items` (a lookup, not a scan)

  T& operator[](const std::string& key)
  {
    auto [it, added] = index.emplace(key, items.size());
    if (added) {
      items.emplace_back(key, T{});
    }
    return items[it->second].second;
  }
};

// pip's strtobool: what a no-index value turns it on with.
bool
pip_true(const std::string& value)
{
  std::string v = ascii_lower(trim(value));
  return v == "y" || v == "yes" || v == "t" || v == "true" || v == "on" || v == "1";
}

// One value as a file gives it.
struct Found
{
  std::string value;
  stdfs::path file;
  int line = 0;
  std::string section;
  std::string name;
  bool multiline = false;
};

stdfs::path
home_folder(const settings::Environment& env)
{
  if (std::optional<std::string> home = env.getenv("HOME")) {
    return *home;
  }
  const passwd* entry = ::getpwuid(::getuid()); // os.path.expanduser's fallback
  return entry != nullptr && entry->pw_dir != nullptr ? entry->pw_dir : "/";
}

// The variables a file set (section.name -> value), as pip's _load_file keeps them.
OrderedMap<Found>
file_values(const stdfs::path& file, const std::string& text)
{
  OrderedMap<Found> values;
  IniFile ini = parse_ini(text, file.string());
  size_t count = ini.defaults.entries.size();
  for (const IniSection& section : ini.sections) {
    count += section.entries.size();
  }
  values.items.reserve(count);
  values.index.reserve(count);
  for (const IniSection& section : ini.sections) {
    for (const IniEntry& entry : ini.items(section)) {
      Found& found = values[section.name + "." + normalize_name(entry.name)];
      found = Found{entry.value, file, entry.line, section.name, entry.name, entry.multiline};
    }
  }
  return values;
}

} // namespace

PipEnvironment
PipEnvironment::real()
{
  PipEnvironment pip;
  pip.env = settings::Environment::real();
  pip.read = [](const stdfs::path& file) -> std::optional<std::string> {
    std::error_code ec;
    if (!stdfs::is_regular_file(file, ec) || ::access(file.c_str(), R_OK) != 0) {
      return std::nullopt; // configparser's read() skips what it cannot open
    }
    return fs::read_file(file);
  };
  pip.exists = [](const stdfs::path& path) {
    std::error_code ec;
    return stdfs::exists(path, ec);
  };
  pip.sys_prefix = []() -> std::optional<stdfs::path> {
    static const std::optional<stdfs::path> prefix = []() -> std::optional<stdfs::path> {
      try {
        ProcessOptions options;
        options.deadline_s = 30;
        ProcessResult python = run_process({"python3", "-c", "import sys; print(sys.prefix)"}, options);
        std::string out = trim(python.out);
        return python.exit_code == 0 && !out.empty() ? std::optional<stdfs::path>(out) : std::nullopt;
      } catch (const Error&) {
        return std::nullopt; // no python3: no pip either, and no site file
      }
    }();
    return prefix;
  };
  return pip;
}

std::string
PipIndexUrl::where() const
{
  if (!variable.empty()) {
    return fmt::format("environment ({})", variable);
  }
  return url.empty() ? "" : fmt::format("{}:{} [{}] {}", file.string(), line, section, name);
}

std::vector<stdfs::path>
pip_config_files(const PipEnvironment& pip)
{
  const settings::Environment& env = pip.env;
  std::optional<std::string> env_file = env.getenv("PIP_CONFIG_FILE");
  if (env_file == "/dev/null") { // pip: os.devnull loads no file at all
    return {};
  }
  std::vector<stdfs::path> files;
  std::string dirs = trim(env.getenv("XDG_CONFIG_DIRS").value_or(""));
  for (const std::string& dir : split(dirs.empty() ? "/etc/xdg" : dirs, ':')) {
    if (!trim(dir).empty()) {
      files.push_back(stdfs::path(dir) / "pip" / "pip.conf");
    }
  }
  files.emplace_back("/etc/pip.conf");
  if (!(env_file && pip.exists(*env_file))) {
    files.push_back(home_folder(env) / ".pip" / "pip.conf");
    std::string config_home = trim(env.getenv("XDG_CONFIG_HOME").value_or(""));
    files.push_back((config_home.empty() ? home_folder(env) / ".config" : stdfs::path(config_home)) / "pip"
                    / "pip.conf");
  }
  if (std::optional<stdfs::path> prefix = pip.sys_prefix ? pip.sys_prefix() : std::nullopt) {
    files.push_back(*prefix / "pip.conf");
  }
  if (env_file) {
    files.emplace_back(*env_file);
  }
  return files;
}

PipIndexUrl
pip_index_url(const PipEnvironment& pip)
{
  PipIndexUrl answer;
  answer.files = pip_config_files(pip);
  // Each file's values, a file named twice in its first place with its last reading (pip's _dictionary).
  OrderedMap<OrderedMap<Found>> by_file;
  for (const stdfs::path& file : answer.files) {
    if (std::optional<std::string> text = pip.read(file)) {
      by_file[file.string()] = file_values(file, *text);
    }
  }
  // pip's option parser: [global]'s values, then the command's section's; a later file's value wins
  // within a section, even an empty one, and then an empty value counts as none.
  OrderedMap<Found> global;
  OrderedMap<Found> download;
  for (const auto& [file, values] : by_file.items) {
    for (const auto& [key, found] : values.items) {
      if (key == "global.index-url" || key == "global.no-index") {
        global[key] = found;
      } else if (key == "download.index-url" || key == "download.no-index") {
        download[key] = found;
      }
    }
  }
  // no-index, as pip's strtobool reads it: [download]'s, else [global]'s, else off.
  for (OrderedMap<Found>* section : {&global, &download}) {
    for (const auto& [key, found] : section->items) {
      if (ends_with(key, ".no-index") && !found.value.empty()) {
        answer.no_index = pip_true(found.value);
      }
    }
  }
  for (OrderedMap<Found>* section : {&download, &global}) {
    auto url = std::find_if(section->items.begin(), section->items.end(),
                            [](const auto& item) { return ends_with(item.first, ".index-url"); });
    if (url != section->items.end() && !url->second.value.empty()) {
      const Found& found = url->second;
      if (found.multiline) { // only the value pip takes: another may override it
        fail(ExitCode::usage, "{}:{}: [{}] {}: a value on several lines; pip would take it as one URL",
             found.file.string(), found.line, found.section, found.name);
      }
      answer.url = found.value;
      answer.file = found.file;
      answer.line = found.line;
      answer.section = found.section;
      answer.name = found.name;
      break;
    }
  }
  // Then the environment (pip's ":env:" section): PIP_ and any case of the name.
  for (const std::string& variable : pip.env.names()) {
    std::string rest = variable.size() > 4 ? variable.substr(4) : "";
    if (starts_with(variable, "PIP_") && normalize_name(rest) == "index-url") {
      if (std::optional<std::string> value = pip.env.getenv(variable)) {
        bool no_index = answer.no_index;
        answer = PipIndexUrl{*value, variable, {}, 0, "", "", answer.files};
        answer.no_index = no_index;
      }
    }
    if (starts_with(variable, "PIP_") && normalize_name(rest) == "no-index") {
      if (std::optional<std::string> value = pip.env.getenv(variable)) {
        answer.no_index = pip_true(*value);
      }
    }
  }
  return answer;
}

settings::Value
with_pip_index_url(settings::Value value, const PipEnvironment& pip)
{
  if (value.is_set()) {
    return value;
  }
  PipIndexUrl answer = pip_index_url(pip);
  if (answer.no_index) {
    return value; // pip reads no index at all, whatever index-url says: only its find-links (`pip download`'s)
  }
  if (answer.url.empty()) {
    value.value = k_pip_default_index;
    value.source = settings::Source::pip;
    value.detail = "its default index";
    return value;
  }
  value.value = answer.url;
  value.source = settings::Source::pip;
  value.variable = answer.variable;
  value.file = answer.file.string();
  value.line = answer.line;
  value.detail = answer.variable.empty() ? fmt::format("[{}] {}", answer.section, answer.name) : "";
  return value;
}

} // namespace opkit::sdk
