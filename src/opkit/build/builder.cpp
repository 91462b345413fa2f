#include "opkit/build/builder.hpp"

#include "opkit/build/check_cache.hpp"
#include "opkit/build/pch.hpp"
#include "opkit/build/portable.hpp"
#include "opkit/build/toolchain.hpp"
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

int
count_pch_compiles(const TargetPlan& plan)
{
  return static_cast<int>(std::count_if(plan.compiles.begin(), plan.compiles.end(), [](const CompileStep& step) {
    return std::find(step.flags.begin(), step.flags.end(), "-Winvalid-pch") != step.flags.end(); // only with the PCH
  }));
}

// The compiler's version line, asked once and only when a build info needs it
// (a no-op build runs no compiler at all).
class LazyCompilerVersion
{
public:
  explicit LazyCompilerVersion(std::string compiler)
    : m_compiler(std::move(compiler))
  {
  }
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

// opkit check on a linked library, unless the library and the target are
// exactly as they were at the last check (its verdict, kept beside the library, stands).
void
check_built_library(LibraryResult& result, const sdk::Sdk& sdk, const std::string& runtime,
                    const stdfs::path& profile_file)
{
  stdfs::path cache = result.library.parent_path() / (result.library.filename().string() + ".opkit-check.json");
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
}

// The objects a library of the plan links, as paths.
std::vector<stdfs::path>
link_objects(const TargetPlan& plan, const std::string& library)
{
  std::vector<stdfs::path> objects;
  for (const LinkStep& link : plan.links) {
    if (link.library == library) {
      for (const std::string& object : link.objects) {
        objects.push_back(plan.build_dir / object);
      }
    }
  }
  return objects;
}

// Every source a target compiles must exist, and device code needs a CUDA build
// of TensorFlow (its headers and kernels registry) and the toolkit.
void
check_target_sources(const project::Manifest& manifest, const sdk::Sdk& sdk, const std::vector<LibraryInput>& inputs,
                     const std::vector<const project::LibrarySpec*>& selected)
{
  for (const project::LibrarySpec* library : selected) {
    project::ResolvedSettings settings = project::resolve_settings(manifest.root, manifest.settings, library->settings,
                                                                   sdk.version, sdk.cuda.is_cuda_build);
    for (const std::vector<std::string>* files : {&settings.sources, &settings.headers}) {
      for (const std::string& source : *files) {
        std::error_code ec;
        if (!stdfs::is_regular_file(manifest.root / source, ec)) {
          fail(ExitCode::usage, "{}: source '{}' of library {} does not exist", manifest.root / "opkit.yaml", source,
               library->name);
        }
      }
    }
  }
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  for (const project::LibrarySpec* library : selected) {
    if (flags.namespaced_op_names || !library->tensorflow.contains(sdk.version)) {
      continue;
    }
    for (const project::OpSpec& op : library->ops) {
      if (op.name.find('>') != std::string::npos) {
        std::string since = project::FrameworkTable::tensorflow().namespaced_op_names_since();
        throw Error(ExitCode::usage,
                    fmt::format("library {}: tensorflow {} cannot register namespaced op names ({}): loading it "
                                "would abort the process",
                                library->name, sdk.version.str(), op.name),
                    fmt::format("give the library `tensorflow: \">={}\"` in opkit.yaml, or leave {} out", since,
                                sdk.version.str()));
      }
    }
  }
  if (sdk.cuda.is_cuda_build) {
    return;
  }
  for (const LibraryInput& input : inputs) {
    auto device = std::find_if(input.sources.begin(), input.sources.end(), is_device_source);
    if (device != input.sources.end()) {
      throw Error(
        ExitCode::missing,
        fmt::format("{}: a CPU-only build of TensorFlow cannot compile device code ({} of library {})", sdk.id, *device,
                    input.name),
        fmt::format("fetch the CUDA build: `opkit sdk fetch tensorflow=={} --variant gpu`, then "
                    "`--tf tensorflow-{}-cuda`; or list the file under `when: [{{device: gpu, sources: ...}}]`",
                    sdk.version.str(), sdk.version.str()));
    }
  }
}

// The folder whose third_party/gpus/cuda/include is the toolkit's headers.
void
map_cuda_headers(CudaToolkit& cuda, const stdfs::path& dir)
{
  cuda.tf_include_map = dir / "opkit" / "cuda";
  stdfs::path link = cuda.tf_include_map / "third_party" / "gpus" / "cuda" / "include";
  fs::create_dirs(link.parent_path());
  fs::write_symlink(link, cuda.include_dir);
}

// $CXX's own launchers (distcc, sccache) after the sharing settings' (env ... ccache).
std::vector<std::string>
choose_launcher(const std::vector<std::string>& sharing, const std::vector<std::string>& from_cxx)
{
  std::vector<std::string> result = sharing;
  result.insert(result.end(), from_cxx.begin(), from_cxx.end());
  return result;
}

// CXX="ccache g++" asks for ccache: it then goes through the same settings as
// build.cache (base dir, PCH sloppiness, stats), unless --no-cache says otherwise.
void
adopt_cxx_ccache(CompilerCommand& compiler, project::CompileSharing& settings, std::string& ccache,
                 std::optional<bool> cache_flag)
{
  auto named = std::find_if(compiler.launcher.begin(), compiler.launcher.end(),
                            [](const std::string& l) { return stdfs::path(l).filename() == "ccache"; });
  if (named == compiler.launcher.end()) {
    return;
  }
  if (cache_flag != std::optional<bool>(false)) {
    settings.cache = "on";
    ccache = *named;
  } else {
    log_warning("--no-cache: compiling without the ccache CXX names");
  }
  compiler.launcher.erase(named);
}

} // namespace

