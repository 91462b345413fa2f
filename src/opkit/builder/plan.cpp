#include "opkit/builder/plan.hpp"

#include "opkit/builder/ninja_writer.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>

namespace opkit::builder {

namespace {

std::string
shell_join(const std::vector<std::string>& args)
{
  std::vector<std::string> quoted;
  quoted.reserve(args.size());
  for (const std::string& arg : args) {
    quoted.push_back(shell_quote(arg));
  }
  return join(quoted, " ");
}

// What every compile for a TF version starts with: its standard, ABI and Eigen alignment.
std::vector<std::string>
version_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const FlagOverrides& overrides)
{
  std::vector<std::string> result = {
    fmt::format("-std=c++{}", overrides.cxx_standard.value_or(sdk.cxx_standard)),
    fmt::format("-D_GLIBCXX_USE_CXX11_ABI={}", overrides.cxx11_abi.value_or(sdk.cxx11_abi)),
  };
  if (flags.eigen_max_align_bytes > 0) { // TensorFlow's Eigen; torch's headers have none
    result.push_back(fmt::format("-DEIGEN_MAX_ALIGN_BYTES={}", flags.eigen_max_align_bytes));
  }
  for (const std::string& define : sdk.defines) { // what the SDK's headers need of the build (TF 2.20+'s version)
    result.push_back("-D" + define);
  }
  return result;
}

// The defines the framework gives each library ("TORCH_EXTENSION_NAME={library}").
std::vector<std::string>
library_defines(const project::FrameworkFlags& flags, const std::string& library)
{
  std::vector<std::string> result;
  const std::string_view key = "{library}";
  for (std::string define : flags.library_defines) {
    for (size_t at = define.find(key); at != std::string::npos; at = define.find(key, at + library.size())) {
      define.replace(at, key.size(), library);
    }
    result.push_back("-D" + define);
  }
  return result;
}

// ... and ends with: the SDK's headers, first and as plain -I, so a system
// protobuf or Eigen can never shadow the ones TF was built with.
void
append_includes(std::vector<std::string>& result, const sdk::Sdk& sdk, const project::FrameworkFlags& flags)
{
  for (const std::string& dir : flags.include_dirs) {
    result.push_back("-I" + (sdk.root / dir).string());
  }
}

void
append(std::vector<std::string>& result, const std::vector<std::string>& more)
{
  result.insert(result.end(), more.begin(), more.end());
}

// nvcc takes the same version flags; host-compiler flags go through -Xcompiler (in nvcc_flags).
std::vector<std::string>
nvcc_compile_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const FlagOverrides& overrides)
{
  std::vector<std::string> result = version_flags(sdk, flags, overrides);
  append(result, flags.cuda_defines);
  append(result, flags.nvcc_flags);
  append_includes(result, sdk, flags);
  return result;
}

} // namespace

bool
is_device_source(const std::string& path)
{
  return ends_with(path, ".cu.cc") || ends_with(path, ".cu");
}

std::vector<std::string>
sdk_compile_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const FlagOverrides& overrides)
{
  std::vector<std::string> result = version_flags(sdk, flags, overrides);
  append(result, flags.compile_flags);
  append(result, flags.warning_flags);
  append_includes(result, sdk, flags);
  return result;
}

std::vector<std::string>
sdk_link_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags)
{
  std::vector<std::string> result = {"-L" + sdk.lib_dir().string()};
  if (!flags.link.empty()) {
    result.push_back(flags.link);
  }
  for (const std::string& library : flags.link_libraries) {
    result.push_back("-l" + library);
  }
  return result;
}

