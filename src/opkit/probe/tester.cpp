#include "opkit/probe/tester.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/check/target.hpp"
#include "opkit/probe/lock.hpp"
#include "opkit/probe/python_process.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/version.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <algorithm>
#include <optional>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

Json
args_json(const std::vector<project::OpArg>& args)
{
  Json list = Json::array();
  for (const project::OpArg& arg : args) {
    list.push_back({{"name", arg.name},
                    {"type", arg.type},
                    {"number_attr", arg.number_attr},
                    {"is_ref", arg.is_ref},
                    {"spec", project::render_arg_spec(arg)}});
  }
  return list;
}

// An op's attr: the registry's fields, and the whole as TensorFlow's attr grammar (`spec`).
Json
op_attrs_json(const std::vector<project::OpAttr>& attrs)
{
  Json list = Json::array();
  for (const project::OpAttr& attr : attrs) {
    Json one = {{"name", attr.name}, {"type", attr.type}, {"allowed", attr.allowed}};
    if (attr.default_value) {
      one["default"] = *attr.default_value;
    }
    if (attr.minimum) {
      one["minimum"] = *attr.minimum;
    }
    one["spec"] = project::render_attr_spec(attr);
    list.push_back(one);
  }
  return list;
}

Json
attrs_json(const std::vector<RegisteredAttr>& attrs)
{
  Json list = Json::array();
  for (const RegisteredAttr& attr : attrs) {
    list.push_back({{"name", attr.name}, {"type", attr.type}, {"allowed", attr.allowed}});
  }
  return list;
}

Json
report_json(const ProbeReport& report)
{
  Json ops = Json::array();
  for (const RegisteredOp& op : report.ops) {
    ops.push_back({{"name", op.name},
                   {"schema", op.schema},
                   {"stateful", op.stateful},
                   {"inputs", args_json(op.inputs)},
                   {"outputs", args_json(op.outputs)},
                   {"attrs", op_attrs_json(op.attrs)}});
  }
  Json kernels = Json::array();
  for (const RegisteredKernel& kernel : report.kernels) {
    kernels.push_back({{"op", kernel.op},
                       {"device", kernel.device},
                       {"label", kernel.label},
                       {"constraints", attrs_json(kernel.constraints)}});
  }
  return {
    {"loaded", report.loaded}, {"error", report.error},         {"tf_version", report.tf_version},        {"ops", ops},
    {"kernels", kernels},      {"functions", report.functions}, {"python_process", report.python_process}};
}

const char* k_lock_file = "opkit.lock";

// The library loaded as its framework's process loads it: in the load probe's
// own process, or in the framework's own Python where only that has what the
// library needs (python_process); a Python module (`spec`'s python_module) imported there by its name.
ProbeReport
probe_library(const sdk::Sdk& sdk, const stdfs::path& probe, const stdfs::path& library,
              const project::LibrarySpec* spec = nullptr)
{
  if (spec != nullptr && !spec->python_module.empty()) {
    std::string reason = fmt::format("it is the Python module {}, which Python imports", spec->python_module);
    log_info("importing {} in {}'s own Python: {}", library.filename(), sdk.id, reason);
    return run_probe_in_python(sdk, probe, library, reason, spec->module_name());
  }
  std::string reason;
  try {
    reason = needs_framework_python(sdk, library);
  } catch (const Error&) {
    // not an ELF opkit reads: the loader's own words say why it does not load
  }
  if (reason.empty()) {
    return run_probe(probe, library, sdk.lib_dir());
  }
  log_info("loading {} in {}'s own Python: {}", library.filename(), sdk.id, reason);
  return run_probe_in_python(sdk, probe, library, reason);
}

// check's target for this machine as the SDK's framework process, made once
// per SDK for all of its libraries; none where check cannot make one.
std::optional<check::CheckTarget>
host_target(const sdk::Sdk& sdk)
{
  try {
    return check::make_check_target(sdk, "host", {});
  } catch (const Error&) {
    return std::nullopt;
  }
}

