#include "opkit/cpu/verdict.hpp"

#include "opkit/cpu/isa.hpp"
#include "opkit/cpu/scan.hpp"
#include "opkit/project/cpu_baselines.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <functional>

namespace opkit::cpu {

namespace {

const size_t k_functions_listed = 50;

std::string
features_text(const std::set<std::string>& features)
{
  return join(std::vector<std::string>(features.begin(), features.end()), ", ");
}

// "Init() at load: vpaddd zmm2, zmm1, zmm0 (avx512f, at 0x1139)", one line per function.
check::SymbolRef
function_ref(const FunctionUse& use, const char* where)
{
  std::string text = use.function + where + ":";
  bool first = true;
  for (const auto& [feature, instruction] : use.features) {
    text += fmt::format("{} {} ({}, at {:#x})", first ? "" : ";", instruction.text, feature, instruction.address);
    first = false;
  }
  return {text, text, "", {}};
}

std::set<std::string>
features_of(const std::vector<FunctionUse>& uses)
{
  std::set<std::string> features;
  for (const FunctionUse& use : uses) {
    for (const auto& entry : use.features) {
      features.insert(entry.first);
    }
  }
  return features;
}

Json
findings_json(const std::vector<check::Finding>& findings, const std::string& key)
{
  Json list = Json::array();
  for (const check::Finding& finding : findings) {
    Json symbols = Json::array();
    for (const check::SymbolRef& symbol : finding.symbols) {
      symbols.push_back(symbol.demangled);
    }
    list.push_back({finding.kind, finding.fatal, finding.summary, finding.diagnosis, finding.remedy, symbols});
  }
  return {{"key", key}, {"findings", list}};
}

// The findings a kept file holds (read_kept checked its key); throws on another shape.
std::vector<check::Finding>
findings_from_json(const Json& json)
{
  std::vector<check::Finding> findings;
  for (const Json& item : json.at("findings")) {
    check::Finding finding;
    finding.kind = item.at(0).get<std::string>();
    finding.fatal = item.at(1).get<bool>();
    finding.summary = item.at(2).get<std::string>();
    finding.diagnosis = item.at(3).get<std::string>();
    finding.remedy = item.at(4).get<std::string>();
    for (const Json& symbol : item.at(5)) {
      std::string text = symbol.get<std::string>();
      finding.symbols.push_back({text, text, "", {}});
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

// What a kept file of $OPKIT_HOME/cache/cpu holds, when its "key" is `key`:
// nothing when it is missing, unreadable or made for another file, CPU or opkit.
std::optional<Json>
read_kept(const std::filesystem::path& file, const std::string& key)
{
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    return std::nullopt;
  }
  try {
    Json kept = Json::parse(fs::read_file(file));
    if (kept.is_object() && kept.value("key", "") == key) {
      return kept;
    }
  } catch (const std::exception&) {
    // unreadable: made again and rewritten
  }
  return std::nullopt;
}

// Keeps `value` (with its "key") atomically; a failure only costs a later scan.
void
keep(const std::filesystem::path& file, const Json& value, const std::filesystem::path& library)
{
  try {
    fs::create_dirs(file.parent_path());
    fs::write_file_atomic(file, json_text(value) + "\n");
  } catch (const Error& error) {
    log_debug("cpu: {} of {} not kept: {}", file.filename().string(), library.string(), error.what());
  }
}

} // namespace

std::set<std::string>
load_time_features(const std::filesystem::path& library)
{
  // Kept beside the findings, keyed by the file's stamp and opkit: a framework
  // library (libtensorflow_framework.so.2: about a second) is read once.
  std::filesystem::path absolute = std::filesystem::absolute(library);
  std::string key = fmt::format("cpu-start 1\n{}\n{}\nopkit {}\n", absolute.string(), fs::file_stamp(absolute),
                                fs::file_stamp("/proc/self/exe"));
  std::filesystem::path file = kept_findings_file(absolute) / "at-load.json";
  if (std::optional<Json> kept = read_kept(file, key)) {
    try {
      return kept->at("features").get<std::set<std::string>>();
    } catch (const std::exception&) {
      // not a list of names: scanned again and rewritten
    }
  }
  std::set<std::string> features;
  log_info("reading what {} runs while it loads (once per file) ...", absolute.filename().string());
  try {
    features = features_of(scan_library(absolute).load_time);
  } catch (const Error& error) {
    log_debug("cpu: {} not scanned: {}", library.string(), error.what());
    return features;
  }
  keep(file, Json{{"key", key}, {"features", features}}, library);
  return features;
}

std::optional<TargetCpu>
target_cpu(const check::ProfileCpu& cpu, const std::string& profile_name)
{
  if (!cpu.baseline.empty()) {
    const project::CpuBaseline& baseline = project::cpu_baseline(cpu.baseline);
    TargetCpu target{baseline.name, baseline.features};
    if (cpu.framework.empty()) {
      return target;
    }
    // A policy's default: no process of the framework runs on a CPU without
    // what its wheels are documented to need and what it runs at load.
    std::set<std::string> needs(cpu.framework_floor.begin(), cpu.framework_floor.end());
    if (!cpu.framework_library.empty()) {
      std::set<std::string> at_load = load_time_features(cpu.framework_library);
      needs.insert(at_load.begin(), at_load.end());
    }
    std::set<std::string> added;
    for (const std::string& feature : needs) {
      if (target.features.insert(feature).second) {
        added.insert(feature);
      }
    }
    if (!added.empty()) {
      target.name =
        fmt::format("{} with {} (the least {} itself starts on)", baseline.name, features_text(added), cpu.framework);
    }
    return target;
  }
  if (cpu.flags.empty()) {
    return std::nullopt;
  }
  TargetCpu target;
  target.name = fmt::format("{} ({})", cpu.model.empty() ? "the CPU" : cpu.model, profile_name);
  for (const std::string& flag : cpu.flags) {
    std::string feature = feature_from_cpuinfo_flag(flag);
    if (!feature.empty()) {
      target.features.insert(feature);
    }
  }
  // The x86-64 baseline's features are never reported by a scan, and every such CPU has them.
  const project::CpuBaseline& floor = project::cpu_baselines().front();
  target.features.insert(floor.features.begin(), floor.features.end());
  return target;
}

namespace {

std::vector<check::Finding>
cpu_findings(const std::filesystem::path& library, const TargetCpu* target)
{
  std::vector<check::Finding> findings;
  CpuScan scan;
  try {
    scan = scan_library(library);
  } catch (const Error& error) {
    log_debug("cpu: {} not scanned: {}", library.string(), error.what());
    return findings; // not x86-64 code opkit reads: the ELF checks speak for it
  }
  Exceeding over = exceeding(scan, target->features);
  std::string partial = scan.complete ? "" : " (the scan stopped at its limit: there may be more)";
  if (!over.load_time.empty()) {
    check::Finding finding;
    finding.kind = "cpu-feature-at-load";
    std::set<std::string> features = features_of(over.load_time);
    finding.summary = fmt::format("runs {} instructions while it loads, which {} lacks: dlopen dies of SIGILL "
                                  "(illegal instruction)",
                                  features_text(features), target->name);
    finding.diagnosis = fmt::format("the loader runs the library's initializers (DT_INIT, DT_INIT_ARRAY: static "
                                    "constructors) and what they call before dlopen returns; the first instruction "
                                    "each needs is named above{}",
                                    partial);
    finding.remedy = "compile that code for the target's CPU (opkit build --cpu BASELINE, i.e. -march), or keep it out "
                     "of static initialization and choose it at run time (__builtin_cpu_supports)";
    for (const FunctionUse& use : over.load_time) {
      finding.symbols.push_back(function_ref(use, " at load"));
    }
    findings.push_back(std::move(finding));
  }
  if (!over.load_time_guarded.empty()) {
    // Dispatch: the library already does what the at-load remedy says.
    check::Finding finding;
    finding.kind = "cpu-dispatch-at-load";
    finding.fatal = false;
    const FunctionUse& first = over.load_time_guarded.front();
    finding.summary =
      fmt::format("runs {} instructions while it loads only behind a CPU test ({} in {}): on {} "
                  "the loader skips them, if the test asks for them",
                  features_text(features_of(over.load_time_guarded)), first.test, first.guarded_by, target->name);
    finding.diagnosis = fmt::format("the code follows a test of the CPU (cpuid, xgetbv, or libgcc's __cpu_model, "
                                    "which __builtin_cpu_supports reads) and a branch on its answer; opkit does not "
                                    "read which feature the test asks for{}",
                                    partial);
    finding.remedy = "nothing to change if the test asks for these features; otherwise test for each of them";
    for (const FunctionUse& use : over.load_time_guarded) {
      finding.symbols.push_back(
        function_ref(use, fmt::format(" at load behind {} in {}", use.test, use.guarded_by).c_str()));
    }
    findings.push_back(std::move(finding));
  }
  if (!over.other.empty()) {
    check::Finding finding;
    finding.kind = "cpu-feature";
    finding.fatal = false;
    std::set<std::string> features = features_of(over.other);
    finding.summary =
      fmt::format("{} function{} use{} {}, which {} lacks: calling {} there dies of SIGILL", over.other.size(),
                  over.other.size() == 1 ? "" : "s", over.other.size() == 1 ? "s" : "", features_text(features),
                  target->name, over.other.size() == 1 ? "it" : "them");
    finding.diagnosis =
      scan.cpuid_dispatch
        ? fmt::format("the library chooses code at run time ({}): such code may never run on that CPU, which "
                      "opkit cannot see statically{}",
                      join(scan.dispatch_evidence, ", "), partial)
        : fmt::format("none of it runs while the library loads; the library shows no run-time choice (cpuid, "
                      "ifunc, __builtin_cpu_supports){}",
                      partial);
    finding.remedy = "if these run on that CPU, compile for it (opkit build --cpu BASELINE) or dispatch on "
                     "__builtin_cpu_supports; code behind a cpuid check is fine";
    for (size_t i = 0; i < over.other.size() && i < k_functions_listed; ++i) {
      finding.symbols.push_back(function_ref(over.other[i], ""));
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

} // namespace

std::filesystem::path
kept_findings_file(const std::filesystem::path& library)
{
  // Named by a digest of the path; the key inside each file decides. Not
  // SHA-256: that would load libcrypto, a third of a repeat check's time.
  std::filesystem::path absolute = std::filesystem::absolute(library);
  return sdk::opkit_home() / "cache" / "cpu" / fmt::format("{:016x}", std::hash<std::string>{}(absolute.string()));
}

std::vector<std::filesystem::path>
kept_findings_folders(const std::function<bool(const std::optional<std::filesystem::path>& library)>& whose)
{
  std::vector<std::filesystem::path> folders;
  std::error_code ec;
  for (const auto& folder : std::filesystem::directory_iterator(sdk::opkit_home() / "cache" / "cpu", ec)) {
    if (!folder.is_directory(ec) || folder.is_symlink(ec)) {
      continue;
    }
    // Every kept file's key is "<kind>\n<the library's absolute path>\n...".
    std::optional<std::filesystem::path> library;
    for (const auto& file : std::filesystem::directory_iterator(folder.path(), ec)) {
      try {
        std::vector<std::string> lines = split(Json::parse(fs::read_file(file.path())).value("key", ""), '\n');
        if (lines.size() > 1 && !lines[1].empty()) {
          library = lines[1];
          break;
        }
      } catch (const std::exception&) {
        // unreadable: it names no library
      }
    }
    if (whose(library)) {
      folders.push_back(folder.path());
    }
  }
  return folders;
}

void
collect_gone_findings(sdk::GcReport& report)
{
  for (const std::filesystem::path& folder :
       kept_findings_folders([](const std::optional<std::filesystem::path>& library) {
         std::error_code ec;
         return !library || !std::filesystem::exists(*library, ec);
       })) {
    report.drop(folder);
  }
}

namespace {

// What every kept file of one check shares in its key: the CPU as text, and opkit's own stamp.
struct KeptKey
{
  std::string cpu_text;
  std::string opkit_stamp;
};

// `library`'s findings against `target`, kept per library in
// $OPKIT_HOME/cache/cpu, keyed by the file's stamp, the CPU and opkit: an
// unchanged library is not read again.
std::vector<check::Finding>
kept_cpu_findings(const std::filesystem::path& library, const TargetCpu& target, const KeptKey& common)
{
  std::filesystem::path absolute = std::filesystem::absolute(library);
  const std::string& cpu_text = common.cpu_text;
  std::string key = fmt::format("cpu 2\n{}\n{}\nopkit {}\ncpu {}\n", absolute.string(), fs::file_stamp(absolute),
                                common.opkit_stamp, cpu_text);
  // One file per CPU: checks that alternate runtimes read each one's kept findings.
  std::filesystem::path file =
    kept_findings_file(absolute) / fmt::format("cpu-{:016x}.json", std::hash<std::string>{}(cpu_text));
  if (std::optional<Json> kept = read_kept(file, key)) {
    try {
      return findings_from_json(*kept);
    } catch (const std::exception&) {
      // not findings: scanned again and rewritten
    }
  }
  std::vector<check::Finding> findings = cpu_findings(library, &target);
  keep(file, findings_json(findings, key), library);
  return findings;
}

} // namespace

void
add_cpu_findings(check::CheckReport& report, const std::filesystem::path& library, const check::ProfileCpu& cpu,
                 const std::string& profile_name)
{
  std::optional<TargetCpu> target = target_cpu(cpu, profile_name);
  if (!target) {
    return;
  }
  KeptKey common{fmt::format("{}: {}", target->name, features_text(target->features)),
                 fs::file_stamp("/proc/self/exe")};
  std::vector<check::Finding> findings = kept_cpu_findings(library, *target, common);
  // The libraries the loader maps with it run their initializers in the same
  // dlopen: what they run at load is the op's load too. What their other
  // code needs is theirs, called only through the op.
  for (const check::MappedLibrary& mapped : report.mapped) {
    for (check::Finding& finding : kept_cpu_findings(mapped.path, *target, common)) {
      if (finding.kind == "cpu-feature-at-load" || finding.kind == "cpu-dispatch-at-load") {
        finding.summary =
          fmt::format("{}, which the loader maps with it (needed by {}), {}",
                      std::filesystem::path(mapped.path).filename().string(), mapped.needed_by, finding.summary);
        findings.push_back(std::move(finding));
      }
    }
  }
  for (check::Finding& finding : findings) {
    report.loads = report.loads && !finding.fatal;
    report.findings.push_back(std::move(finding));
  }
}

} // namespace opkit::cpu