TargetPlan
plan_target(const TargetInput& input, const std::vector<LibraryInput>& libraries, const sdk::Sdk& sdk,
            const project::FrameworkFlags& flags, const FlagOverrides& overrides,
            const std::optional<CudaToolkit>& cuda, const std::optional<PchUse>& pch)
{
  TargetPlan plan;
  plan.compiler = input.compiler.compiler;
  plan.compiler_args = input.compiler.args;
  plan.launcher = input.compiler.launcher;
  plan.build_dir = input.build_dir;
  plan.source_root = input.source_root;
  std::vector<std::string> base = sdk_compile_flags(sdk, flags, overrides);
  std::vector<std::string> device_base;
  if (cuda) {
    plan.nvcc = cuda->nvcc.string();
    append(base, flags.cuda_defines);
    base.push_back("-I" + cuda->include_dir.string());
    base.push_back("-I" + cuda->tf_include_map.string());
    device_base = nvcc_compile_flags(sdk, flags, overrides);
    if (!cuda->host_compiler.empty()) { // the newest g++ this nvcc accepts
      device_base.push_back("-ccbin");
      device_base.push_back(cuda->host_compiler);
    }
    device_base.push_back("-I" + cuda->tf_include_map.string());
  }
  if (!input.march.empty()) {
    base.push_back("-march=" + input.march);
    device_base.push_back("-Xcompiler=-march=" + input.march);
  }
  std::vector<std::string> generated_objects;
  for (const std::filesystem::path& source : input.generated) {
    generated_objects.push_back("obj/opkit/" + source.filename().string() + ".o");
    std::vector<std::string> generated_flags = base;
    for (const std::string& header : input.force_includes) {
      generated_flags.insert(generated_flags.end(), {"-include", header});
    }
    plan.compiles.push_back({source.string(), generated_objects.back(), generated_flags});
  }
  for (const LibraryInput& library : libraries) {
    // The library's own flags come after the SDK's (its -O3 wins), its folders after the SDK's headers.
    std::vector<std::string> own;
    for (const std::string& define : library.defines) {
      own.push_back("-D" + define);
    }
    std::vector<std::string> includes;
    for (const std::string& dir : library.include_dirs) {
      includes.push_back("-I" + dir);
    }
    std::vector<std::string> host = base;
    append(host, library.cflags);
    append(host, own);
    append(host, includes);
    std::vector<std::string> device = device_base;
    for (const std::string& flag : library.cflags) {
      device.push_back("-Xcompiler=" + flag);
    }
    append(device, own);
    append(device, includes);
    // -I changes no macro and no option gcc checks a PCH against: only the rest must be the SDK's own.
    bool pch_flags = pch && library.cflags.empty() && own.empty() && base == pch->flags;
    // The framework's per-library defines name no macro its headers use, so they keep the PCH.
    std::vector<std::string> named =
      library_defines(flags, library.extension_name.empty() ? library.name : library.extension_name);
    host.insert(host.end() - static_cast<std::ptrdiff_t>(includes.size()), named.begin(), named.end());
    device.insert(device.end() - static_cast<std::ptrdiff_t>(includes.size()), named.begin(), named.end());
    LinkStep link{library.name, library.output, {}, {}, input.link_archives, {}};
    for (const std::string& source : library.sources) {
      bool on_device = is_device_source(source);
      std::vector<std::string> step_flags = on_device ? device : host;
      if (!on_device && pch_flags
          && std::find(pch->sources.begin(), pch->sources.end(), source) != pch->sources.end()) {
        step_flags.insert(step_flags.end(), {"-include", pch->header, "-Winvalid-pch"});
      }
      for (const std::vector<std::string>* headers : {&input.force_includes, &library.force_includes}) {
        for (const std::string& header : *headers) {
          if (on_device) {
            step_flags.push_back("-Xcompiler=-include," + header);
          } else {
            step_flags.insert(step_flags.end(), {"-include", header});
          }
        }
      }
      std::string object = "obj/" + library.name + "/" + source + ".o";
      plan.compiles.push_back(
        {(input.source_root / source).lexically_normal().string(), object, step_flags, on_device});
      link.objects.push_back(object);
    }
    if (input.static_archive) {
      std::string stem = library.output.substr(0, library.output.rfind(".so"));
      link.static_output = (starts_with(stem, "lib") ? stem : "lib" + stem) + ".a";
    }
    link.objects.insert(link.objects.end(), generated_objects.begin(), generated_objects.end());
    link.flags = flags.link_flags;
    // The CUDA runtime before the framework library: TF's CUDA builds export
    // the runtime's calls (__cudaRegisterFatBinary, cudaLaunchKernel, ...)
    // from their own stub, which would otherwise take the CUDA 11 ones, and
    // the library would then load in no CPU-only TF.
    if (cuda) {
      for (const std::string& dir : input.link_dirs) {
        link.flags.push_back("-L" + dir);
      }
      link.flags.push_back("-L" + cuda->lib_dir.string());
      append(link.flags, flags.cuda_link_flags);
    }
    // The framework library before the portable archives: a libstdc++ symbol
    // above the target's ceiling that the framework exports (TF 2.10.1's
    // exports random_device::_M_init) binds to it, as the plain recipe's link
    // does; only what nothing in the target gives is taken from an archive
    // member, whose own needs (getentropy@GLIBC_2.25) may not fit.
    if (!input.link_archives.empty()) {
      append(link.flags, sdk_link_flags(sdk, flags));
    }
    for (const std::string& archive : input.link_archives) {
      link.flags.push_back(archive);
      link.flags.push_back("-Wl,--exclude-libs," + std::filesystem::path(archive).filename().string());
    }
    if (!input.link_archives.empty()) {
      // What the archives' members hold beyond what the library reaches (a
      // random_device needing getentropy@GLIBC_2.25, say) is dropped.
      link.flags.push_back("-Wl,--gc-sections");
    }
    append(link.flags, library.ldflags);
    if (input.link_archives.empty()) {
      append(link.flags, sdk_link_flags(sdk, flags));
    }
    for (const std::string& lib : library.libs) {
      link.flags.push_back("-l" + lib);
    }
    plan.links.push_back(link);
  }
  return plan;
}

