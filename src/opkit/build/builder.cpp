#include "opkit/build/builder.hpp"

#include "opkit/build/check_cache.hpp"
#include "opkit/build/pch.hpp"
#include "opkit/check/target.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace opkit::build {

namespace stdfs = std::filesystem;

namespace {

int
count_compiles(const std::string& ninja_output)
{
  int count = 0;
  for (const std::string& line : split(ninja_output, '\n')) {
    count += line.find("] CXX ") != std::string::npos || line.find("] NVCC ") != std::string::npos ? 1 : 0;
  }
  return count;
}

void
check_sources(const project::Manifest& manifest)
{
  for (const std::string& source : manifest.sources) {
    std::error_code ec;
    if (!stdfs::is_regular_file(manifest.root / source, ec)) {
      fail(ExitCode::usage, "{}: source '{}' listed in opkit.yaml does not exist", manifest.root / "opkit.yaml",
           source);
    }
  }
}

std::vector<std::string>
unique_specs(const std::vector<std::string>& specs)
{
  std::vector<std::string> result;
  for (const std::string& spec : specs) {
    if (std::find(result.begin(), result.end(), spec) == result.end()) {
      result.push_back(spec);
    }
  }
  return result;
}

// Writes the compat shim every op gets (templates/compat/opkit_compat.cc says why).
stdfs::path
write_compat_source(const stdfs::path& dir)
{
  const char* name = "templates/compat/opkit_compat.cc";
  std::string_view text = require_embedded(name);
  fs::create_dirs(dir / "opkit");
  stdfs::path path = dir / "opkit" / "opkit_compat.cc";
  fs::write_file_if_changed(path, text);
  return path;
}

// $CUDA_HOME (or $CUDA_PATH), else the toolkit around the nvcc on PATH.
CudaToolkit
find_cuda_toolkit(const std::string& needed_by)
{
  stdfs::path nvcc;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* home = std::getenv(var);
    if (home != nullptr && *home != '\0' && stdfs::exists(stdfs::path(home) / "bin" / "nvcc")) {
      nvcc = stdfs::path(home) / "bin" / "nvcc";
      break;
    }
  }
  if (nvcc.empty()) {
    nvcc = find_program("nvcc");
  }
  if (nvcc.empty()) {
    throw Error(ExitCode::missing, fmt::format("nvcc: CUDA toolkit not found (needed for {})", needed_by),
                "install the CUDA toolkit and put nvcc on PATH, or set CUDA_HOME");
  }
  stdfs::path home = stdfs::weakly_canonical(nvcc).parent_path().parent_path();
  return {nvcc, home / "include", stdfs::exists(home / "lib64") ? home / "lib64" : home / "lib"};
}

// The deepest folder holding both (ccache's base_dir: paths under it become relative).
stdfs::path
common_folder(const stdfs::path& a, const stdfs::path& b)
{
  stdfs::path result;
  auto ia = a.begin();
  auto ib = b.begin();
  for (; ia != a.end() && ib != b.end() && *ia == *ib; ++ia, ++ib) {
    result /= *ia;
  }
  return result;
}

// The non-device sources' text, read once for every target's PCH decision.
std::map<std::string, std::string>
read_host_sources(const project::Manifest& manifest, const std::optional<CudaToolkit>& cuda)
{
  std::map<std::string, std::string> texts;
  for (const std::string& source : manifest.sources) {
    if (!(cuda && is_device_source(source))) {
      texts[source] = fs::read_file(manifest.root / source);
    }
  }
  return texts;
}

std::vector<std::string>
pch_sources(const std::map<std::string, std::string>& texts, const std::vector<std::string>& pch_defines)
{
  std::vector<std::string> result;
  for (const auto& [source, text] : texts) {
    if (source_can_use_pch(text, pch_defines)) {
      result.push_back(source);
    }
  }
  return result;
}

int
count_pch_compiles(const TargetPlan& plan)
{
  return static_cast<int>(std::count_if(plan.compiles.begin(), plan.compiles.end(), [](const CompileStep& step) {
    return std::find(step.flags.begin(), step.flags.end(), "-include") != step.flags.end();
  }));
}

// The compiler's version line, asked once and only when a build info needs it
// (a no-op build runs no compiler at all).
class LazyCompilerVersion
{
public:
  explicit LazyCompilerVersion(std::string compiler) : m_compiler(std::move(compiler)) {}
  const std::string& get()
  {
    std::call_once(m_once, [this] { m_version = compiler_version(m_compiler); });
    return m_version;
  }

private:
  std::string m_compiler;
  std::once_flag m_once;
  std::string m_version;
};

