// `opkit config`: the effective settings and where each came from (like
// `ccache -p` and `pip config list`), one setting's value, the files read,
// and `config set` into the user config file.
#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/project/settings_file.hpp"
#include "opkit/sdk/pip_config.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::cli {

namespace {

bool show_secrets = false; // --show-secrets: values as they are, passwords and tokens too

// A value as printed: secrets masked (config output is what people paste into bug reports).
std::string
shown(const settings::Value& value)
{
  return show_secrets ? value.value : mask_secrets(value.value);
}

// In the table: escaped (a value read from a file may hold any byte) and clipped to a readable cell.
std::string
cell(const settings::Value& value)
{
  return escape_clipped(shown(value), 400);
}

// The value the command that reads a setting uses: index_url left unset by
// opkit's sources is what pip's configuration gives `pip download`, as in `sdk fetch`.
settings::Value
effective(settings::Value value)
{
  return value.key == "index_url" ? sdk::with_pip_index_url(std::move(value), sdk::PipEnvironment::real()) : value;
}

Json
file_json(const settings::SettingsFile& file)
{
  return Json{
    {"role", file.role}, {"path", file.path.string()}, {"exists", file.exists}, {"chosen_by", file.chosen_by}};
}

Json
value_json(const settings::Value& value)
{
  const project::SettingSpec& spec = *value.spec;
  Json json = {{"key", value.key},
               {"value", value.is_set() ? Json(shown(value)) : Json()},
               {"source", settings::source_name(value.source)},
               {"origin", value.origin()},
               {"variable", value.variable.empty() ? Json() : Json(value.variable)},
               {"file", value.file.empty() ? Json() : Json(value.file)},
               {"line", value.line > 0 ? Json(value.line) : Json()},
               {"env", spec.env},
               {"project", spec.project},
               {"type", spec.type},
               {"description", spec.description}};
  return json;
}

void
run_config_list(const GlobalOptions& global)
{
  const settings::Settings& current = settings::current();
  std::vector<settings::Value> values = current.list();
  std::transform(values.begin(), values.end(), values.begin(), effective);
  if (global.json) {
    Json json = {{"schema", "opkit.config/1"}, {"files", Json::array()}, {"settings", Json::array()}};
    for (const settings::SettingsFile& file : current.files()) {
      json["files"].push_back(file_json(file));
    }
    for (const settings::Value& value : values) {
      json["settings"].push_back(value_json(value));
    }
    fmt::print("{}\n", json_text(json, 2));
    return;
  }
  size_t key_width = 3;
  size_t value_width = 5;
  for (const settings::Value& value : values) {
    key_width = std::max(key_width, value.key.size());
    value_width = std::max(value_width, value.is_set() ? cell(value).size() : 1);
  }
  fmt::print("{:<{}}  {:<{}}  {}\n", "KEY", key_width, "VALUE", value_width, "ORIGIN");
  for (const settings::Value& value : values) {
    fmt::print("{:<{}}  {:<{}}  {}\n", value.key, key_width, value.is_set() ? cell(value) : "-", value_width,
               value.origin());
  }
}

void
run_path()
{
  for (const settings::SettingsFile& file : settings::current().files()) {
    fmt::print("{:<8} {} ({}{})\n", file.role, file.path.string(), file.exists ? "read" : "absent",
               file.role == "user" ? ", from $" + file.chosen_by : "");
  }
}

// The settings' keys, for the completions (a family, python_X_Y, left out).
std::vector<std::string>
setting_keys()
{
  std::vector<std::string> keys;
  for (const project::SettingSpec& spec : project::setting_specs()) {
    if (!spec.family()) {
      keys.push_back(spec.key);
    }
  }
  return keys;
}

} // namespace

void
add_config_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  CLI::App* config = app.add_subcommand("config", "Show opkit's settings and where each comes from; set them");
  config->require_subcommand(1);

  CLI::App* list = config->add_subcommand("list", "Every setting: its effective value and its origin");
  add_json_flag(list, global.json, "opkit.config/1", "Print JSON");
  list->add_flag("--show-secrets", show_secrets, "Show passwords and tokens in URLs as they are (masked: ****)");
  list->callback([&global] { run_config_list(global); });

  auto key = std::make_shared<std::string>();
  CLI::App* get = config->add_subcommand("get", "Print one setting's effective value (exit 1 when it is unset)");
  offer_values(get->add_option("KEY", *key, "The setting, e.g. home or cache")->required(), setting_keys);
  get->add_flag("--show-secrets", show_secrets, "Show passwords and tokens in URLs as they are (masked: ****)");
  get->callback([key, &exit_code] {
    settings::Value value = effective(settings::current().resolve(*key));
    if (value.is_set()) {
      fmt::print("{}\n", escape_text(shown(value))); // a password never goes to a terminal or a bug report
    } else {
      fmt::print(stderr, "{}: {}\n", value.key, value.origin());
      exit_code = static_cast<int>(ExitCode::failed);
    }
  });

  CLI::App* path = config->add_subcommand("path", "The settings files opkit reads");
  path->callback([] { run_path(); });

  auto set_value = std::make_shared<std::string>();
  CLI::App* set = config->add_subcommand("set", "Write KEY: VALUE into the user config file (other keys kept)");
  offer_values(set->add_option("KEY", *key, "The setting")->required(), setting_keys);
  set->add_option("VALUE", *set_value, "Its value")->required();
  set->callback([key, set_value] {
    std::filesystem::path file = settings::set_user_setting(*key, *set_value);
    fmt::print(stderr, "{}: {} = {}\n", file.string(), *key, *set_value);
  });
}

} // namespace opkit::cli
