#pragma once

namespace opkit::cli {

// The whole CLI: parses argv, runs one command, prints errors as
// "opkit: error: ...", and returns the process exit code (see util/error.hpp).
int
run(int argc, char** argv);

// Whether OPKIT_PARSE_ONLY=1 is set: run() then parses the arguments and runs
// nothing (exit 0 when they parse, 2 when not). Hidden: the docs' commands are
// checked with it (integration.docs_commands_parse).
bool
parse_only_requested();

} // namespace opkit::cli
