#include "opkit/builder/builder.hpp"

#include "opkit/builder/python_module.hpp"

#include "opkit/builder/check_cache.hpp"
#include "opkit/builder/folder_lock.hpp"
#include "opkit/builder/pch.hpp"
#include "opkit/builder/portable.hpp"
#include "opkit/project/cpu_baselines.hpp"
#include "opkit/builder/run_build.hpp"
#include "opkit/builder/toolchain.hpp"
#include "opkit/check/target.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace opkit::builder {

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

// The compat shim every op gets (templates/compat/opkit_compat.cc says why), to be written.
stdfs::path
add_compat_source(PreparedTarget& target, const stdfs::path& dir)
{
  stdfs::path path = dir / "opkit" / "opkit_compat.cc";
  target.files.emplace_back(path, std::string(require_embedded("templates/compat/opkit_compat.cc")));
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
        if (std::string problem = fs::file_problem(manifest.root / source, "file"); !problem.empty()) {
          fail(ExitCode::usage, "{}: source '{}' of library {}: {}", manifest.root / "opkit.yaml", source,
               library->name, problem);
        }
      }
    }
  }
  const project::FrameworkTable& table = project::FrameworkTable::get(sdk.framework);
  project::FrameworkFlags flags = table.flags_for(sdk.version);
  for (const project::LibrarySpec* library : selected) {
    if (flags.namespaced_op_names || !library->builds_for(sdk.version, sdk.cuda.is_cuda_build)) {
      continue;
    }
    for (const project::OpSpec& op : library->ops) {
      if (op.name.find('>') != std::string::npos) {
        std::string since = table.namespaced_op_names_since();
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
        fmt::format("{}: a CPU-only build of {} cannot compile device code ({} of library {})", sdk.id,
                    table.display_name(), *device, input.name),
        fmt::format("fetch the CUDA build: `{}`, then `--{} {}-{}-cuda`; or list the file under `when: [{{device: "
                    "gpu, sources: ...}}]`",
                    sdk::fetch_command(sdk.id + "-cuda"), table.short_name(), sdk.framework, sdk.version.str()));
    }
  }
}

// The folder whose third_party/gpus/cuda/include is the toolkit's headers (the link to be made).
void
map_cuda_headers(PreparedTarget& target, CudaToolkit& cuda, const stdfs::path& dir,
                 const project::FrameworkFlags& flags)
{
  cuda.tf_include_map = dir / "opkit" / "cuda";
  stdfs::path toolkit = cuda.include_dir.parent_path();
  for (const auto& [prefix, folders] : flags.cuda_include_map) {
    for (const std::string& folder : folders) {
      std::error_code ec;
      if (stdfs::is_directory(toolkit / folder, ec)) {
        target.links.emplace_back(cuda.tf_include_map / prefix, toolkit / folder);
        break;
      }
    }
  }
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
  const std::string& prefix = project::FrameworkTable::get(sdk.framework).short_name();
  return build_root / (prefix + "-" + sdk.version.str() + (sdk.cuda.is_cuda_build ? "-cuda" : ""));
}