bool
BuildReport::ok() const
{
  return std::all_of(targets.begin(), targets.end(), [](const TargetResult& t) { return t.ok; });
}

bool
TargetResult::loads() const
{
  return std::all_of(libraries.begin(), libraries.end(),
                     [](const LibraryResult& l) { return !l.check || l.check->loads; });
}

stdfs::path
target_dir(const stdfs::path& build_root, const sdk::Sdk& sdk)
{
  return build_root / ("tf-" + sdk.version.str() + (sdk.cuda.is_cuda_build ? "-cuda" : ""));
}

std::vector<BuiltTarget>
find_built_libraries(const project::Manifest& manifest, const std::vector<std::string>& specs,
                     const stdfs::path& build_root, const std::vector<std::string>& selected)
{
  std::vector<const project::LibrarySpec*> libraries = manifest.select_libraries(selected);
  stdfs::path root = build_root.empty() ? manifest.root / "build" : build_root;
  std::vector<BuiltTarget> built;
  for (const std::string& spec : specs) {
    BuiltTarget target{spec, sdk::resolve_sdk(spec), {}};
    for (const project::LibrarySpec* library : libraries) {
      if (!library->tensorflow.contains(target.sdk.version)) {
        continue;
      }
      stdfs::path path = target_dir(root, target.sdk) / library->output;
      std::error_code ec;
      if (!stdfs::is_regular_file(path, ec)) {
        throw Error(ExitCode::missing, fmt::format("{}: not built for {}", path, target.sdk.id),
                    fmt::format("run `opkit build --tf {}` first", spec));
      }
      target.libraries.emplace_back(library, path);
    }
    built.push_back(target);
  }
  return built;
}

std::vector<LibraryInput>
library_inputs(const project::Manifest& manifest, const std::vector<const project::LibrarySpec*>& selected,
               const sdk::Sdk& sdk)
{
  std::vector<LibraryInput> inputs;
  for (const project::LibrarySpec* library : selected) {
    if (!library->tensorflow.contains(sdk.version)) {
      continue;
    }
    project::ResolvedSettings settings = project::resolve_settings(manifest.root, manifest.settings, library->settings,
                                                                   sdk.version, sdk.cuda.is_cuda_build);
    LibraryInput input{library->name,    library->output, settings.sources, {},
                       settings.defines, settings.cflags, settings.ldflags, settings.libs};
    for (const stdfs::path& dir : settings.include_dirs) {
      input.include_dirs.push_back(dir.string());
    }
    inputs.push_back(input);
  }
  return inputs;
}

