#include "opkit/builder/toolchain.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/project/cuda_table.hpp"
#include "opkit/sdk/cuda_toolchain.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 4> k_launchers = {"ccache", "distcc", "sccache", "icecc"};

// $CXX as a shell would split it: words separated by blanks, '…' and "…" quoting.
std::vector<std::string>
split_words(std::string_view text)
{
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        current += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        words.push_back(current);
        current.clear();
        in_word = false;
      }
    } else {
      current += c;
      in_word = true;
    }
  }
  if (quote != 0) {
    fail(ExitCode::usage, "CXX='{}': unbalanced quote", text);
  }
  if (in_word) {
    words.push_back(current);
  }
  return words;
}

std::string
resolve(const std::string& program, std::string_view cxx, const char* what)
{
  stdfs::path path = find_program(program);
  if (path.empty()) {
    throw Error(ExitCode::missing, fmt::format("{}: {} not found in PATH (CXX='{}')", program, what, cxx),
                "install it (scripts/setup.sh installs g++ and ccache) or set CXX");
  }
  return path.string();
}

} // namespace

CompilerCommand
parse_compiler_command(std::string_view cxx)
{
  std::vector<std::string> words = split_words(cxx);
  if (words.empty()) {
    words = {"g++"};
  }
  CompilerCommand command;
  size_t i = 0;
  for (; i + 1 < words.size(); ++i) {
    std::string base = stdfs::path(words[i]).filename().string();
    if (std::find(k_launchers.begin(), k_launchers.end(), base) == k_launchers.end()) {
      break;
    }
    command.launcher.push_back(resolve(words[i], cxx, "compiler launcher"));
  }
  command.compiler = resolve(words[i], cxx, "C++ compiler");
  command.args.assign(words.begin() + static_cast<long>(i) + 1, words.end());
  return command;
}

CompilerCommand
find_compiler()
{
  return parse_compiler_command(settings::get("cxx")); // $CXX, config files, else g++
}

CudaToolkit
find_cuda_toolkit(const std::string& needed_by)
{
  std::optional<sdk::CudaToolchain> system = sdk::system_cuda_toolchain();
  if (!system) {
    throw Error(ExitCode::missing, fmt::format("nvcc: CUDA toolkit not found (needed for {})", needed_by),
                "install the CUDA toolkit and put nvcc on PATH, or set CUDA_HOME");
  }
  CudaToolkit toolkit;
  toolkit.nvcc = system->nvcc;
  toolkit.include_dir = system->include_dir;
  toolkit.lib_dir = system->lib_dir;
  toolkit.release = system->release;
  toolkit.origin = fmt::format("the system's ({})", system->root.string());
  return toolkit;
}

CudaToolkit
cuda_toolkit_for(const sdk::Sdk& sdk, const std::string& needed_by, bool fetch)
{
  int major = project::cuda_major(sdk.cuda.cuda_version);
  const project::CudaToolchainSpec* spec = project::cuda_toolchain_for_major(major);
  std::string named_host = settings::get("cuda_host_compiler"); // where the table's is called otherwise
  if (settings::get("cuda") == "system" || spec == nullptr) {
    CudaToolkit system = find_cuda_toolkit(needed_by);
    system.host_compiler = named_host;
    if (spec == nullptr && major != project::cuda_major(system.release)) {
      log_info("{}: built with CUDA {}, for which configs/cuda/toolchains.yaml names no toolchain: its device code "
               "is built with {} CUDA {}",
               sdk.id, sdk.cuda.cuda_version.empty() ? "(unknown)" : sdk.cuda.cuda_version, system.origin,
               system.release.empty() ? "(unknown)" : system.release);
    }
    return system;
  }
  std::optional<CudaToolkit> system;
  try {
    system = find_cuda_toolkit(needed_by);
  } catch (const Error&) { // none on this machine: the fetched one does
  }
  if (system && project::cuda_major(system->release) == major) {
    system->host_compiler = named_host;
    return *system;
  }
  std::string host = named_host.empty() ? spec->host_compiler : named_host;
  if (fetch && find_program(host).empty()) { // said before a gigabyte is fetched
    throw Error(ExitCode::missing,
                fmt::format("{}: CUDA {}'s nvcc needs {} as its host compiler, which is not on PATH (needed for {})",
                            sdk.id, spec->release, host, needed_by),
                fmt::format("install it (scripts/setup.sh does; on Debian and Ubuntu: apt-get install {}), name "
                            "another in cuda_host_compiler, or set cuda: system to build with the system's nvcc",
                            host));
  }
  sdk::CudaToolchain toolchain = fetch ? sdk::ensure_cuda_toolchain(*spec, fmt::format("{} ({})", sdk.id, needed_by))
                                       : sdk::cuda_toolchain_paths(*spec);
  CudaToolkit toolkit;
  toolkit.nvcc = toolchain.nvcc;
  toolkit.include_dir = toolchain.include_dir;
  toolkit.lib_dir = toolchain.lib_dir;
  toolkit.host_compiler = host;
  toolkit.release = toolchain.release;
  toolkit.origin = fmt::format("opkit's CUDA {} from {} (configs/cuda/toolchains.yaml) in {}", toolchain.release,
                               spec->archive, toolchain.root.string());
  return toolkit;
}

std::string
compiler_version(const std::string& compiler)
{
  ProcessResult result = run_process({compiler, "--version"});
  return trim(split(result.out, '\n').front());
}

const std::vector<std::string>&
compiler_search_variables()
{
  // GCC's (gcc(1), "ENVIRONMENT"), Clang's same names, GNU ld's LD_RUN_PATH
  // (an rpath when none is given), nvcc's own.
  static const std::vector<std::string> names = {"CPATH",
                                                 "C_INCLUDE_PATH",
                                                 "CPLUS_INCLUDE_PATH",
                                                 "OBJC_INCLUDE_PATH",
                                                 "OBJCPLUS_INCLUDE_PATH",
                                                 "LIBRARY_PATH",
                                                 "GCC_EXEC_PREFIX",
                                                 "COMPILER_PATH",
                                                 "LD_RUN_PATH",
                                                 "DEPENDENCIES_OUTPUT",
                                                 "SUNPRO_DEPENDENCIES",
                                                 "NVCC_PREPEND_FLAGS",
                                                 "NVCC_APPEND_FLAGS",
                                                 "NVCC_CCBIN"};
  return names;
}

ProcessOptions
compiler_process_options()
{
  ProcessOptions options;
  options.env_unset = compiler_search_variables();
  return options;
}

std::vector<std::string>
compiler_search_variables_set()
{
  std::vector<std::string> set;
  for (const std::string& name : compiler_search_variables()) {
    if (std::getenv(name.c_str()) != nullptr) {
      set.push_back(name);
    }
  }
  return set;
}

} // namespace opkit::builder
