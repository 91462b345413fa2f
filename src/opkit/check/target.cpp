#include "opkit/check/target.hpp"

#include "opkit/check/indexed_library.hpp"
#include "opkit/project/cpu_baselines.hpp"
#include "opkit/project/cuda_table.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/cuda_toolchain.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/format.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace opkit::check {

namespace {

Profile
system_profile(const std::string& runtime, const std::filesystem::path& profile_file)
{
  if (!profile_file.empty()) {
    return load_profile_file(profile_file);
  }
  if (runtime.empty() || runtime == "host") {
    return host_profile();
  }
  return profile_from_policy(project::load_runtime_policy(runtime));
}

} // namespace

std::string
python_of_module_file(const std::filesystem::path& library)
{
  // _C.cpython-311-x86_64-linux-gnu.so: CPython's EXT_SUFFIX names its version.
  std::string name = library.filename().string();
  size_t at = name.find(".cpython-3");
  if (at == std::string::npos) {
    return "";
  }
  size_t digits = at + std::string(".cpython-3").size();
  size_t end = digits;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) {
    ++end;
  }
  return end > digits && end < name.size() && name[end] == '-' ? "3." + name.substr(digits, end - digits) : "";
}

std::optional<ProfileLibrary>
python_interpreter(const sdk::Sdk& sdk, const std::string& python)
{
  std::string version = python.empty() ? sdk::python_of_wheel_tag(sdk.wheel_tag) : python;
  std::optional<std::string_view> text =
    version.empty() ? std::nullopt : find_embedded("configs/python/cpython-" + version + ".symbols");
  if (!text) {
    return std::nullopt;
  }
  ProfileLibrary library;
  library.soname = "python" + version + " (the interpreter)";
  library.symbols_known = true;
  // Asked only by what nothing before it provides: made on that first lookup.
  library.symbols = elf::ExportedSymbols(std::make_shared<elf::OnFirstUseTable>(
    [names = *text] { return std::make_shared<const elf::NameListTable>(names); }));
  return library;
}