std::filesystem::path
ninja_dir(const TargetPlan& plan)
{
  return plan.ninja_dir.empty() ? plan.build_dir : plan.ninja_dir;
}

std::string
output_prefix(const TargetPlan& plan)
{
  std::filesystem::path relative = plan.build_dir.lexically_relative(ninja_dir(plan));
  return relative.empty() || relative == "." ? "" : relative.generic_string() + "/";
}

std::string
target_label(const TargetPlan& plan)
{
  return plan.label.empty() ? plan.build_dir.filename().string() : plan.label;
}

namespace {

// A source as the step descriptions show it: relative to the project when inside it.
std::string
display_source(const TargetPlan& plan, const std::string& source)
{
  std::filesystem::path relative = std::filesystem::path(source).lexically_relative(plan.source_root);
  return plan.source_root.empty() || relative.empty() || starts_with(relative.generic_string(), "..")
           ? source
           : relative.generic_string();
}

std::string
compile_rule_command(const TargetPlan& plan)
{
  // $$: the shell expands the flags the environment gives (colours), outside ninja's command hash.
  std::string compile = fmt::format("$cxx -MD -MF $out.d $flags $${} -c $in -o $out", k_diagnostics_env);
  return plan.launcher.empty() ? compile : "$launcher " + compile;
}

std::string
link_pool_name(const TargetPlan& plan)
{
  std::string name = "link_pool";
  if (!output_prefix(plan).empty()) {
    // Pools are global across subninjas: one per target.
    name += "_";
    for (char c : target_label(plan)) {
      name += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' ? c : '_';
    }
  }
  return name;
}

std::vector<std::string>
prefixed(const std::string& prefix, const std::vector<std::string>& paths)
{
  std::vector<std::string> result;
  result.reserve(paths.size());
  for (const std::string& path : paths) {
    result.push_back(prefix + path);
  }
  return result;
}

// The library's own objects only: the compat shim would impose itself on a whole executable.
std::vector<std::string>
archive_objects(const LinkStep& link)
{
  std::vector<std::string> own;
  std::copy_if(link.objects.begin(), link.objects.end(), std::back_inserter(own),
               [](const std::string& o) { return !starts_with(o, "obj/opkit/"); });
  return own;
}

std::vector<std::string>
compiler_words(const TargetPlan& plan)
{
  std::vector<std::string> cxx = {plan.compiler};
  cxx.insert(cxx.end(), plan.compiler_args.begin(), plan.compiler_args.end());
  return cxx;
}

} // namespace

