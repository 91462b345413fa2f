#include "opkit/builder/builder.hpp"
#include "opkit/builder/noop_record.hpp"
#include "opkit/builder/popart.hpp"
#include "opkit/builder/report_json.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/cli/autobuild.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::cli {

namespace {

// A target's lines; the check's report on a library that will not load
// follows them (print_target).
std::string
target_text(const builder::TargetResult& target)
{
  std::string out;
  auto line = std::back_inserter(out);
  std::string name = target.dir.filename().string();
  std::string status = builder::target_status(target, false);
  if (status == "built") {
    status = fmt::format("built ({} compiled) in {:.1f} s", target.compiled, target.seconds);
  }
  // One library: its path on the target's line; several: one line each below.
  bool one = target.libraries.size() == 1 && target.skipped.empty();
  bool failed = !target.ok && target.loads();
  std::string where = target.nothing_to_build ? "nothing to build: no library is for TensorFlow " + target.version
                      : failed                ? "full log: " + builder::shown_path(target.log_file)
                      : one                   ? target.libraries.front().library.string()
                                              : target.dir.string();
  fmt::format_to(line, "{:<13} {:<20} {}\n", name, status, where);
  for (size_t i = 0; !one && !failed && i < target.libraries.size(); ++i) {
    const builder::LibraryResult& library = target.libraries[i];
    bool loads = !library.check || library.check->loads;
    fmt::format_to(line, "{:<13}   {:<18} {}{}\n", "", library.name, library.library.filename().string(),
                   loads ? "" : ": WILL NOT LOAD");
  }
  for (const std::string& skipped : target.skipped) {
    fmt::format_to(line, "{:<13}   skipped {}\n", "", skipped);
  }
  // What the link did to fit the runtime: with -v, and only where a link ran to the end.
  if (!target.portable.empty() && !failed && verbosity() >= Verbosity::verbose) {
    fmt::format_to(line, "{:<14}portable: {}\n", "", target.portable);
  }
  if (target.cache) {
    fmt::format_to(line, "{:<14}ccache: {} hit{} ({} remote), {} miss{}\n", "", target.cache->hits,
                   target.cache->hits == 1 ? "" : "s", target.cache->remote_hits, target.cache->misses,
                   target.cache->misses == 1 ? "" : "es");
  }
  return out;
}

// Prints the target's lines, and returns them.
std::string
print_target(const builder::TargetResult& target)
{
  std::string text = target_text(target);
  fmt::print("{}", text);
  for (const builder::LibraryResult& library : target.libraries) {
    if (library.check && !library.check->loads) {
      print_check_report(*library.check, stdout);
    }
  }
  return text;
}

// A no-op to keep (build/noop_record): every target ran nothing, and all is well.
bool
keepable(const builder::BuildReport& report)
{
  return !report.dry_run && report.ok()
         && std::all_of(report.targets.begin(), report.targets.end(), [](const builder::TargetResult& target) {
              return target.loads() && (target.up_to_date || target.nothing_to_build);
            });
}

// --dry-run: each target's steps, as ninja would run them from the build folder.
void
print_planned(const builder::TargetResult& target)
{
  if (target.nothing_to_build) {
    fmt::print("{:<13} would skip: no library is for TensorFlow {}\n", target.dir.filename().string(), target.version);
    for (const std::string& skipped : target.skipped) {
      fmt::print("{:<13}   skipped {}\n", "", skipped);
    }
    return;
  }
  auto count = [&](const char* kind) {
    return std::count_if(target.steps.begin(), target.steps.end(),
                         [&](const builder::PlannedStep& step) { return step.kind == kind; });
  };
  fmt::print("{:<13} would run {} compile{} and {} link{} from {}/ (ninja runs only what is out of date)\n",
             target.dir.filename().string(), count("compile"), count("compile") == 1 ? "" : "s", count("link"),
             count("link") == 1 ? "" : "s", builder::shown_path(target.dir.parent_path()));
  for (const builder::PlannedStep& step : target.steps) {
    fmt::print("  {}\n", step.command);
  }
  for (const std::string& skipped : target.skipped) {
    fmt::print("{:<13}   skipped {}\n", "", skipped);
  }
}

} // namespace