// opkit check on the linked library, unless the library and the target are
// exactly as they were at the last check (its verdict, kept beside the library, stands).
void
check_built_library(TargetResult& result, const sdk::Sdk& sdk, const std::string& runtime,
                    const stdfs::path& profile_file)
{
  stdfs::path cache = result.library.parent_path() / "opkit-check.json";
  CheckCacheKey key = check_cache_key(result.library, sdk, runtime, profile_file);
  result.check = load_cached_check(cache, key);
  if (result.check) {
    result.check_reused = true;
    log_debug("check: {} is unchanged since its last check: verdict reused", result.library);
  } else {
    log_debug("check: {} against {}", result.library, sdk.id);
    result.check = check::check_library(result.library, check::make_check_target(sdk, runtime, profile_file));
    store_check(cache, key, *result.check);
  }
  result.ok = result.check->loads;
}

} // namespace

bool
BuildReport::ok() const
{
  return std::all_of(targets.begin(), targets.end(), [](const TargetResult& t) { return t.ok; });
}

std::string
find_compiler()
{
  const char* env = std::getenv("CXX");
  std::string name = env != nullptr && *env != '\0' ? env : "g++";
  stdfs::path path = find_program(name);
  if (path.empty()) {
    throw Error(ExitCode::missing, fmt::format("{}: C++ compiler not found in PATH", name),
                "install one (scripts/setup.sh installs g++) or set CXX");
  }
  return path.string();
}

stdfs::path
target_dir(const stdfs::path& build_root, const std::string& version)
{
  return build_root / ("tf-" + version);
}

TargetResult
run_plan(const TargetPlan& plan, int jobs)
{
  fs::create_dirs(plan.build_dir);
  fs::write_file_if_changed(plan.build_dir / "build.ninja", render_ninja(plan));
  fs::write_file_if_changed(plan.build_dir / "compile_commands.json", render_compile_commands(plan));
  ProcessResult ninja = run_process({"ninja", "-C", plan.build_dir.string(), "-j", std::to_string(jobs)});
  TargetResult result;
  result.library = plan.build_dir / plan.output;
  result.ok = ninja.exit_code == 0;
  result.log = ninja.out + ninja.err;
  result.up_to_date = result.ok && ninja.out.find("ninja: no work to do.") != std::string::npos;
  result.compiled = count_compiles(ninja.out);
  return result;
}

std::string
compiler_version(const std::string& compiler)
{
  ProcessResult result = run_process({compiler, "--version"});
  return trim(split(result.out, '\n').front());
}

Json
build_info_json(const sdk::Sdk& sdk, const TargetPlan& plan, const std::string& compiler_version)
{
  const CompileStep& first = plan.compiles.front();
  auto flag_value = [&](const std::string& prefix) {
    for (const std::string& flag : first.flags) {
      if (starts_with(flag, prefix)) {
        return std::stoi(flag.substr(prefix.size()));
      }
    }
    return -1;
  };
  return {{"schema", "opkit.build/1"},
          {"library", plan.output},
          {"framework", "tensorflow"},
          {"tf_version", sdk.version.str()},
          {"sdk", sdk.id},
          {"cxx11_abi", flag_value("-D_GLIBCXX_USE_CXX11_ABI=")},
          {"cxx_standard", flag_value("-std=c++")},
          {"compiler", compiler_version},
          {"opkit_version", OPKIT_VERSION}};
}

