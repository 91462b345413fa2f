#include "opkit/builder/python_module.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::builder {

std::string
release_python(const sdk::Sdk& sdk, const project::FrameworkFlags& flags)
{
  return flags.python_env ? flags.python_env->python : sdk::python_of_wheel_tag(sdk.wheel_tag);
}

std::vector<std::string>
module_pythons(const sdk::Sdk& sdk, const std::vector<std::string>& requested)
{
  project::FrameworkFlags flags = project::FrameworkTable::get(sdk.framework).flags_for(sdk.version);
  if (requested.empty()) {
    std::string python = release_python(sdk, flags);
    if (python.empty()) {
      fail(ExitCode::usage,
           "{}: no Python to build its Python modules for: the SDK came from no wheel and its range "
           "names no python_env; pass --python",
           sdk.id);
    }
    return {python};
  }
  for (const std::string& python : requested) {
    std::string tag = sdk::cpython_tag(python);
    if (!flags.wheel_pythons.empty()
        && std::find(flags.wheel_pythons.begin(), flags.wheel_pythons.end(), tag) == flags.wheel_pythons.end()) {
      std::vector<std::string> known = flags.wheel_pythons;
      std::sort(known.begin(), known.end());
      fail(ExitCode::usage, "--python {}: {} has no wheel for Python {} (its wheels are for {})", python, sdk.id,
           python, join(known, ", "));
    }
  }
  return requested;
}

bool
any_module(const std::vector<const project::LibrarySpec*>& libraries)
{
  return std::any_of(libraries.begin(), libraries.end(),
                     [](const project::LibrarySpec* library) { return !library->python_module.empty(); });
}

LibraryInput
module_input(const LibraryInput& base, const project::LibrarySpec& library, const sdk::PythonBuildFacts& python,
             const project::FrameworkFlags& flags)
{
  LibraryInput input = base;
  input.name = library.name + "-" + sdk::cpython_tag(python.version);
  input.output = library.module_file(python.ext_suffix);
  input.extension_name = library.module_name();
  input.include_dirs.push_back(python.include_dir.string());
  input.cflags.insert(input.cflags.begin(), flags.module_compile_flags.begin(), flags.module_compile_flags.end());
  input.libs.insert(input.libs.end(), flags.module_libraries.begin(), flags.module_libraries.end());
  return input;
}

} // namespace opkit::builder
