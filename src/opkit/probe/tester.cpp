#include "opkit/probe/tester.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <algorithm>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

Json
args_json(const std::vector<project::OpArg>& args)
{
  Json list = Json::array();
  for (const project::OpArg& arg : args) {
    list.push_back({{"name", arg.name}, {"type", arg.type}});
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
                   {"inputs", args_json(op.inputs)},
                   {"outputs", args_json(op.outputs)},
                   {"attrs", attrs_json(op.attrs)}});
  }
  Json kernels = Json::array();
  for (const RegisteredKernel& kernel : report.kernels) {
    kernels.push_back({{"op", kernel.op}, {"device", kernel.device}, {"constraints", attrs_json(kernel.constraints)}});
  }
  return {{"loaded", report.loaded},
          {"error", report.error},
          {"tf_version", report.tf_version},
          {"ops", ops},
          {"kernels", kernels}};
}

} // namespace

bool
TestReport::ok() const
{
  return std::all_of(targets.begin(), targets.end(), [](const TestTarget& t) { return t.ok(); });
}

TestReport
test_project(const project::Manifest& manifest, const std::vector<std::string>& specs, const stdfs::path& build_root,
             const std::vector<std::string>& libraries)
{
  std::vector<std::string> wanted = specs.empty() ? manifest.tf_versions : specs;
  if (wanted.empty()) {
    fail(ExitCode::usage, "no TensorFlow versions to test: pass --tf or list them under targets.tensorflow");
  }
  std::vector<build::BuiltTarget> built = build::find_built_libraries(manifest, wanted, build_root, libraries);
  TestReport report;
  for (const build::BuiltTarget& one : built) {
    if (one.nothing_built()) {
      report.skipped.push_back(one.skip_line("test"));
    }
    for (const auto& [library, path] : one.libraries) {
      TestTarget target{one.spec, one.sdk.id, one.sdk.version.str(), library->name, path, {}, {}};
      log_info("probing {} in {} ...", path.filename(), one.sdk.id);
      target.report = run_probe(ensure_probe(one.sdk), path);
      if (target.report.loaded) {
        target.differences = compare_with_spec(*library, target.report, one.sdk.cuda.is_cuda_build);
      }
      report.targets.push_back(target);
    }
  }
  return report;
}

TestReport
test_libraries(const std::vector<stdfs::path>& libraries, const std::vector<std::string>& specs)
{
  if (specs.empty()) {
    fail(ExitCode::usage, "opkit test LIBRARY...: --tf is required (the TensorFlow versions to load them into)");
  }
  for (const stdfs::path& library : libraries) {
    if (fs::require_input(library, "library") != fs::InputKind::file) {
      fail(ExitCode::usage, "{}: a folder, not a library", library);
    }
  }
  TestReport report;
  for (const std::string& spec : specs) {
    sdk::Sdk sdk = sdk::resolve_sdk(spec);
    std::shared_ptr<const fs::FileLock> in_use = sdk::use_sdk(sdk);
    stdfs::path probe = ensure_probe(sdk);
    for (const stdfs::path& library : libraries) {
      TestTarget target{spec, sdk.id, sdk.version.str(), library.filename().string(), library, {}, {}};
      target.compared = false;
      log_info("probing {} in {} ...", library.filename(), sdk.id);
      target.report = run_probe(probe, library);
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
                       {"probe", report_json(target.report)}});
  }
  return {{"schema", "opkit.test/1"}, {"ok", report.ok()}, {"targets", targets}, {"skipped", report.skipped}};
}

} // namespace opkit::probe
