#pragma once

namespace opkit::cli {

// The whole CLI: parses argv, runs one command, prints errors as
// "opkit: error: ...", and returns the process exit code (see util/error.hpp).
int
run(int argc, char** argv);

} // namespace opkit::cli