// check's verdict for this machine as the framework's process (`host`, the
// SDK's), where it is not the probe's: the two should agree, and a user who
// sees one should know why the other said otherwise.
std::string
check_differs(const std::optional<check::CheckTarget>& host, const sdk::Sdk& sdk, const stdfs::path& library,
              const ProbeReport& probed)
{
  if (!host) {
    return "";
  }
  check::CheckReport verdict;
  try {
    verdict = check::check_library(library, *host);
  } catch (const Error&) {
    return ""; // not a library check reads: the loader's words are the whole story
  }
  if (verdict.loads == probed.loaded) {
    return "";
  }
  if (verdict.loads) {
    return "opkit check --runtime host says it loads: it reads the files, the probe ran the load, so what failed "
           "happened while the library ran at load (a registration the framework refused, an initialiser), or "
           "the probe's process lacked what the framework's has";
  }
  auto first = std::find_if(verdict.findings.begin(), verdict.findings.end(),
                            [](const check::Finding& finding) { return finding.fatal; });
  std::string why = first == verdict.findings.end() ? "" : fmt::format(" ([{}] {})", first->kind, first->summary);
  return fmt::format("opkit check --runtime host refuses it{}: the probe's process had what check does not count "
                     "on in {}'s process here",
                     why, sdk.id);
}

// tensorflow-2.10.1-cuda as (2.10.1, the id): SDK ids in version order.
std::pair<project::Version, std::string>
sdk_order(const std::string& id)
{
  std::optional<sdk::SdkIdParts> parts = sdk::parse_sdk_id(id);
  std::string version = parts ? parts->version : "";
  return {project::parse_version(version).value_or(project::Version{}), id};
}

// For each library tested here, each SDK's interface against the one before it
// (SDK ids sorted as versions: tensorflow-1.12.0 before tensorflow-2.10.1).
std::vector<std::string>
version_differences(const LockFile& lock, const TestReport& report)
{
  std::vector<std::string> out;
  std::vector<std::string> libraries;
  for (const TestTarget& target : report.targets) {
    if (std::find(libraries.begin(), libraries.end(), target.library_name) == libraries.end()) {
      libraries.push_back(target.library_name);
    }
  }
  for (const std::string& library : libraries) {
    std::vector<const LockEntry*> entries;
    for (const LockEntry& entry : lock.entries) {
      if (entry.library == library) {
        entries.push_back(&entry);
      }
    }
    std::sort(entries.begin(), entries.end(),
              [](const LockEntry* a, const LockEntry* b) { return sdk_order(a->sdk) < sdk_order(b->sdk); });
    for (size_t i = 1; i < entries.size(); ++i) {
      for (const std::string& line : diff_interfaces(entries[i - 1]->interface, entries[i]->interface)) {
        out.push_back(fmt::format("{}: {} -> {}: {}", library, entries[i - 1]->sdk, entries[i]->sdk, line));
      }
    }
  }
  return out;
}

// Compares each loaded target with its entry of opkit.lock and writes the lock
// when there is something to record and nothing refused (or `update`).
void
check_lock(const project::Manifest& manifest, TestReport& report, bool update)
{
  stdfs::path path = manifest.root / k_lock_file;
  auto [text, old] = read_lock(manifest.root);
  LockFile lock;
  for (const LockEntry& entry : old.entries) {
    if (std::any_of(manifest.libraries.begin(), manifest.libraries.end(),
                    [&](const project::LibrarySpec& l) { return l.name == entry.library; })) {
      lock.put(entry); // a library no longer in opkit.yaml leaves the lock
    }
  }
  bool refused = false;
  for (TestTarget& target : report.targets) {
    if (!target.report.loaded) {
      continue;
    }
    Interface now = interface_of(target.report);
    const LockEntry* before = old.find(target.library_name, target.sdk_id);
    if (before == nullptr) {
      target.lock_state = "recorded";
    } else {
      target.lock_changes = diff_interfaces(before->interface, now);
      target.lock_state = target.lock_changes.empty() ? "same" : update ? "accepted" : "changed";
      refused = refused || target.lock_state == "changed";
    }
    lock.put({target.library_name, target.sdk_id, now});
  }
  report.version_differences = version_differences(lock, report);
  report.lock_file = k_lock_file;
  std::string rendered = render_lock(lock);
  if (refused) {
    report.lock_action = "kept";
  } else if (!text && lock.entries.empty()) {
    report.lock_action = "none"; // no library loaded: nothing to record, no file written
  } else if (!text) {
    report.lock_action = "written";
  } else {
    report.lock_action = rendered == *text ? "unchanged" : "updated";
  }
  if (report.lock_action == "written" || report.lock_action == "updated") {
    fs::write_file_atomic(path, rendered);
  }
}

} // namespace