std::string
render_ninja(const TargetPlan& plan)
{
  std::string prefix = output_prefix(plan);
  std::string label = target_label(plan);
  NinjaWriter writer;
  writer.comment("Generated by opkit. Do not edit: `opkit build` rewrites it.");
  if (!prefix.empty()) {
    writer.comment(
      fmt::format("Paths are relative to {} (its build.ninja includes this one).", ninja_dir(plan).string()));
  }
  writer.variable("ninja_required_version", "1.8");
  writer.variable("cxx", shell_join(compiler_words(plan)));
  if (!plan.launcher.empty()) {
    writer.variable("launcher", shell_join(plan.launcher));
  }
  if (!plan.nvcc.empty()) {
    writer.variable("nvcc", shell_quote(plan.nvcc));
  }
  writer.variable("opkit_target", label);
  writer.newline();
  writer.rule("cxx", compile_rule_command(plan), "CXX $name ($opkit_target)", "$out.d", "gcc");
  if (!plan.nvcc.empty()) {
    writer.rule("nvcc", "$nvcc -MD -MF $out.d $flags -c $in -o $out", "NVCC $name ($opkit_target)", "$out.d", "gcc");
  }
  // Linked (and archived) under a temporary name of the linking shell ($$) and
  // renamed: a build killed mid-link never leaves a truncated library where
  // packages look for one, and no two links share a temporary.
  writer.rule("link", "$cxx $in -o $out.$$$$.tmp $link_flags && mv -f $out.$$$$.tmp $out",
              "LINK $name ($opkit_target)");
  std::string pool = link_pool_name(plan);
  if (plan.link_jobs > 0) {
    writer.pool(pool, plan.link_jobs);
  }
  // D: no timestamps or uids, so the archive is reproducible; rm: ar only ever adds.
  writer.rule("ar", "ar rcsD $out.$$$$.tmp $in && mv -f $out.$$$$.tmp $out", "AR $name ($opkit_target)");
  writer.newline();
  for (const CompileStep& step : plan.compiles) {
    writer.build({prefix + step.object}, step.device ? "nvcc" : "cxx", {step.source},
                 {{"flags", shell_join(step.flags)}, {"name", display_source(plan, step.source)}});
  }
  std::vector<std::string> outputs;
  for (const LinkStep& link : plan.links) {
    std::vector<std::pair<std::string, std::string>> link_variables = {{"link_flags", shell_join(link.flags)},
                                                                       {"name", link.output}};
    if (plan.link_jobs > 0) {
      link_variables.emplace_back("pool", pool);
    }
    writer.build({prefix + link.output}, "link", prefixed(prefix, link.objects), link_variables, link.archives);
    outputs.push_back(prefix + link.output);
    if (!link.static_output.empty()) {
      writer.build({prefix + link.static_output}, "ar", prefixed(prefix, archive_objects(link)),
                   {{"name", link.static_output}});
      outputs.push_back(prefix + link.static_output);
    }
  }
  writer.newline();
  writer.default_target(outputs);
  return writer.text();
}

std::string
render_top_ninja(const std::vector<std::string>& target_ninjas)
{
  NinjaWriter writer;
  writer.comment("Generated by opkit. Do not edit: `opkit build` rewrites it for the targets it builds.");
  writer.variable("ninja_required_version", "1.8");
  for (const std::string& path : target_ninjas) {
    writer.subninja(path);
  }
  return writer.text();
}

std::vector<PlannedStep>
planned_steps(const TargetPlan& plan)
{
  std::string prefix = output_prefix(plan);
  std::string cxx = shell_join(compiler_words(plan));
  std::string launcher = plan.launcher.empty() ? "" : shell_join(plan.launcher) + " ";
  std::vector<PlannedStep> steps;
  for (const CompileStep& step : plan.compiles) {
    std::string object = prefix + step.object;
    std::string program = step.device ? shell_quote(plan.nvcc) : launcher + cxx;
    steps.push_back({"compile", object,
                     fmt::format("{} -MD -MF {}.d {} -c {} -o {}", program, shell_quote(object), shell_join(step.flags),
                                 shell_quote(step.source), shell_quote(object))});
  }
  for (const LinkStep& link : plan.links) {
    std::string output = prefix + link.output;
    std::string temp = shell_quote(output) + ".$$.tmp";
    steps.push_back({"link", output,
                     fmt::format("{} {} -o {} {} && mv -f {} {}", cxx, shell_join(prefixed(prefix, link.objects)), temp,
                                 shell_join(link.flags), temp, shell_quote(output))});
    if (!link.static_output.empty()) {
      std::string archive = shell_quote(prefix + link.static_output);
      std::string archive_temp = archive + ".$$.tmp";
      steps.push_back({"archive", prefix + link.static_output,
                       fmt::format("ar rcsD {} {} && mv -f {} {}", archive_temp,
                                   shell_join(prefixed(prefix, archive_objects(link))), archive_temp, archive)});
    }
  }
  return steps;
}

std::string
render_compile_commands(const TargetPlan& plan)
{
  std::string prefix = output_prefix(plan);
  Json entries = Json::array();
  for (const CompileStep& step : plan.compiles) {
    std::vector<std::string> arguments = {step.device ? plan.nvcc : plan.compiler};
    if (!step.device) {
      arguments.insert(arguments.end(), plan.compiler_args.begin(), plan.compiler_args.end());
    }
    arguments.insert(arguments.end(), step.flags.begin(), step.flags.end());
    arguments.insert(arguments.end(), {"-c", step.source, "-o", prefix + step.object});
    entries.push_back({{"directory", ninja_dir(plan).string()},
                       {"file", step.source},
                       {"arguments", arguments},
                       {"output", prefix + step.object}});
  }
  return json_text(entries, 2) + "\n";
}

} // namespace opkit::builder
