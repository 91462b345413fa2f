#include "opkit/cli/version.hpp"

#include "opkit/util/library_versions.hpp"

#include <fmt/format.h>

namespace opkit::cli {

std::string
version_text(bool verbose)
{
  std::string text = fmt::format("opkit {}\n", OPKIT_VERSION);
  if (!verbose) {
    return text;
  }
  BuildInfo info = build_info();
  text += fmt::format("commit:     {}\ncompiler:   {}\nbuild type: {}\nbuilt against:\n", info.commit, info.compiler,
                      info.build_type);
  for (const auto& [name, version] : info.libraries) {
    text += fmt::format("  {:<14} {}\n", name, version);
  }
  text += "loaded at run time:\n";
  for (const LoadedLibrary& library : loaded_library_versions()) {
    text += fmt::format("  {:<14} {} ({})\n", library.name, library.version, library.soname);
  }
  return text;
}

} // namespace opkit::cli
