#include "opkit/probe/python_process.hpp"

#include "opkit/check/target.hpp"
#include "opkit/elf/elf_file.hpp"
#include "opkit/probe/framework_venv.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::probe {

namespace stdfs = std::filesystem;

std::string
needs_framework_python(const sdk::Sdk& sdk, const stdfs::path& library)
{
  elf::ElfInfo info = elf::read_elf(library, elf::SymbolScope::undefined);
  if (std::any_of(info.needed.begin(), info.needed.end(),
                  [](const std::string& name) { return starts_with(name, "libpython"); })) {
    return ""; // it brings the interpreter's library along
  }
  const project::FrameworkTable& table = project::FrameworkTable::get(sdk.framework);
  std::vector<std::string> imported = table.flags_for(sdk.version).process_libraries;
  if (!table.python_module_library().empty()) {
    imported.push_back(table.python_module_library());
  }
  std::error_code ec;
  for (const std::string& name : info.needed) {
    if (std::find(imported.begin(), imported.end(), name) != imported.end()
        && !stdfs::is_regular_file(sdk.lib_dir() / name, ec)) {
      return fmt::format("it needs {}, which `import {}` loads and no SDK keeps", name, table.python_module());
    }
  }
  std::optional<check::ProfileLibrary> python = check::python_interpreter(sdk);
  if (!python) {
    return "";
  }
  for (const elf::ElfSymbol& symbol : info.dynamic_symbols) {
    if (!symbol.defined && !symbol.weak && !python->symbols.find(symbol.name).empty()) {
      return fmt::format("it calls the Python C API ({}) without linking libpython", symbol.name);
    }
  }
  return "";
}

ProbeReport
run_probe_in_python(const sdk::Sdk& sdk, const stdfs::path& probe, const stdfs::path& library,
                    const std::string& reason, const std::string& module)
{
  stdfs::path venv = ensure_framework_venv(sdk);
  stdfs::path dir = probe.parent_path();
  ProcessOptions options;
  options.env_set["TF_CPP_MIN_LOG_LEVEL"] = "3"; // TF's own start-up chatter is not ours to show
  options.env_set["PYTHONNOUSERSITE"] = "1";     // the venv's packages, not the user's
  options.env_unset = {"PYTHONPATH", "PYTHONHOME"};
  std::vector<std::string> argv = {(venv / "bin" / "python").string(), (dir / "load_in_python.py").string(),
                                   project::FrameworkTable::get(sdk.framework).python_module(),
                                   (dir / "libopkit_probe_report.so").string(), stdfs::absolute(library).string()};
  if (!module.empty()) { // imported as its package imports it, by its last name
    argv.push_back(module);
  }
  ProbeReport report = read_probe_run(run_process(argv, options), "the load probe in " + venv.string(), library);
  report.python_process = fmt::format("{}'s own Python ({}): {}", sdk.id, venv.filename().string(), reason);
  return report;
}

} // namespace opkit::probe