std::vector<BuiltTarget>
find_built_libraries(const project::Manifest& manifest, const std::vector<std::string>& specs,
                     const stdfs::path& build_root, const std::vector<std::string>& selected,
                     const std::vector<std::string>& pythons)
{
  std::vector<const project::LibrarySpec*> libraries = manifest.select_libraries(selected);
  stdfs::path root = project::build_root(manifest.root, build_root);
  std::vector<BuiltTarget> built;
  for (const std::string& spec : specs) {
    BuiltTarget target{spec, sdk::resolve_sdk(spec, manifest.framework), {}, {}, {}};
    target.in_use = sdk::use_sdk(target.sdk);
    std::vector<const sdk::PythonBuildFacts*> module_pythons_facts; // the Pythons a module is built for here
    if (any_module(libraries)) {
      for (const std::string& python : module_pythons(target.sdk, pythons)) {
        module_pythons_facts.push_back(&sdk::python_build_facts(python, "the Python modules of " + manifest.name));
      }
    }
    for (const project::LibrarySpec* library : libraries) {
      if (!library->builds_for(target.sdk.version, target.sdk.cuda.is_cuda_build)) {
        target.skipped.push_back(
          fmt::format("{}: {}", library->name,
                      library->skip_reason(manifest.framework, target.sdk.version, target.sdk.cuda.is_cuda_build)));
        continue;
      }
      std::vector<std::pair<std::string, stdfs::path>> files; // (Python, file)
      if (library->python_module.empty()) {
        files.emplace_back("", target_dir(root, target.sdk) / library->output);
      } else {
        for (const sdk::PythonBuildFacts* facts : module_pythons_facts) {
          files.emplace_back(facts->version, target_dir(root, target.sdk) / library->module_file(facts->ext_suffix));
        }
      }
      for (const auto& [python, path] : files) {
        std::error_code ec;
        if (!stdfs::is_regular_file(path, ec)) {
          throw Error(ExitCode::missing, fmt::format("{}: not built for {}", path, target.sdk.id),
                      fmt::format("run `opkit build --{} {}{}` first",
                                  project::FrameworkTable::get(manifest.framework).short_name(), spec,
                                  python.empty() || pythons.empty() ? "" : " --python " + python));
        }
        target.libraries.emplace_back(library, path);
        if (!python.empty()) {
          target.module_pythons[path] = python;
        }
      }
    }
    built.push_back(target);
  }
  return built;
}

std::string
BuiltTarget::python_of(const stdfs::path& library) const
{
  auto found = module_pythons.find(library);
  return found == module_pythons.end() ? "" : found->second;
}

std::string
BuiltTarget::skip_line(const std::string& verb) const
{
  return fmt::format("{}: nothing to {}: no library is for {} {} ({})", sdk.id, verb,
                     project::FrameworkTable::get(sdk.framework).display_name(), sdk.version.str(),
                     join(skipped, "; "));
}

std::vector<LibraryInput>
library_inputs(const project::Manifest& manifest, const std::vector<const project::LibrarySpec*>& selected,
               const sdk::Sdk& sdk, const std::vector<sdk::PythonBuildFacts>& pythons)
{
  std::vector<LibraryInput> inputs;
  std::optional<project::FrameworkFlags> flags; // a module's framework flags, read at the first module
  for (const project::LibrarySpec* library : selected) {
    if (!library->builds_for(sdk.version, sdk.cuda.is_cuda_build)) {
      continue;
    }
    project::ResolvedSettings settings = project::resolve_settings(manifest.root, manifest.settings, library->settings,
                                                                   sdk.version, sdk.cuda.is_cuda_build);
    LibraryInput input{library->name,    library->output, settings.sources, {},
                       settings.defines, settings.cflags, settings.ldflags, settings.libs};
    input.compat = settings.compat;
    for (const stdfs::path& dir : settings.include_dirs) {
      input.include_dirs.push_back(dir.string());
    }
    if (library->python_module.empty()) {
      inputs.push_back(input);
      continue;
    }
    if (!flags) {
      flags = project::FrameworkTable::get(sdk.framework).flags_for(sdk.version);
    }
    for (const sdk::PythonBuildFacts& python : pythons) {
      inputs.push_back(module_input(input, *library, python, *flags));
    }
  }
  return inputs;
}

TargetResult
run_plan(const TargetPlan& plan, int jobs)
{
  fs::create_dirs(plan.build_dir);
  fs::write_file_if_changed(plan.build_dir / "build.ninja", render_ninja(plan));
  fs::write_file_if_changed(plan.build_dir / "compile_commands.json", render_compile_commands(plan));
  ProcessResult ninja =
    run_process({"ninja", "-C", plan.build_dir.string(), "-j", std::to_string(jobs)}, compiler_process_options());
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
build_info_json(const sdk::Sdk& sdk, const TargetPlan& plan, const std::string& runtime,
                const std::string& compiler_version)
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
  return {{"schema", "opkit.build-info/1"},
          {"library", plan.links.empty() ? "" : plan.links.front().output},
          {"libraries", libraries},
          {"framework", sdk.framework},
          {"tf_version", sdk.version.str()}, // the framework's version (named before torch came)
          {"sdk", sdk.id},
          {"runtime", runtime},
          {"cxx11_abi", flag_value("-D_GLIBCXX_USE_CXX11_ABI=")},
          {"cxx_standard", flag_value("-std=c++")},
          {"compiler", compiler_version},
          {"opkit_version", OPKIT_VERSION}};
}