BuildReport
build_project(const project::Manifest& manifest, const BuildOptions& options)
{
  std::vector<std::string> specs = unique_specs(options.tf_specs.empty() ? manifest.tf_versions : options.tf_specs);
  if (specs.empty()) {
    fail(ExitCode::usage, "no TensorFlow versions to build: pass --tf or list them under targets.tensorflow");
  }
  // Everything that can fail on input fails here, before a single file is written.
  std::vector<sdk::Sdk> sdks;
  for (const std::string& spec : specs) {
    sdks.push_back(sdk::resolve_sdk(spec));
  }
  check_sources(manifest);
  std::string compiler = find_compiler();
  std::optional<CudaToolkit> cuda;
  auto device = std::find_if(manifest.sources.begin(), manifest.sources.end(), is_device_source);
  if (device != manifest.sources.end()) {
    cuda = find_cuda_toolkit(*device);
  }
  if (find_program("ninja").empty()) {
    throw Error(ExitCode::missing, "ninja: not found in PATH", "scripts/setup.sh installs ninja-build");
  }
  stdfs::path build_root = options.build_root.empty() ? manifest.root / "build" : options.build_root;
  build_root = stdfs::absolute(build_root).lexically_normal();
  stdfs::path source_root = stdfs::absolute(manifest.root);
  Sharing sharing = plan_sharing(effective_sharing(manifest.sharing, options.cache), find_program("ccache").string(),
                                 find_program("distcc").string(), common_folder(source_root, build_root));
  bool use_pch = options.pch && sharing.pch;
  std::map<std::string, std::string> texts = use_pch ? read_host_sources(manifest, cuda) : std::map<std::string, std::string>{};
  std::string identity = compiler_identity(compiler);
  LazyCompilerVersion compiler_text{compiler};
  int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // One ninja per target, all at once; the job budget (and distcc's helpers) shared between them.
  int targets = static_cast<int>(sdks.size());
  int per_target = std::max(1, (jobs + sharing.remote_slots) / targets);
  std::vector<std::future<TargetResult>> running;
  for (const sdk::Sdk& sdk : sdks) {
    project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
    stdfs::path dir = target_dir(build_root, sdk.version.str());
    std::vector<stdfs::path> generated = {write_compat_source(dir)};
    sdk::Sdk seen = sdk; // the SDK as the commands name it
    if (sharing.relative_sdk) {
      fs::write_symlink(dir / "sdk", sdk.root);
      seen.root = "sdk";
    }
    TargetPlan plain = plan_library(compiler, manifest.name, source_root, manifest.sources, generated, seen, flags,
                                    options.overrides, dir, cuda);
    std::optional<PchSpec> pch;
    TargetPlan plan = plain;
    if (use_pch) {
      PchSpec spec = plan_pch(sdk, flags, compiler, identity, pch_store_dir());
      PchUse use{spec.header().string(), spec.flags, pch_sources(texts, flags.pch_defines)};
      plan = plan_library(compiler, manifest.name, source_root, manifest.sources, generated, seen, flags,
                          options.overrides, dir, cuda, use);
      if (count_pch_compiles(plan) > 0) {
        pch = spec;
      } else if (!use.sources.empty()) {
        log_debug("{}: the flags differ from the SDK's own: no precompiled header", sdk.id);
      }
    }
    stdfs::path stats_log = dir / "ccache-stats.log";
    for (TargetPlan* p : {&plan, &plain}) {
      p->static_output = options.static_archive ? "lib" + manifest.name + ".a" : "";
      p->launcher = target_launcher(sharing, stats_log);
      p->link_jobs = sharing.distcc ? std::max(1, jobs / targets) : 0;
    }
    log_info("building {} for {} ...", manifest.name, sdk.id);
    std::string runtime = options.runtime.empty() ? manifest.runtime : options.runtime;
    bool ccache = sharing.ccache;
    running.push_back(std::async(std::launch::async, [=, &options, &compiler_text] {
      // A PCH that cannot be made costs speed, never the build.
      const TargetPlan& chosen = pch && ensure_pch(*pch) ? plan : plain;
      std::error_code ec;
      stdfs::remove(stats_log, ec);
      TargetResult result = run_plan(chosen, per_target);
      result.pch_compiles = count_pch_compiles(chosen);
      if (ccache && !result.up_to_date) {
        result.cache = parse_ccache_stats_log(stdfs::exists(stats_log, ec) ? fs::read_file(stats_log) : "");
      }
      stdfs::path info = chosen.build_dir / "opkit-build.json";
      if (result.ok && (!result.up_to_date || !stdfs::exists(info, ec))) {
        fs::write_file_if_changed(info, build_info_json(sdk, chosen, compiler_text.get()).dump(2) + "\n");
      }
      if (result.ok && options.check) {
        check_built_library(result, sdk, runtime, options.profile_file);
      }
      return result;
    }));
  }
  BuildReport report;
  for (size_t i = 0; i < running.size(); ++i) {
    TargetResult result = running[i].get();
    result.spec = specs[i];
    result.sdk_id = sdks[i].id;
    result.version = sdks[i].version.str();
    report.targets.push_back(result);
  }
  return report;
}

} // namespace opkit::build