LockOnDisk
read_lock(const stdfs::path& project_root)
{
  stdfs::path path = project_root / k_lock_file;
  LockOnDisk on_disk;
  if (stdfs::exists(path)) {
    on_disk.text = fs::read_file(path);
    on_disk.lock = parse_lock(*on_disk.text, path.string());
  }
  return on_disk;
}

bool
TestReport::ok() const
{
  return std::all_of(targets.begin(), targets.end(), [](const TestTarget& t) { return t.ok(); });
}

TestReport
test_project(const project::Manifest& manifest, const std::vector<std::string>& specs, const stdfs::path& build_root,
             const std::vector<std::string>& libraries, bool update)
{
  std::vector<std::string> wanted = specs.empty() ? manifest.target_versions : specs;
  if (wanted.empty()) {
    const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
    fail(ExitCode::usage, "no {} versions to test: pass --{} or list them under targets.{}", table.display_name(),
         table.short_name(), manifest.framework);
  }
  std::vector<builder::BuiltTarget> built = builder::find_built_libraries(manifest, wanted, build_root, libraries);
  TestReport report;
  for (const builder::BuiltTarget& one : built) {
    if (one.nothing_built()) {
      report.skipped.push_back(one.skip_line("test"));
    }
    std::optional<check::CheckTarget> host = one.libraries.empty() ? std::nullopt : host_target(one.sdk);
    for (const auto& [library, path] : one.libraries) {
      TestTarget target{one.spec, one.sdk.id, one.sdk.version.str(), library->name, path, {}, {}, true, {}, {}};
      target.framework_library = one.sdk.framework_library;
      log_info("probing {} in {} ...", path.filename(), one.sdk.id);
      target.report = probe_library(one.sdk, ensure_probe(one.sdk), path, library);
      target.check_differs = check_differs(host, one.sdk, path, target.report);
      target.compared = !library->ops.empty() || !library->functions.empty(); // else the lock alone is its contract
      if (target.report.loaded && target.compared) {
        target.differences = compare_with_spec(*library, target.report, one.sdk.cuda.is_cuda_build);
      }
      report.targets.push_back(target);
    }
  }
  check_lock(manifest, report, update);
  return report;
}

TestReport
test_libraries(const std::vector<stdfs::path>& libraries, const std::vector<std::string>& specs,
               const std::string& framework)
{
  if (specs.empty()) {
    fail(ExitCode::usage, "opkit test LIBRARY...: --tf (or --torch) is required (the versions to load them into)");
  }
  for (const stdfs::path& library : libraries) {
    fs::require_file(library, "library");
  }
  TestReport report;
  for (const std::string& spec : specs) {
    sdk::Sdk sdk = sdk::resolve_sdk(spec, framework);
    std::shared_ptr<const fs::FileLock> in_use = sdk::use_sdk(sdk);
    stdfs::path probe = ensure_probe(sdk);
    std::optional<check::CheckTarget> host = host_target(sdk);
    for (const stdfs::path& library : libraries) {
      TestTarget target{spec, sdk.id, sdk.version.str(), library.filename().string(), library, {}, {}, false, {}, {}};
      target.compared = false;
      target.framework_library = sdk.framework_library;
      log_info("probing {} in {} ...", library.filename(), sdk.id);
      target.report = probe_library(sdk, probe, library);
      target.check_differs = check_differs(host, sdk, library, target.report);
      report.targets.push_back(target);
    }
  }
  return report;
}

Json
to_json(const TestReport& report)
{
  Json targets = Json::array();
  for (const TestTarget& target : report.targets) {
    targets.push_back({{"spec", target.spec},
                       {"sdk", target.sdk_id},
                       {"version", target.version},
                       {"library_name", target.library_name},
                       {"library", target.library.string()},
                       {"ok", target.ok()},
                       {"differences", target.differences},
                       {"compared", target.compared},
                       {"lock", {{"state", target.lock_state}, {"changes", target.lock_changes}}},
                       {"probe", report_json(target.report)},
                       {"check_differs", target.check_differs}});
  }
  Json json = {{"schema", "opkit.test/1"}, {"ok", report.ok()}, {"targets", targets}, {"skipped", report.skipped}};
  if (!report.lock_file.empty()) {
    json["lock"] = {{"file", report.lock_file}, {"action", report.lock_action}};
    json["version_differences"] = report.version_differences;
  }
  return json;
}

} // namespace opkit::probe
