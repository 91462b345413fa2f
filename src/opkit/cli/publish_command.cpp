#include "opkit/cli/commands.hpp"

namespace opkit::cli {

// Filled in by the publish work (libcurl upload).
void
add_publish_command(CLI::App& /*app*/, GlobalOptions& /*global*/, int& /*exit_code*/)
{
}

} // namespace opkit::cli
