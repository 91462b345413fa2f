#include "opkit/cli/commands.hpp"

namespace opkit::cli {

void
add_package_command(CLI::App& /*app*/, GlobalOptions& /*global*/, int& /*exit_code*/)
{
}

} // namespace opkit::cli