CheckTarget
make_check_target(const sdk::Sdk& sdk, const std::string& runtime, const std::filesystem::path& profile_file,
                  const std::string& python)
{
  const project::FrameworkTable& table = project::FrameworkTable::get(sdk.framework);
  project::FrameworkFlags flags = table.flags_for(sdk.version);
  CheckTarget target;
  target.profile = system_profile(runtime.empty() && profile_file.empty() ? flags.runtime : runtime, profile_file);
  if (profile_file.empty() && runtime != "host" && !target.profile.cpu.baseline.empty()) {
    // A policy's CPU: joined with what the framework needs to start (cpu/verdict).
    target.profile.cpu.framework_library = sdk.lib_dir() / sdk.framework_library;
    target.profile.cpu.framework = fmt::format("{} {}", sdk.framework, sdk.version.str());
    target.profile.cpu.framework_floor = flags.cpu_floor;
  }
  target.framework = sdk.framework;
  target.framework_version = sdk.version.str();
  target.cxx11_abi = sdk.cxx11_abi;
  target.cxx_standard = sdk.cxx_standard;
  target.cuda_version = sdk.cuda.is_cuda_build ? sdk.cuda.cuda_version : "";
  for (const std::string& soname : table.framework_libraries()) {
    target.framework_libraries[soname] = table.versions_with_framework_library(soname);
  }
  bool has_framework = std::any_of(target.profile.libraries.begin(), target.profile.libraries.end(),
                                   [](const ProfileLibrary& l) { return l.framework; });
  if (!has_framework) {
    ProfileLibrary framework =
      indexed_library(sdk.lib_dir() / sdk.framework_library, {sdk.symbol_index(), sdk::store_lock_path()});
    framework.framework = true;
    target.profile.libraries.insert(target.profile.libraries.begin(), std::move(framework));
  }
  target.other_frameworks = [id = sdk.id, cuda = sdk.cuda.is_cuda_build, framework = sdk.framework] {
    std::vector<OtherFramework> others;
    for (const sdk::Sdk& other : sdk::list_sdks()) {
      // Other versions of the same framework only: a torch SDK names no TF version.
      if (other.id == id || other.cuda.is_cuda_build != cuda || other.framework != framework) {
        continue;
      }
      try {
        others.push_back({other.version.str(), indexed_library(other.lib_dir() / other.framework_library,
                                                               {other.symbol_index(), sdk::store_lock_path()})});
      } catch (const Error&) {
        continue; // a damaged SDK names no version
      }
    }
    return others;
  };
  // TF's and torch's Pythons load the framework without RTLD_GLOBAL (configs/frameworks/).
  for (ProfileLibrary& library : target.profile.libraries) {
    library.local_scope = library.framework && !flags.framework_global;
  }
  // What `import tensorflow` (`import torch`) loads, RTLD_LOCAL: an op that names
  // one in its DT_NEEDED finds the loaded copy, and reaches its symbols through it.
  for (const std::string& name : flags.process_libraries) {
    std::error_code ec;
    std::filesystem::path index = sdk.root / "symbols" / (name + ".idx");
    if (target.profile.find(name) != nullptr) {
      continue;
    }
    std::optional<ProfileLibrary> loaded;
    if (std::filesystem::exists(index, ec)) {
      loaded = index_only_library({index, sdk::store_lock_path()});
    } else if (std::filesystem::is_regular_file(sdk.lib_dir() / name, ec)) { // kept whole (torch's libc10.so)
      loaded = indexed_library(sdk.lib_dir() / name, {index, sdk::store_lock_path()});
    }
    if (loaded) {
      loaded->soname = loaded->soname.empty() ? name : loaded->soname;
      loaded->local_scope = true;
      // One an op links against (torch's libc10.so: -lc10) is the framework too.
      loaded->framework = std::any_of(flags.link_libraries.begin(), flags.link_libraries.end(),
                                      [&](const std::string& l) { return name == "lib" + l + ".so"; });
      target.profile.libraries.push_back(std::move(*loaded));
    }
  }
  // The CUDA runtime a CUDA build's process loads (torch's pinned nvidia wheels:
  // libcudart.so.12): where opkit has a copy of the SDK's major, the probe's
  // (the pinned one) or its CUDA toolchain's, an op that needs it finds it.
  if (sdk.cuda.is_cuda_build && !table.probe_runtime().empty()) {
    std::optional<sdk::CudaToolchain> toolchain =
      sdk::cuda_toolchain_of_major(project::cuda_major(sdk.cuda.cuda_version));
    for (const auto& [soname, source] : table.probe_runtime()) {
      std::error_code ec;
      std::filesystem::path file = sdk::opkit_home() / "probes" / sdk.id / "runtime" / soname;
      if (!std::filesystem::is_regular_file(file, ec)) {
        file = toolchain && std::filesystem::exists(toolchain->lib_dir / soname, ec)
                 ? std::filesystem::canonical(toolchain->lib_dir / soname, ec)
                 : std::filesystem::path();
      }
      if (!file.empty() && target.profile.find(soname) == nullptr) {
        ProfileLibrary loaded = indexed_library(file, cache_place(file));
        loaded.soname = soname;
        loaded.local_scope = true;
        target.profile.libraries.push_back(std::move(loaded));
      }
    }
  }
  // This machine as the framework's process: the system libraries it has mapped before an op loads.
  if (target.profile.search_disk) {
    for (const std::string& soname : flags.system_process_libraries) {
      if (target.profile.find(soname) == nullptr) {
        if (std::optional<ProfileLibrary> loaded = host_library(soname)) {
          target.profile.libraries.push_back(std::move(*loaded));
        }
      }
    }
  }
  // A policy or this machine stands for TF's Python process; a captured profile is the process it recorded.
  if (profile_file.empty()) {
    if (std::optional<ProfileLibrary> interpreter = python_interpreter(sdk, python)) {
      target.profile.libraries.push_back(std::move(*interpreter));
    }
  }
  return target;
}

void
apply_cpu_option(Profile& profile, const std::string& cpu)
{
  if (cpu == "none") {
    profile.cpu = {}; // no CPU check
  } else if (!cpu.empty()) {
    project::cpu_baseline(cpu); // an unknown name is the one error line
    ProfileCpu named;           // that CPU alone: nothing of a framework joined
    named.baseline = cpu;
    profile.cpu = std::move(named);
  }
}

CheckTarget
make_check_target(const TargetOptions& options)
{
  CheckTarget target;
  if (!options.tf_spec.empty()) {
    // An SDK id names its framework ("torch-2.8.0-cuda", as an opkit-build.json records it).
    sdk::Sdk sdk = options.framework == "tensorflow" ? sdk::find_sdk(options.tf_spec)
                                                     : sdk::resolve_sdk(options.tf_spec, options.framework);
    target = make_check_target(sdk, options.runtime, options.profile_file);
  } else {
    target.profile = system_profile(options.runtime, options.profile_file);
  }
  apply_cpu_option(target.profile, options.cpu);
  return target;
}

} // namespace opkit::check
