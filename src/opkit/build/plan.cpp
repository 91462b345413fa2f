#include "opkit/build/plan.hpp"

#include "opkit/build/ninja_writer.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace opkit::build {

namespace {

std::string
shell_join(const std::vector<std::string>& args)
{
  std::vector<std::string> quoted;
  for (const std::string& arg : args) {
    quoted.push_back(shell_quote(arg));
  }
  return join(quoted, " ");
}

// What every compile for a TF version starts with: its standard, ABI and Eigen alignment.
std::vector<std::string>
version_flags(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const FlagOverrides& overrides)
{
  return {
    fmt::format("-std=c++{}", overrides.cxx_standard.value_or(sdk.cxx_standard)),
    fmt::format("-D_GLIBCXX_USE_CXX11_ABI={}", overrides.cxx11_abi.value_or(sdk.cxx11_abi)),
    fmt::format("-DEIGEN_MAX_ALIGN_BYTES={}", flags.eigen_max_align_bytes),
  };
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
  return {"-L" + sdk.lib_dir().string(), flags.link};
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
  std::vector<std::string> base = sdk_compile_flags(sdk, flags, overrides);
  std::vector<std::string> device_base;
  if (cuda) {
    plan.nvcc = cuda->nvcc.string();
    append(base, flags.cuda_defines);
    base.push_back("-I" + cuda->include_dir.string());
    base.push_back("-I" + cuda->tf_include_map.string());
    device_base = nvcc_compile_flags(sdk, flags, overrides);
    device_base.push_back("-I" + cuda->tf_include_map.string());
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
    LinkStep link{library.name, library.output, {}, {}, input.link_archives, {}};
    for (const std::string& source : library.sources) {
      bool on_device = is_device_source(source);
      std::vector<std::string> step_flags = on_device ? device : host;
      if (!on_device && pch_flags
          && std::find(pch->sources.begin(), pch->sources.end(), source) != pch->sources.end()) {
        step_flags.insert(step_flags.end(), {"-include", pch->header, "-Winvalid-pch"});
      }
      for (const std::string& header : input.force_includes) {
        if (on_device) {
          step_flags.push_back("-Xcompiler=-include," + header);
        } else {
          step_flags.insert(step_flags.end(), {"-include", header});
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
    append(link.flags, sdk_link_flags(sdk, flags));
    if (cuda) {
      for (const std::string& dir : input.link_dirs) {
        link.flags.push_back("-L" + dir);
      }
      link.flags.push_back("-L" + cuda->lib_dir.string());
      append(link.flags, flags.cuda_link_flags);
    }
    for (const std::string& lib : library.libs) {
      link.flags.push_back("-l" + lib);
    }
    plan.links.push_back(link);
  }
  return plan;
}

std::string
render_ninja(const TargetPlan& plan)
{
  NinjaWriter writer;
  writer.comment("Generated by opkit. Do not edit: `opkit build` rewrites it.");
  writer.variable("ninja_required_version", "1.8");
  std::vector<std::string> cxx = {plan.compiler};
  cxx.insert(cxx.end(), plan.compiler_args.begin(), plan.compiler_args.end());
  writer.variable("cxx", shell_join(cxx));
  if (!plan.launcher.empty()) {
    writer.variable("launcher", shell_join(plan.launcher));
  }
  if (!plan.nvcc.empty()) {
    writer.variable("nvcc", shell_quote(plan.nvcc));
  }
  writer.newline();
  writer.rule("cxx",
              plan.launcher.empty() ? "$cxx -MD -MF $out.d $flags -c $in -o $out"
                                    : "$launcher $cxx -MD -MF $out.d $flags -c $in -o $out",
              "CXX $in", "$out.d", "gcc");
  if (!plan.nvcc.empty()) {
    writer.rule("nvcc", "$nvcc -MD -MF $out.d $flags -c $in -o $out", "NVCC $in", "$out.d", "gcc");
  }
  writer.rule("link", "$cxx $in -o $out $link_flags", "LINK $out");
  if (plan.link_jobs > 0) {
    writer.pool("link_pool", plan.link_jobs);
  }
  // D: no timestamps or uids, so the archive is reproducible; rm: ar only ever adds.
  writer.rule("ar", "rm -f $out && ar rcsD $out $in", "AR $out");
  writer.newline();
  for (const CompileStep& step : plan.compiles) {
    writer.build({step.object}, step.device ? "nvcc" : "cxx", {step.source}, {{"flags", shell_join(step.flags)}});
  }
  std::vector<std::string> outputs;
  for (const LinkStep& link : plan.links) {
    std::vector<std::pair<std::string, std::string>> link_variables = {{"link_flags", shell_join(link.flags)}};
    if (plan.link_jobs > 0) {
      link_variables.emplace_back("pool", "link_pool");
    }
    writer.build({link.output}, "link", link.objects, link_variables, link.archives);
    outputs.push_back(link.output);
    if (!link.static_output.empty()) {
      // The library's own objects only: the compat shim would impose itself on a whole executable.
      std::vector<std::string> own;
      std::copy_if(link.objects.begin(), link.objects.end(), std::back_inserter(own),
                   [](const std::string& o) { return !starts_with(o, "obj/opkit/"); });
      writer.build({link.static_output}, "ar", own);
      outputs.push_back(link.static_output);
    }
  }
  writer.newline();
  writer.default_target(outputs);
  return writer.text();
}

std::string
render_compile_commands(const TargetPlan& plan)
{
  Json entries = Json::array();
  for (const CompileStep& step : plan.compiles) {
    std::vector<std::string> arguments = {step.device ? plan.nvcc : plan.compiler};
    if (!step.device) {
      arguments.insert(arguments.end(), plan.compiler_args.begin(), plan.compiler_args.end());
    }
    arguments.insert(arguments.end(), step.flags.begin(), step.flags.end());
    arguments.insert(arguments.end(), {"-c", step.source, "-o", step.object});
    entries.push_back({{"directory", plan.build_dir.string()},
                       {"file", step.source},
                       {"arguments", arguments},
                       {"output", step.object}});
  }
  return entries.dump(2) + "\n";
}

} // namespace opkit::build
