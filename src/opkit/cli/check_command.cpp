#include "opkit/check/profile.hpp"
#include "opkit/check/target.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/cli/junit_reports.hpp"
#include "opkit/cpu/verdict.hpp"
#include "opkit/project/cpu_baselines.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/early_exit.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

namespace opkit::cli {

namespace {

const size_t k_symbols_shown = 8;

// What `opkit build` recorded beside a library it made (opkit-build.json):
// the SDK it was built against, and the runtime if the record names one.
struct BuildRecord
{
  std::filesystem::path file;
  std::string sdk;
  std::string runtime;
};

std::optional<BuildRecord>
build_record_beside(const std::filesystem::path& library)
{
  std::filesystem::path file = library.parent_path() / "opkit-build.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return std::nullopt;
  }
  Json record = Json::parse(fs::read_file(file), nullptr, false);
  if (!record.is_object() || !record.contains("sdk") || !record["sdk"].is_string()) {
    log_warning("{}: not a record opkit build wrote; ignored", file.string());
    return std::nullopt;
  }
  // Only a record that lists this very library speaks for it.
  bool listed = false;
  for (const Json& entry : record.value("libraries", Json::array())) {
    listed = listed
             || (entry.is_object() && entry.contains("file") && entry["file"].is_string()
                 && std::filesystem::path(entry["file"].get<std::string>()).filename() == library.filename());
  }
  if (!listed) {
    return std::nullopt;
  }
  std::string runtime =
    record.contains("runtime") && record["runtime"].is_string() ? record["runtime"].get<std::string>() : "";
  return BuildRecord{file, record["sdk"].get<std::string>(), runtime};
}

// The target one library is judged against: --tf/--profile as given; without
// either, the SDK (and runtime) its opkit-build.json names; else this machine.
// `note` says which, for stderr once the check has read the library (so a bad
// library or target is still the one error line).
struct ChosenTarget
{
  check::CheckTarget target;
  std::string note;
};

ChosenTarget
target_for(const std::filesystem::path& library, const check::TargetOptions& options)
{
  std::optional<BuildRecord> record = build_record_beside(library);
  if (!record) {
    return {check::make_check_target(options),
            fmt::format("{}: no --tf and no opkit-build.json beside it: judging against this machine's libraries, "
                        "without a framework (pass --tf V for a TensorFlow target)",
                        library.string())};
  }
  check::TargetOptions recorded = options;
  recorded.tf_spec = record->sdk;
  if (recorded.runtime.empty()) {
    recorded.runtime = record->runtime;
  }
  return {check::make_check_target(recorded),
          fmt::format("{}: judging against {}{}, as {} records (--tf overrides)", library.string(), record->sdk,
                      recorded.runtime.empty() ? "" : " on " + recorded.runtime, record->file.string())};
}

} // namespace

std::vector<std::string>
cpu_baseline_names()
{
  std::vector<std::string> names = {"none"};
  for (const project::CpuBaseline& baseline : project::cpu_baselines()) {
    names.push_back(baseline.name);
  }
  return names;
}

std::vector<std::string>
runtime_names()
{
  std::vector<std::string> names = {"host"};
  for (const std::string& name : project::runtime_policy_names()) {
    names.push_back(name);
  }
  return names;
}

void
print_check_report(const check::CheckReport& report, std::FILE* out)
{
  fmt::print(out, "{}: {} against {}\n", report.library, report.loads ? "loads" : "WILL NOT LOAD", report.target);
  std::map<std::string, std::string> remedies_shown; // remedy -> the kind it was shown with
  for (const check::Finding& finding : report.findings) {
    fmt::print(out, "  {} [{}] {}\n", finding.fatal ? "error" : "warning", finding.kind, finding.summary);
    for (size_t i = 0; i < finding.symbols.size() && i < k_symbols_shown; ++i) {
      const check::SymbolRef& symbol = finding.symbols[i];
      fmt::print(out, "      {}{}\n", symbol.demangled, symbol.version.empty() ? "" : "@" + symbol.version);
      if (symbol.demangled != symbol.mangled) {
        fmt::print(out, "        ({})\n", symbol.mangled);
      }
      for (const std::string& user : symbol.used_by) {
        fmt::print(out, "        used by {}\n", user);
      }
    }
    if (finding.symbols.size() > k_symbols_shown) {
      fmt::print(out, "      ... and {} more (--json lists all)\n", finding.symbols.size() - k_symbols_shown);
    }
    // A remedy shared by several findings (a prebuilt library's) is shown once.
    auto [shown, first] = remedies_shown.emplace(finding.remedy, finding.kind);
    fmt::print(out, "    why: {}\n    fix: {}\n", finding.diagnosis,
               first ? finding.remedy : fmt::format("as for [{}] above", shown->second));
  }
}

