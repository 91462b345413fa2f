#pragma once

// opkit's help in its own words (help_format.cpp): CLI11's layout with opkit's
// value names (N, DIR, VERSION, 0|1 instead of INT:POSITIVE, TEXT, INT:{0,1}),
// "not with --no-cache" instead of "Excludes:", the global options in every
// command's help, and each command's examples (also in the man page).
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace opkit::cli {

// The formatter the app and every command use (set before commands are added).
std::shared_ptr<CLI::Formatter>
help_formatter();

// What an option's value is called in help, man page and errors: "N", "DIR",
// "VERSION", "0|1"; a positional's name in capitals ("LIBRARY"). Empty for a flag.
std::string
value_name(const CLI::Option& option);

// The command's examples, each a line `opkit ...` that parses (help_examples.cpp):
// "opkit sdk add" -> {"opkit sdk add tensorflow_cpu-2.10.1-cp310-...whl", ...}.
std::vector<std::string>
examples(const std::string& command_path);

} // namespace opkit::cli