TargetResult
run_plan(const TargetPlan& plan, int jobs)
{
  fs::create_dirs(plan.build_dir);
  fs::write_file_if_changed(plan.build_dir / "build.ninja", render_ninja(plan));
  fs::write_file_if_changed(plan.build_dir / "compile_commands.json", render_compile_commands(plan));
  ProcessResult ninja = run_process({"ninja", "-C", plan.build_dir.string(), "-j", std::to_string(jobs)});
  TargetResult result;
  result.dir = plan.build_dir;
  for (const LinkStep& link : plan.links) {
    result.libraries.push_back({link.library, plan.build_dir / link.output, false, {}});
  }
  result.ok = ninja.exit_code == 0;
  result.log = ninja.out + ninja.err;
  result.up_to_date = result.ok && ninja.out.find("ninja: no work to do.") != std::string::npos;
  result.compiled = count_compiles(ninja.out);
  return result;
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
  Json libraries = Json::array();
  for (const LinkStep& link : plan.links) {
    libraries.push_back({{"name", link.library}, {"file", link.output}});
  }
  return {{"schema", "opkit.build/1"},
          {"library", plan.links.empty() ? "" : plan.links.front().output},
          {"libraries", libraries},
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
  std::vector<const project::LibrarySpec*> selected = manifest.select_libraries(options.libraries);
  // Everything that can fail on input fails here, before a single file is written.
  std::vector<sdk::Sdk> sdks;
  std::vector<std::vector<LibraryInput>> inputs;
  std::optional<std::string> device_source;
  for (const std::string& spec : specs) {
    sdks.push_back(sdk::resolve_sdk(spec));
    inputs.push_back(library_inputs(manifest, selected, sdks.back()));
    check_target_sources(manifest, sdks.back(), inputs.back(), selected);
    for (const LibraryInput& input : inputs.back()) {
      auto device = std::find_if(input.sources.begin(), input.sources.end(), is_device_source);
      if (device != input.sources.end() && !device_source) {
        device_source = *device;
      }
    }
  }
  CompilerCommand compiler = find_compiler();
  std::optional<CudaToolkit> toolkit;
  if (device_source) {
    toolkit = find_cuda_toolkit(*device_source);
  }
  if (find_program("ninja").empty()) {
    throw Error(ExitCode::missing, "ninja: not found in PATH", "scripts/setup.sh installs ninja-build");
  }
  stdfs::path build_root = options.build_root.empty() ? manifest.root / "build" : options.build_root;
  build_root = stdfs::absolute(build_root).lexically_normal();
  stdfs::path source_root = stdfs::absolute(manifest.root);
  project::CompileSharing settings = effective_sharing(manifest.sharing, options.cache);
  std::string ccache = find_program("ccache").string();
  adopt_cxx_ccache(compiler, settings, ccache, options.cache);
  Sharing sharing =
    plan_sharing(settings, ccache, find_program("distcc").string(), common_folder(source_root, build_root));
  bool use_pch = options.pch && sharing.pch;
  std::string identity = compiler_identity(compiler.compiler);
  LazyCompilerVersion compiler_text{compiler.compiler};
  int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // One ninja per target, all at once; the job budget (and distcc's helpers) shared between them.
  int targets = static_cast<int>(sdks.size());
  int per_target = std::max(1, (jobs + sharing.remote_slots) / targets);
  std::map<std::string, std::string> texts; // host sources, read once for every target's PCH decision
  std::vector<std::future<TargetResult>> running;
  for (size_t t = 0; t < sdks.size(); ++t) {
    const sdk::Sdk& sdk = sdks[t];
    project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
    stdfs::path dir = target_dir(build_root, sdk);
    std::string runtime = options.runtime.empty() ? manifest.runtime : options.runtime;
    std::optional<CudaToolkit> cuda;
    std::vector<stdfs::path> static_libraries;
    if (sdk.cuda.is_cuda_build && toolkit) {
      cuda = toolkit;
      map_cuda_headers(*cuda, dir);
      for (const std::string& name : flags.cuda_static_libraries) {
        static_libraries.push_back(cuda->lib_dir / name);
      }
    }
    PortableLink portable = plan_portable_link(compiler.compiler, sdk, runtime, options.profile_file, static_libraries);
    std::vector<std::string> force_includes;
    if (!portable.symver_header.empty()) {
      stdfs::path header = dir / "opkit" / "symbol_versions.h";
      fs::create_dirs(header.parent_path());
      fs::write_file_if_changed(header, portable.symver_header);
      force_includes.push_back(header.string());
    }
    TargetInput input{compiler,          source_root,    {write_compat_source(dir)}, dir, options.static_archive,
                      portable.archives, force_includes, portable.link_dirs};
    sdk::Sdk seen = sdk; // the SDK as the commands name it
    if (sharing.relative_sdk) {
      fs::write_symlink(dir / "sdk", sdk.root);
      seen.root = "sdk";
    }
    std::optional<PchSpec> pch;
    std::optional<PchUse> use;
    if (use_pch) {
      PchSpec spec = plan_pch(sdk, flags, compiler.compiler, identity, pch_store_dir());
      use = PchUse{spec.header().string(), spec.flags, {}};
      for (const LibraryInput& library : inputs[t]) {
        for (const std::string& source : library.sources) {
          if (is_device_source(source)) {
            continue;
          }
          auto [text, fresh] = texts.try_emplace(source);
          if (fresh) {
            text->second = fs::read_file(manifest.root / source);
          }
          if (source_can_use_pch(text->second, flags.pch_defines)) {
            use->sources.push_back(source);
          }
        }
      }
      pch = spec;
    }
    TargetPlan plan = plan_target(input, inputs[t], seen, flags, options.overrides, cuda, use);
    TargetPlan plain =
      use && count_pch_compiles(plan) > 0 ? plan_target(input, inputs[t], seen, flags, options.overrides, cuda) : plan;
    if (count_pch_compiles(plan) == 0) {
      if (use && !use->sources.empty()) {
        log_debug("{}: the flags differ from the SDK's own: no precompiled header", sdk.id);
      }
      pch.reset();
    }
    stdfs::path stats_log = dir / "ccache-stats.log";
    for (TargetPlan* p : {&plan, &plain}) {
      p->launcher = choose_launcher(target_launcher(sharing, stats_log), compiler.launcher);
      p->link_jobs = sharing.distcc ? std::max(1, jobs / targets) : 0;
    }
    std::vector<std::string> skipped;
    for (const project::LibrarySpec* library : selected) {
      if (!library->tensorflow.contains(sdk.version)) {
        skipped.push_back(fmt::format("{} (tensorflow {})", library->name, library->tensorflow.text));
      }
    }
    log_info("building {} for {} ...", manifest.name, sdk.id);
    running.push_back(std::async(std::launch::async, [=, &options, &compiler_text] {
      // A PCH that cannot be made costs speed, never the build.
      const TargetPlan& chosen = pch && ensure_pch(*pch) ? plan : plain;
      std::error_code ec;
      stdfs::remove(stats_log, ec);
      TargetResult result = run_plan(chosen, per_target);
      result.skipped = skipped;
      result.portable = portable.summary;
      result.pch_compiles = count_pch_compiles(chosen);
      if (sharing.ccache && !result.up_to_date) { // its stats log says what hit
        result.cache = parse_ccache_stats_log(stdfs::exists(stats_log, ec) ? fs::read_file(stats_log) : "");
      }
      stdfs::path info = chosen.build_dir / "opkit-build.json";
      if (result.ok && !chosen.links.empty() && (!result.up_to_date || !stdfs::exists(info, ec))) {
        fs::write_file_if_changed(info, json_text(build_info_json(sdk, chosen, compiler_text.get()), 2) + "\n");
      }
      if (result.ok && options.check) {
        for (LibraryResult& library : result.libraries) {
          check_built_library(library, sdk, runtime, options.profile_file);
          if (!library.check->loads && !portable.summary.empty()) {
            name_users_of_unbound_glibc_symbols(*library.check, link_objects(chosen, library.name));
          }
        }
        result.ok = result.loads();
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