namespace {

// Everything one target needs, planned from pure inputs; nothing written.
struct PlanContext
{
  const project::Manifest& manifest;
  const BuildOptions& options;
  const std::vector<const project::LibrarySpec*>& selected;
  const CompilerCommand& compiler;
  const std::optional<std::string>& device_source;    // the first, when any library has one
  const std::map<std::string, CudaToolkit>& toolkits; // by SDK CUDA version, chosen once
  const Sharing& sharing;
  const stdfs::path& build_root;
  const stdfs::path& source_root;
  const std::string& identity;
  bool use_pch;
  int jobs;
  int targets;
  std::map<std::string, std::string>& texts; // host sources, read once for every target's PCH decision
};

PreparedTarget
prepare_target(PlanContext& c, const std::string& spec, const sdk::Sdk& sdk, const std::vector<LibraryInput>& inputs)
{
  PreparedTarget target;
  target.spec = spec;
  target.sdk = sdk;
  stdfs::path dir = target_dir(c.build_root, sdk);
  for (const project::LibrarySpec* library : c.selected) {
    if (!library->builds_for(sdk.version, sdk.cuda.is_cuda_build)) {
      target.skipped.push_back(fmt::format("{} ({})", library->name,
                                           library->skip_reason(sdk.framework, sdk.version, sdk.cuda.is_cuda_build)));
    }
  }
  if (inputs.empty()) { // no library is for this version: nothing to plan, fit or run
    target.nothing_to_build = true;
    target.plan.build_dir = dir;
    target.plan.label = dir.filename().string();
    target.plain = target.plan;
    return target;
  }
  project::FrameworkFlags flags = project::FrameworkTable::get(sdk.framework).flags_for(sdk.version);
  target.runtime = c.options.runtime.empty() ? c.manifest.runtime : c.options.runtime;
  target.cpu = c.options.cpu.empty() ? c.manifest.cpu : c.options.cpu;
  std::optional<CudaToolkit> cuda;
  std::vector<stdfs::path> static_libraries;
  if (sdk.cuda.is_cuda_build && c.device_source) {
    cuda = c.toolkits.at(sdk.cuda.cuda_version);
    map_cuda_headers(target, *cuda, dir, flags);
    for (const std::string& name : flags.cuda_static_libraries) {
      static_libraries.push_back(cuda->lib_dir / name);
    }
  }
  PortableLink portable =
    plan_portable_link(c.compiler.compiler, sdk, target.runtime, c.options.profile_file, static_libraries,
                       c.options.dry_run ? stdfs::path() : dir / "opkit-portable.json");
  target.portable = portable.summary;
  std::vector<std::string> force_includes;
  if (!portable.symver_header.empty()) {
    stdfs::path header = dir / "opkit" / "symbol_versions.h";
    target.files.emplace_back(header, portable.symver_header);
    force_includes.push_back(header.string());
  }
  TargetInput input{c.compiler,
                    c.source_root,
                    {add_compat_source(target, dir)},
                    dir,
                    c.options.static_archive,
                    portable.archives,
                    force_includes,
                    portable.link_dirs,
                    ""};
  if (!target.cpu.empty() && target.cpu != "none") {
    input.march = project::cpu_baseline(target.cpu).march;
  }
  std::vector<LibraryInput> libraries = inputs;
  for (LibraryInput& library : libraries) { // compat shims: a header each, in the target's folder
    for (const std::string& shim : library.compat) {
      stdfs::path header = dir / "opkit" / "compat" / (shim + ".h");
      if (std::none_of(target.files.begin(), target.files.end(), [&](const auto& f) { return f.first == header; })) {
        target.files.emplace_back(header, fmt::format("// opkit compat shim '{}' (configs/adopt/compat.yaml), forced "
                                                      "in by opkit.yaml's `compat:`\n#pragma once\n{}",
                                                      shim, project::adopt_rules().shims.at(shim)));
      }
      library.force_includes.push_back(header.string());
    }
  }
  sdk::Sdk seen = sdk; // the SDK as the commands name it
  if (c.sharing.relative_sdk) {
    target.links.emplace_back(dir / "sdk", sdk.root);
    seen.root = (dir / "sdk").lexically_relative(c.build_root); // ninja runs in the build root
  }
  std::optional<PchUse> use;
  if (c.use_pch) {
    PchSpec pch_spec = plan_pch(sdk, flags, c.compiler.compiler, c.identity, sdk::pch_store_dir());
    use = PchUse{pch_spec.header().string(), pch_spec.flags, {}};
    for (const LibraryInput& library : inputs) {
      for (const std::string& source : library.sources) {
        if (is_device_source(source)) {
          continue;
        }
        auto [text, fresh] = c.texts.try_emplace(source);
        if (fresh) {
          text->second = fs::read_file(c.manifest.root / source);
        }
        if (source_can_use_pch(text->second, flags.pch_defines, flags.pch_include_prefixes)) {
          use->sources.push_back(source);
        }
      }
    }
    target.pch = pch_spec;
  }
  target.plan = plan_target(input, libraries, seen, flags, c.options.overrides, cuda, use);
  target.plain = use && count_pch_compiles(target.plan) > 0
                   ? plan_target(input, libraries, seen, flags, c.options.overrides, cuda)
                   : target.plan;
  if (count_pch_compiles(target.plan) == 0) {
    if (use && !use->sources.empty()) {
      log_debug("{}: the flags differ from the SDK's own: no precompiled header", sdk.id);
    }
    target.pch.reset();
  }
  target.stats_log = dir / "ccache-stats.log";
  for (TargetPlan* p : {&target.plan, &target.plain}) {
    p->launcher = choose_launcher(target_launcher(c.sharing, target.stats_log), c.compiler.launcher);
    p->link_jobs = c.sharing.distcc ? std::max(1, c.jobs / c.targets) : 0;
    p->ninja_dir = c.build_root;
    p->label = dir.filename().string();
  }
  return target;
}

} // namespace

