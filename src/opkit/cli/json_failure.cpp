#include "opkit/cli/json_failure.hpp"

#include "opkit/util/json.hpp"

#include <cstdio>
#include <map>

namespace opkit::cli {

namespace {

struct JsonFlag
{
  std::string schema;
  std::function<std::string()> schema_now;
};

std::map<const CLI::Option*, JsonFlag>&
json_flags()
{
  static std::map<const CLI::Option*, JsonFlag> flags;
  return flags;
}

// The innermost command the parse reached and its registered --json flag.
std::pair<const CLI::Option*, const JsonFlag*>
ran_json_flag(const CLI::App& app)
{
  const CLI::App* level = &app;
  while (!level->get_subcommands().empty()) {
    level = level->get_subcommands().back();
  }
  const CLI::Option* option = level->get_option_no_throw("--json");
  auto found = json_flags().find(option);
  if (option == nullptr || found == json_flags().end()) {
    return {nullptr, nullptr};
  }
  return {option, &found->second};
}

} // namespace

CLI::Option*
add_json_flag(CLI::App* cmd, bool& json, const std::string& schema, const std::string& description,
              std::function<std::string()> schema_now)
{
  CLI::Option* flag = cmd->add_flag(
    "--json", json,
    description.find("(schema ") == std::string::npos ? description + " (schema " + schema + ")" : description);
  json_flags()[flag] = {schema, std::move(schema_now)};
  return flag;
}

std::string
exit_code_name(ExitCode code)
{
  switch (code) {
    case ExitCode::ok:
      return "ok";
    case ExitCode::failed:
      return "failed";
    case ExitCode::usage:
      return "usage";
    case ExitCode::missing:
      return "missing";
    case ExitCode::system:
      return "system";
  }
  return "system";
}

std::optional<std::string>
json_failure_document(const CLI::App& app, bool json_on_line, ExitCode code, const std::string& message,
                      const std::string& hint)
{
  auto [flag, registered] = ran_json_flag(app);
  if (flag == nullptr || (flag->count() == 0 && !json_on_line)) {
    return std::nullopt;
  }
  Json error = {{"message", message}};
  if (!hint.empty()) {
    error["hint"] = hint;
  }
  error["kind"] = exit_code_name(code);
  std::string schema = registered->schema_now ? registered->schema_now() : registered->schema;
  Json document = {{"schema", schema}, {"error", error}, {"exit_code", static_cast<int>(code)}};
  return json_text(document, 2);
}

void
print_json_failure(const CLI::App& app, bool json_on_line, ExitCode code, const std::string& message,
                   const std::string& hint)
{
  if (std::optional<std::string> document = json_failure_document(app, json_on_line, code, message, hint)) {
    std::fflush(stdout);
    std::fprintf(stdout, "%s\n", document->c_str());
    std::fflush(stdout);
  }
}

} // namespace opkit::cli