void
add_build_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static FrameworkVersions versions;
  static builder::BuildOptions options;
  static int abi = -1;
  static int standard = -1;
  static std::string build_dir;
  CLI::App* cmd = app.add_subcommand("build", "Compile the op for each framework version (--tf, --torch), in parallel");
  add_framework_versions(
    cmd, versions,
    "Versions or SDK ids to build, e.g. 1.12,2.10.1,tensorflow-2.10.1-cuda, or a range of the imported SDKs, e.g. "
    "'>=2.16' (default: opkit.yaml's targets)",
    "build");
  cmd->add_option("--lib", options.libraries, "Build only these libraries of opkit.yaml (repeatable)");
  cmd
    ->add_option("--python", options.pythons,
                 "The CPythons to build Python modules (opkit.yaml's python_module) for, e.g. 3.10,3.11 (default: "
                 "the Python of each release's venv)")
    ->delimiter(',');
  cmd->add_option("-j,--jobs", options.jobs, "Parallel compile jobs (default: number of CPUs)")
    ->check(CLI::PositiveNumber);
  cmd->add_option("--build-dir", build_dir, "Build folder (default: <project>/build)");
  cmd->add_option("--abi", abi, "Override _GLIBCXX_USE_CXX11_ABI (to reproduce a mismatch)")
    ->check(CLI::IsMember({0, 1}));
  cmd->add_option("--std", standard, "Override the C++ standard (to reproduce a mismatch)")
    ->check(CLI::IsMember({11, 14, 17, 20}));
  static bool no_check = false;
  static std::string profile;
  cmd->add_flag("--no-check", no_check, "Skip opkit check on the linked libraries");
  static bool cache = false;
  static bool no_cache = false;
  cmd->add_flag("--cache", cache, "Compile through ccache (default: when installed; opkit.yaml's build.cache)");
  cmd->add_flag("--no-cache", no_cache, "Compile without ccache, whatever the settings say")->excludes("--cache");
  static bool no_pch = false;
  cmd->add_flag("--no-pch", no_pch, "Compile every source plainly, without the SDK's precompiled header");
  cmd->add_flag(
    "--static", options.static_archive,
    "Also build lib<name>.a; link it with -Wl,--whole-archive (or Bazel alwayslink) so registrations survive");
  offer_values(cmd->add_option("--runtime", options.runtime,
                               "Runtime to check against: host or a configs/runtimes policy (default: opkit.yaml's "
                               "targets.runtime, else the one each TF version's wheel assumes)"),
               runtime_names);
  cmd->add_option("--profile", profile, "Check against a profile captured on the target");
  offer_values(cmd->add_option("--cpu", options.cpu,
                               "Compile for a CPU baseline from configs/cpu/baselines.yaml (-march) and check "
                               "against it; none: no CPU check (default: the compiler's default code, checked "
                               "against the runtime's CPU)"),
               cpu_baseline_names);
  static bool no_wait = false;
  cmd->add_flag("--no-wait", no_wait, k_no_wait_help);
  cmd->add_flag("--dry-run", options.dry_run,
                "Print each target's compiles and links (the commands ninja would run); write nothing");
  add_json_flag(cmd, global.json, "opkit.build/1", "Print the report as JSON");
  static std::string popart_sdk;
  cmd->add_option("--popart-sdk", popart_sdk, "popart-op projects: the PopART SDK (default: $POPART_SDK)")
    ->type_name("DIR");
  cmd->callback([&exit_code, &global] {
    // The same call as a kept no-op, with nothing changed: its output, at once.
    std::optional<builder::NoopCall> noop;
    if (!options.dry_run && abi < 0 && standard < 0) {
      noop = builder::noop_call(build_dir);
    }
    if (std::optional<builder::NoopOutput> kept = noop ? builder::replay_noop(*noop) : std::nullopt) {
      for (const std::string& note : kept->notes) {
        log_line(Verbosity::normal, "", note);
      }
      fmt::print("{}", kept->printed);
      return;
    }
    LogTap notes; // what this build logs, kept with it when it is a no-op
    project::Manifest manifest = project::load_manifest(".");
    project::TemplateSpec spec = project::load_template_spec(manifest.template_name);
    if (spec.kind == project::TemplateKind::python) {
      if (global.json) { // no targets: nothing to compile
        builder::BuildReport none;
        none.dry_run = options.dry_run;
        fmt::print("{}\n", json_text(builder::to_json(none), 2));
      } else {
        fmt::print("nothing to compile: a {} project is Python; `opkit test` runs it\n", manifest.template_name);
      }
      return;
    }
    if (spec.kind == project::TemplateKind::popart) {
      builder::PopartBuildResult result =
        builder::build_popart(manifest, builder::find_popart_sdk(popart_sdk), options.jobs > 0 ? options.jobs : 2);
      fmt::print("{}: {}\n", manifest.name, result.ok ? "built with the PopART SDK" : "FAILED");
      if (!result.ok) {
        fmt::print(stderr, "{}\n", tail_lines(result.log, 30));
      }
      exit_code = static_cast<int>(result.ok ? ExitCode::ok : ExitCode::failed);
      return;
    }
    options.check = !no_check;
    options.pch = !no_pch;
    options.wait = !no_wait;
    if (cache || no_cache) {
      options.cache = cache;
    }
    options.profile_file = profile;
    options.tf_specs = versions.for_framework(manifest.framework);
    options.build_root = build_dir;
    if (abi >= 0) {
      options.overrides.cxx11_abi = abi;
      log_warning("building with _GLIBCXX_USE_CXX11_ABI={} instead of each SDK's own value", abi);
    }
    if (standard >= 0) {
      options.overrides.cxx_standard = standard;
      log_warning("building with -std=c++{} instead of each SDK's own standard", standard);
    }
    builder::BuildReport report = build_on_console(manifest, options);
    builder::NoopOutput printed;
    if (global.json) {
      printed.printed = json_text(builder::to_json(report), 2) + "\n";
      fmt::print("{}", printed.printed);
    } else {
      for (const builder::TargetResult& target : report.targets) {
        if (report.dry_run) {
          print_planned(target);
        } else {
          printed.printed += print_target(target);
        }
      }
    }
    exit_code = static_cast<int>(report.ok() ? ExitCode::ok : ExitCode::failed);
    if (noop && keepable(report)) {
      std::vector<std::filesystem::path> target_dirs;
      for (const builder::TargetResult& target : report.targets) {
        target_dirs.push_back(target.dir);
      }
      printed.notes = notes.lines();
      builder::record_noop(*noop, project::build_root(manifest.root, build_dir), manifest.root, report.watched,
                           target_dirs, printed);
    }
  });
}

} // namespace opkit::cli