BuildReport
build_project(const project::Manifest& manifest, const BuildOptions& options)
{
  std::vector<std::string> specs = unique_specs(options.tf_specs.empty() ? manifest.target_versions : options.tf_specs);
  if (specs.empty()) {
    const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
    fail(ExitCode::usage, "no {} versions to build: pass --{} or list them under targets.{}", table.display_name(),
         table.short_name(), manifest.framework);
  }
  std::vector<const project::LibrarySpec*> selected = manifest.select_libraries(options.libraries);
  // Everything that can fail on input fails here, before a single file is written.
  std::vector<sdk::Sdk> sdks;
  std::vector<std::shared_ptr<const fs::FileLock>> in_use; // `sdk remove` waits for the build
  std::vector<std::vector<LibraryInput>> inputs;
  std::optional<std::string> device_source;
  for (auto spec = specs.begin(); spec != specs.end();) {
    sdk::Sdk sdk = sdk::resolve_sdk(*spec, manifest.framework);
    auto same = std::find_if(sdks.begin(), sdks.end(), [&sdk](const sdk::Sdk& other) { return other.id == sdk.id; });
    if (same != sdks.end()) { // "1.12" and "1.12.0": one SDK, one target (under the first spelling)
      log_info("{}: the same SDK as {}: built once", *spec, specs[static_cast<size_t>(same - sdks.begin())]);
      spec = specs.erase(spec);
      continue;
    }
    ++spec;
    sdks.push_back(std::move(sdk));
    in_use.push_back(sdk::use_sdk(sdks.back()));
    std::vector<sdk::PythonBuildFacts> pythons;
    if (any_module(selected)) { // each Python's headers, asked of it before anything is written
      for (const std::string& python : module_pythons(sdks.back(), options.pythons)) {
        pythons.push_back(sdk::python_build_facts(python, "the Python modules of " + manifest.name));
      }
    }
    inputs.push_back(library_inputs(manifest, selected, sdks.back(), pythons));
    check_target_sources(manifest, sdks.back(), inputs.back(), selected);
    for (const LibraryInput& input : inputs.back()) {
      auto device = std::find_if(input.sources.begin(), input.sources.end(), is_device_source);
      if (device != input.sources.end() && !device_source) {
        device_source = *device;
      }
    }
  }
  CompilerCommand compiler = find_compiler();
  // Each CUDA SDK's toolkit (fetched where it must be) before anything is written.
  std::map<std::string, CudaToolkit> toolkits;
  for (const sdk::Sdk& sdk : sdks) {
    if (device_source && sdk.cuda.is_cuda_build && toolkits.count(sdk.cuda.cuda_version) == 0) {
      const CudaToolkit& chosen =
        toolkits.emplace(sdk.cuda.cuda_version, cuda_toolkit_for(sdk, *device_source, !options.dry_run)).first->second;
      log_info("{}: device code by {} nvcc", sdk.id, chosen.origin);
    }
  }
  if (find_program("ninja").empty()) {
    throw Error(ExitCode::missing, "ninja: not found in PATH", "scripts/setup.sh installs ninja-build");
  }
  stdfs::path build_root = project::build_root(manifest.root, options.build_root);
  stdfs::path source_root = stdfs::absolute(manifest.root);
  project::CompileSharing settings = effective_sharing(manifest.sharing, options.cache);
  std::string ccache = find_program("ccache").string();
  adopt_cxx_ccache(compiler, settings, ccache, options.cache);
  Sharing sharing =
    plan_sharing(settings, ccache, find_program("distcc").string(), common_folder(source_root, build_root));
  std::string identity = compiler_identity(compiler.compiler);
  LazyCompilerVersion compiler_text{compiler.compiler};
  int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  std::map<std::string, std::string> texts;
  PlanContext context{manifest,
                      options,
                      selected,
                      compiler,
                      device_source,
                      toolkits,
                      sharing,
                      build_root,
                      source_root,
                      identity,
                      options.pch && sharing.pch,
                      jobs,
                      static_cast<int>(sdks.size()),
                      texts};
  std::unique_ptr<HeldBuildFolder> folder; // from the first file written to the last result read
  if (!options.dry_run && options.held == nullptr) {
    folder = lock_build_folder(build_root, options.wait);
  }
  std::vector<PreparedTarget> targets;
  for (size_t t = 0; t < sdks.size(); ++t) {
    targets.push_back(prepare_target(context, specs[t], sdks[t], inputs[t]));
  }
  if (options.dry_run) {
    return plan_report(targets);
  }
  for (const PreparedTarget& target : targets) {
    if (!target.nothing_to_build) {
      log_info("building {} for {} ...", manifest.name, target.sdk.id);
    }
  }
  // One ninja over every target: the job budget (and distcc's helpers) shared by all.
  RunSettings run{build_root,
                  jobs,
                  jobs + sharing.remote_slots,
                  sharing.ccache,
                  sharing.environment,
                  [&compiler_text]() -> const std::string& { return compiler_text.get(); }};
  BuildReport report = run_targets(targets, options, run);
  std::vector<std::string> unseen = compiler_search_variables_set();
  bool failed = std::any_of(report.targets.begin(), report.targets.end(), [](const TargetResult& t) { return !t.ok; });
  if (!unseen.empty()) { // said when it may be why a header or library was not found
    std::string note =
      fmt::format("note: {} {} set, but opkit's compiles run without {} (ninja cannot see the environment, so a "
                  "library would not be rebuilt when it changes): name such folders in opkit.yaml's include_dirs, "
                  "ldflags or libs",
                  join(unseen, ", "), unseen.size() == 1 ? "is" : "are", unseen.size() == 1 ? "it" : "them");
    failed ? log_info("{}", note) : log_debug("{}", note);
  }
  report.watched = {manifest.root / "opkit.yaml", compiler.compiler, options.profile_file}; // resolved on PATH
  for (const sdk::Sdk& sdk : sdks) {
    report.watched.insert(report.watched.end(), {sdk.root.parent_path(), sdk.root, sdk.root / "sdk.json",
                                                 sdk.lib_dir() / sdk.framework_library});
  }
  for (const auto& [version, toolkit] : toolkits) {
    report.watched.insert(report.watched.end(), {toolkit.nvcc, toolkit.include_dir, toolkit.lib_dir});
  }
  return report;
}

} // namespace opkit::builder