void
add_check_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static std::vector<std::string> libraries;
  static check::TargetOptions options;
  CLI::App* cmd = app.add_subcommand("check", "Decide statically whether an op library will load in a target runtime");
  cmd->add_option("library", libraries, "The op libraries to check")->required();
  static FrameworkVersion version;
  add_framework_version(cmd, version,
                        "The target's TensorFlow version (its imported SDK supplies the framework; default: the SDK "
                        "the opkit-build.json beside the library names, else none: this machine)",
                        "judged as its Python loads an op");
  CLI::Option* runtime =
    cmd->add_option("--runtime", options.runtime,
                    "The target's system libraries: host, or a policy from configs/runtimes (default: the one the TF "
                    "version's wheel assumes)");
  offer_values(runtime, runtime_names);
  cmd->add_option("--profile", options.profile_file, "A profile captured on the target (`opkit profile capture`)");
  CLI::Option* cpu =
    cmd->add_option("--cpu", options.cpu,
                    "The target's CPU: a baseline from configs/cpu/baselines.yaml, or none: no CPU check "
                    "(default: the runtime's, e.g. x86-64-v2; this machine's CPU for host; a profile's own)");
  offer_values(cpu, cpu_baseline_names);
  add_json_flag(cmd, global.json, "opkit.check/1", "Print the report as JSON");
  static std::string junit;
  add_junit_option(cmd, junit);
  cmd->callback([&global, &exit_code] {
    for (const std::string& library : libraries) {
      fs::require_file(library, "library");
    }
    auto [framework, spec] = version.chosen();
    if (!framework.empty()) {
      options.tf_spec = spec;
      options.framework = framework;
    }
    // One target for all, unless each library's own build record decides.
    std::optional<check::CheckTarget> shared;
    if (!options.tf_spec.empty() || !options.profile_file.empty()) {
      shared = check::make_check_target(options);
    }
    std::vector<check::CheckReport> reports;
    for (const std::string& library : libraries) {
      std::optional<ChosenTarget> chosen;
      if (!shared) {
        chosen = target_for(library, options);
      }
      check::CheckTarget& target = shared ? *shared : chosen->target;
      target.prebuilt = !build_record_beside(library).has_value();
      reports.push_back(check::check_library(library, target));
      cpu::add_cpu_findings(reports.back(), library, target.profile.cpu, target.profile.name);
      if (chosen) {
        log_info("{}", chosen->note);
      }
    }
    if (!junit.empty()) {
      write_junit(junit, "opkit check", junit_suites(reports));
    }
    bool all_load = true;
    Json documents = Json::array();
    for (const check::CheckReport& report : reports) {
      all_load = all_load && report.loads;
      if (global.json) {
        documents.push_back(check::to_json(report));
      } else {
        print_check_report(report, stdout);
      }
    }
    if (global.json) {
      fmt::print("{}\n", json_text(documents.size() == 1 ? documents[0] : documents, 2));
    }
    exit_code = static_cast<int>(all_load ? ExitCode::ok : ExitCode::failed);
    // The report is out and nothing is left to finish: the targets' mapped
    // indexes and tables are the kernel's to free, all at once.
    exit_now_unless_sanitized(exit_code);
  });
}

void
add_profile_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static std::vector<std::string> libraries;
  static std::string output;
  static std::string name = "captured";
  static std::string root;
  CLI::App* cmd = app.add_subcommand("profile", "Record or list the runtimes opkit check judges against");
  cmd->require_subcommand(1);
  CLI::App* capture = cmd->add_subcommand(
    "capture", "Record this machine's libraries (run it on the real target) as a profile for `opkit check --profile`");
  capture->add_option("--lib", libraries,
                      "A library to record before the system libraries (repeatable; e.g. the framework library)");
  capture->add_option("-o,--output", output, "The profile file to write")->required();
  capture->add_option("--name", name, "The profile's name")->capture_default_str();
  capture->add_option("--root", root,
                      "Record the system unpacked in this folder (a debootstrap root, a `docker export`) "
                      "instead of this machine's, reading its files without running anything");
  capture->callback([&exit_code] {
    std::vector<std::filesystem::path> paths(libraries.begin(), libraries.end());
    check::Profile profile = check::capture_profile(paths, name, root);
    fs::write_file_atomic(output, json_text(check::to_json(profile)) + "\n");
    fmt::print("{}: {} libraries ({})\n", output, profile.libraries.size(), profile.name);
    exit_code = 0;
  });
  CLI::App* script = cmd->add_subcommand("script", "Print a sh script that records a target opkit cannot run on "
                                                   "(`sh capture.sh [--name N] [--lib PATH]... > profile.json`, "
                                                   "needs only Python 2.7 or 3): the profile `capture` would write");
  script->callback([&exit_code] {
    fmt::print("{}", require_embedded("templates/profile/capture_profile.sh"));
    exit_code = 0;
  });
  CLI::App* list = cmd->add_subcommand("list", "List the runtimes opkit check judges against: host and the policies "
                                               "in configs/runtimes");
  add_json_flag(list, global.json, "opkit.profile-list/1", "Print the list as JSON");
  list->callback([&global, &exit_code] {
    Json runtimes = Json::array();
    runtimes.push_back(
      {{"name", "host"}, {"kind", "host"}, {"description", "this machine's system libraries, read from disk"}});
    for (const std::string& policy_name : project::runtime_policy_names()) {
      runtimes.push_back({{"name", policy_name},
                          {"kind", "policy"},
                          {"description", project::load_runtime_policy(policy_name).description}});
    }
    if (global.json) {
      fmt::print("{}\n", json_text(Json{{"schema", "opkit.profile-list/1"}, {"runtimes", runtimes}}, 2));
    } else {
      for (const Json& runtime : runtimes) {
        fmt::print("{:<20} {}\n", runtime["name"].get<std::string>(), runtime["description"].get<std::string>());
      }
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
