#pragma once

// `--json` always ends with one JSON document on stdout: a command's report,
// or, when it fails with an opkit::Error (or a usage error), its failure
// document under the same schema id:
//   {"schema": "opkit.build/1", "error": {"message": ..., "hint": ...,
//    "kind": "missing"}, "exit_code": 3}
// Each command registers its --json flag with the schema its report names.
#include "opkit/util/error.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>

namespace opkit::cli {

// Adds `--json` to `cmd`, bound to `json`, described as "<description> (schema
// <id>)"; a failure of the command prints the failure document under that id
// (`schema` may depend on the command's other flags: test --python).
CLI::Option*
add_json_flag(CLI::App* cmd, bool& json, const std::string& schema, const std::string& description,
              std::function<std::string()> schema_now = {});

// The failure document of the command the line ran, when it was asked for
// --json (its flag given, or --json on the line after a usage error); nullopt
// when it was not. `message` is printed as it is: the caller masks secrets.
std::optional<std::string>
json_failure_document(const CLI::App& app, bool json_on_line, ExitCode code, const std::string& message,
                      const std::string& hint);

// The same, printed on stdout (and flushed) when there is one.
void
print_json_failure(const CLI::App& app, bool json_on_line, ExitCode code, const std::string& message,
                   const std::string& hint);

// "usage", "missing"...: the exit code's name, as docs/commands.md lists them.
std::string
exit_code_name(ExitCode code);

} // namespace opkit::cli
