#include "opkit/probe/tester.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
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
  std::vector<const project::LibrarySpec*> selected = manifest.select_libraries(libraries);
  stdfs::path root = build_root.empty() ? manifest.root / "build" : build_root;
  std::vector<TestTarget> targets;
  std::vector<sdk::Sdk> sdks; // per target; resolved once: resolving reads every sdk.json in the store
  std::vector<const project::LibrarySpec*> specs_of;
  for (const std::string& spec : wanted) {
    sdk::Sdk sdk = sdk::resolve_sdk(spec);
    for (const project::LibrarySpec* library : selected) {
      if (!library->tensorflow.contains(sdk.version)) {
        continue;
      }
      TestTarget target{spec, sdk.id, sdk.version.str(), library->name, build::target_dir(root, sdk) / library->output,
                        {},   {}};
      std::error_code ec;
      if (!stdfs::is_regular_file(target.library, ec)) {
        throw Error(ExitCode::missing, fmt::format("{}: not built for {}", target.library, sdk.id),
                    fmt::format("run `opkit build --tf {}` first", spec));
      }
      targets.push_back(target);
      sdks.push_back(sdk);
      specs_of.push_back(library);
    }
  }
  TestReport report;
  for (size_t i = 0; i < targets.size(); ++i) {
    TestTarget& target = targets[i];
    const sdk::Sdk& sdk = sdks[i];
    log_info("probing {} in {} ...", target.library.filename(), sdk.id);
    target.report = run_probe(ensure_probe(sdk), target.library);
    if (target.report.loaded) {
      target.differences = compare_with_spec(*specs_of[i], target.report, sdk.cuda.is_cuda_build);
    }
    report.targets.push_back(target);
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
                       {"probe", report_json(target.report)}});
  }
  return {{"ok", report.ok()}, {"targets", targets}};
}

} // namespace opkit::probe
