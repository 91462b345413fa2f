#include "opkit/builder/run_build.hpp"

#include "opkit/builder/check_cache.hpp"
#include "opkit/builder/compile_db.hpp"
#include "opkit/builder/diagnostics.hpp"
#include "opkit/builder/ninja_output.hpp"
#include "opkit/builder/portable.hpp"
#include "opkit/builder/toolchain.hpp"
#include "opkit/check/target.hpp"
#include "opkit/cpu/verdict.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <chrono>
#include <future>
#include <map>

namespace opkit::builder {

namespace stdfs = std::filesystem;

int
count_pch_compiles(const TargetPlan& plan)
{
  return static_cast<int>(std::count_if(plan.compiles.begin(), plan.compiles.end(), [](const CompileStep& step) {
    return std::find(step.flags.begin(), step.flags.end(), "-Winvalid-pch") != step.flags.end(); // only with the PCH
  }));
}

namespace {

// opkit check on a linked library, unless the library and the target are
// exactly as they were at the last check (its verdict, kept beside the library, stands).
void
check_built_library(LibraryResult& result, const sdk::Sdk& sdk, const std::string& runtime,
                    const stdfs::path& profile_file, const std::string& cpu)
{
  stdfs::path cache = result.library.parent_path() / (result.library.filename().string() + ".opkit-check.json");
  CheckCacheKey key = check_cache_key(result.library, sdk, runtime, profile_file, cpu);
  result.check = load_cached_check(cache, key);
  if (result.check) {
    result.check_reused = true;
    log_debug("check: {} is unchanged since its last check: verdict reused", result.library);
  } else {
    log_debug("check: {} against {}", result.library, sdk.id);
    // A Python module's process is the interpreter its file is named for.
    check::CheckTarget target =
      check::make_check_target(sdk, runtime, profile_file, check::python_of_module_file(result.library));
    check::apply_cpu_option(target.profile, cpu);
    result.check = check::check_library(result.library, target);
    cpu::add_cpu_findings(*result.check, result.library, target.profile.cpu, target.profile.name);
    store_check(cache, key, *result.check);
  }
}

// What a library of the plan links, as paths: its objects, and the archives
// (the portable libstdc++ members) its link takes.
struct LinkInputs
{
  std::vector<stdfs::path> objects;
  std::vector<stdfs::path> archives;
};

LinkInputs
link_inputs(const TargetPlan& plan, const std::string& library)
{
  LinkInputs inputs;
  auto place = [&plan](const std::string& path) {
    return stdfs::path(path).is_absolute() ? stdfs::path(path) : plan.build_dir / path;
  };
  for (const LinkStep& link : plan.links) {
    if (link.library == library) {
      std::transform(link.objects.begin(), link.objects.end(), std::back_inserter(inputs.objects), place);
      std::transform(link.archives.begin(), link.archives.end(), std::back_inserter(inputs.archives), place);
    }
  }
  return inputs;
}

// Runs each task, at most `limit` at once.
void
run_bounded(const std::vector<std::function<void()>>& tasks, int limit)
{
  std::vector<std::future<void>> running;
  for (const std::function<void()>& task : tasks) {
    if (static_cast<int>(running.size()) >= std::max(1, limit)) {
      running.front().get();
      running.erase(running.begin());
    }
    running.push_back(std::async(std::launch::async, task));
  }
  for (std::future<void>& done : running) {
    done.get();
  }
}

// What ninja did for one target.
struct TargetSteps
{
  int steps = 0;
  int compiled = 0;
  bool failed = false;
  double last = 0; // seconds from the build's start to its last step
  std::string log;
  std::string full_disk; // the first step that failed saying the disk is full, and its line saying so
};

// "STEP: the tool's line" when a failed step says the disk is full ("...: No
// space left on device": the line tells which file, so which disk), ending
// with that cause however the tool quoted it (full_disk_line), else "".
std::string
full_disk_step(const NinjaStep& step)
{
  if (!step.failed) {
    return "";
  }
  for (const std::string& line : split(strip_ansi(step.output), '\n')) {
    if (std::string said = full_disk_line(trim(line)); !said.empty()) {
      return fmt::format("{}: {}", step.description, escape_clipped(said, 500));
    }
  }
  return "";
}

// A build that failed for want of disk space (a compiler, the linker or ninja
// said "No space left on device") ends with that as its one error, exit 4:
// no failed target is to blame, and its build.log could not be written.
void
refuse_full_disk(const std::map<std::string, TargetSteps>& steps, const std::string& ninja_text,
                 const stdfs::path& build_root)
{
  const std::string no_space = std::strerror(ENOSPC);
  for (const auto& [target, done] : steps) {
    if (!done.full_disk.empty()) {
      fail(ExitCode::system, "{}: cannot build {}", build_root, done.full_disk);
    }
  }
  if (ninja_text.find(no_space) != std::string::npos) {
    fail(ExitCode::system, "{}: cannot build: {}", build_root, no_space);
  }
}

// A step as build.log keeps it: ninja's lines, without colours.
std::string
step_log(const NinjaStep& step)
{
  std::string text = fmt::format("[{}/{}] {}\n", step.finished, step.total, step.description);
  if (step.failed) {
    text += "FAILED: " + step.description + "\n" + strip_ansi(step.command) + "\n";
  }
  return text + strip_ansi(step.output);
}

// Removes what killed or failed links left in `plan`'s folder: each output's
// "<output>.<pid>.tmp". The caller holds the build folder's lock, so no link runs.
void
remove_link_leftovers(const TargetPlan& plan)
{
  std::vector<std::string> outputs;
  for (const LinkStep& link : plan.links) {
    outputs.push_back(stdfs::path(link.output).filename().string() + ".");
    if (!link.static_output.empty()) {
      outputs.push_back(stdfs::path(link.static_output).filename().string() + ".");
    }
  }
  std::error_code ec;
  for (stdfs::directory_iterator it(plan.build_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    for (const std::string& output : outputs) {
      std::string_view pid = std::string_view(name).substr(std::min(name.size(), output.size()));
      if (starts_with(name, output) && ends_with(pid, ".tmp") && pid.size() > 4
          && pid.find_first_not_of("0123456789") == pid.size() - 4) {
        std::error_code ignored;
        stdfs::remove(it->path(), ignored);
      }
    }
  }
}

// The plan each target builds with, and the seconds it spent making its PCH (0: none made now).
struct ChosenPlans
{
  std::vector<const TargetPlan*> plans;
  std::vector<double> pch_seconds;
};

// Writes what the plans need, then makes the PCHs (at most `jobs` at once: they
// are compiles too).
ChosenPlans
prepare_files(std::vector<PreparedTarget>& targets, int jobs)
{
  std::vector<const TargetPlan*> chosen(targets.size());
  std::vector<double> pch_seconds(targets.size(), 0.0);
  std::vector<std::function<void()>> pchs;
  for (size_t i = 0; i < targets.size(); ++i) {
    PreparedTarget& target = targets[i];
    chosen[i] = &target.plan;
    if (target.nothing_to_build) {
      continue; // no folder, no build.ninja: the top-level one leaves it out
    }
    fs::create_dirs(target.plan.build_dir);
    remove_link_leftovers(target.plan);
    for (const auto& [path, text] : target.files) {
      fs::create_dirs(path.parent_path());
      fs::write_file_if_changed(path, text);
    }
    for (const auto& [link, to] : target.links) {
      fs::create_dirs(link.parent_path());
      fs::write_symlink(link, to);
    }
    if (target.pch) {
      chosen[i] = &target.plain;
      pchs.emplace_back([&target, &chosen, &pch_seconds, i] {
        PchOutcome pch = ensure_pch(*target.pch);
        pch_seconds[i] = pch.seconds;
        if (pch.usable) {
          chosen[i] = &target.plan;
        }
      });
    }
  }
  run_bounded(pchs, jobs);
  return {chosen, pch_seconds};
}

// The runtime an existing opkit-build.json records; nullopt when there is none
// (or it is not one opkit wrote), so that it is written anew.
std::optional<std::string>
recorded_runtime(const stdfs::path& info)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(info, ec)) {
    return std::nullopt;
  }
  Json record = Json::parse(fs::read_file(info), nullptr, false);
  if (!record.is_object() || !record.contains("runtime") || !record["runtime"].is_string()) {
    return std::nullopt;
  }
  return record["runtime"].get<std::string>();
}

// The linked libraries' facts, the cache's counters and the checks, after ninja.
TargetResult
finish_target(TargetResult result, const PreparedTarget& target, const TargetPlan& plan, const BuildOptions& options,
              const RunSettings& settings)
{
  auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  if (settings.ccache && !result.up_to_date) { // its stats log says what hit
    result.cache = parse_ccache_stats_log(stdfs::exists(target.stats_log, ec) ? fs::read_file(target.stats_log) : "");
  }
  stdfs::path info = plan.build_dir / "opkit-build.json";
  if (result.ok && !plan.links.empty() && (!result.up_to_date || recorded_runtime(info) != target.runtime)) {
    Json record = build_info_json(target.sdk, plan, target.runtime, settings.compiler_version());
    // What `opkit package` checks the library against before packing it.
    for (Json& entry : record["libraries"]) {
      stdfs::path file = plan.build_dir / entry["file"].get<std::string>();
      entry["sha256"] = sha256_hex_file(file);
      entry["size"] = stdfs::file_size(file);
    }
    fs::write_file_if_changed(info, json_text(record, 2) + "\n");
  }
  if (result.ok && options.check) {
    for (LibraryResult& library : result.libraries) {
      check_built_library(library, target.sdk, target.runtime, options.profile_file, target.cpu);
      if (!library.check->loads && !target.portable.empty()) {
        LinkInputs inputs = link_inputs(plan, library.name);
        name_users_of_unbound_glibc_symbols(*library.check, inputs.objects, inputs.archives);
      }
    }
    result.ok = result.loads();
  }
  result.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

TargetResult
target_result(const PreparedTarget& target, const TargetPlan& plan)
{
  TargetResult result;
  result.spec = target.spec;
  result.sdk_id = target.sdk.id;
  result.version = target.sdk.version.str();
  result.dir = plan.build_dir;
  result.skipped = target.skipped;
  result.nothing_to_build = target.nothing_to_build;
  result.ok = target.nothing_to_build; // a skip; the others' results come from ninja
  result.portable = target.portable;
  result.pch_compiles = count_pch_compiles(plan);
  for (const LinkStep& link : plan.links) {
    result.libraries.push_back({link.library, plan.build_dir / link.output, false, {}});
  }
  return result;
}

} // namespace

BuildReport
plan_report(const std::vector<PreparedTarget>& targets)
{
  BuildReport report;
  report.dry_run = true;
  for (const PreparedTarget& target : targets) {
    TargetResult result = target_result(target, target.plan);
    result.ok = true;
    result.steps = target.nothing_to_build ? std::vector<PlannedStep>() : planned_steps(target.plan);
    report.targets.push_back(result);
  }
  return report;
}

BuildReport
run_targets(std::vector<PreparedTarget>& targets, const BuildOptions& options, const RunSettings& settings)
{
  ChosenPlans prepared = prepare_files(targets, settings.jobs);
  const std::vector<const TargetPlan*>& chosen = prepared.plans;
  std::vector<std::string> subninjas;
  std::vector<ConsoleTarget> named;
  for (size_t i = 0; i < targets.size(); ++i) {
    const TargetPlan& plan = *chosen[i];
    if (targets[i].nothing_to_build) {
      continue;
    }
    fs::write_file_if_changed(plan.build_dir / "build.ninja", render_ninja(plan));
    fs::write_file_if_changed(plan.build_dir / "compile_commands.json", render_compile_commands(plan));
    subninjas.push_back((plan.build_dir / "build.ninja").lexically_relative(settings.build_root).generic_string());
    std::error_code ec;
    stdfs::remove(targets[i].stats_log, ec);
    named.push_back({target_label(plan),
                     plan.build_dir / "build.log",
                     {plan.build_dir.string() + "/", output_prefix(plan), targets[i].sdk.root.string()},
                     settings.build_root});
  }
  BuildReport report;
  if (subninjas.empty()) { // every target skipped: no ninja to run
    for (const PreparedTarget& target : targets) {
      report.targets.push_back(target_result(target, target.plan));
    }
    return report;
  }
  fs::write_file_if_changed(settings.build_root / "build.ninja", render_top_ninja(subninjas));
  report.compile_commands = write_root_compile_commands(settings.build_root);

  std::map<std::string, TargetSteps> steps;
  auto start = std::chrono::steady_clock::now();
  BuildObserver silent;
  BuildObserver& observer = options.observer != nullptr ? *options.observer : silent;
  observer.begin(named);
  NinjaOutputParser parser([&observer](const NinjaStep& step) { observer.status(step); },
                           [&](const NinjaStep& step) {
                             TargetSteps& target = steps[step.target];
                             ++target.steps;
                             target.compiled += step.compile() ? 1 : 0;
                             target.failed = target.failed || step.failed;
                             target.last =
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                             target.log += step_log(step);
                             if (target.full_disk.empty()) {
                               target.full_disk = full_disk_step(step);
                             }
                             observer.step(step);
                           });
  ProcessOptions process = compiler_process_options();
  process.cwd = settings.build_root;
  // Ninja keeps the compilers' colours (stripped again here when they are not wanted).
  process.env_set = settings.environment;
  process.env_set.insert({{"NINJA_STATUS", k_ninja_status},
                          {"CLICOLOR_FORCE", "1"},
                          {k_diagnostics_env, join(options.diagnostics_flags, " ")}});
  process.on_stdout = [&parser](std::string_view chunk) { parser.feed(chunk); };
  // -k 0: a target's failure stops no other target.
  ProcessResult ninja = run_process({"ninja", "-k", "0", "-j", std::to_string(settings.ninja_jobs)}, process);
  parser.finish();
  observer.end();
  bool any_failed = std::any_of(steps.begin(), steps.end(), [](const auto& s) { return s.second.failed; });
  std::string ninja_text = parser.ninja_lines() + strip_ansi(ninja.err);
  refuse_full_disk(steps, ninja_text, settings.build_root);

  std::vector<std::future<TargetResult>> finishing;
  for (size_t i = 0; i < targets.size(); ++i) {
    const TargetPlan& plan = *chosen[i];
    if (targets[i].nothing_to_build) {
      TargetResult skipped = target_result(targets[i], plan);
      finishing.push_back(std::async(std::launch::deferred, [skipped] { return skipped; }));
      continue;
    }
    const TargetSteps& done = steps[target_label(plan)];
    TargetResult result = target_result(targets[i], plan);
    // Ninja stopped before any step (a bad build.ninja), or every step of this target ran.
    result.ok = ninja.exit_code == 0 || (any_failed && !done.failed);
    result.up_to_date = result.ok && done.steps == 0;
    result.compiled = done.compiled;
    result.seconds = done.last + prepared.pch_seconds[i]; // the PCH this target made is part of its time
    result.log = done.log + (result.ok ? "" : ninja_text);
    if (result.up_to_date) {
      result.log = "ninja: no work to do.\n";
    }
    result.log_file = plan.build_dir / "build.log";
    fs::write_file_if_changed(result.log_file, result.log);
    finishing.push_back(std::async(std::launch::async, [result, &targets, i, &plan, &options, &settings] {
      return finish_target(result, targets[i], plan, options, settings);
    }));
  }
  for (std::future<TargetResult>& result : finishing) {
    report.targets.push_back(result.get());
  }
  return report;
}

} // namespace opkit::builder
