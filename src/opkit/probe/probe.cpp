#include "opkit/probe/probe.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/build/plan.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <set>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

const char* k_probe_source = "templates/probe/tf_probe.cc";

std::vector<project::OpArg>
args_from_json(const Json& list)
{
  std::vector<project::OpArg> args;
  for (const Json& arg : list) {
    args.push_back({arg.at("name").get<std::string>(), arg.at("type").get<std::string>()});
  }
  return args;
}

std::vector<RegisteredAttr>
attrs_from_json(const Json& list)
{
  std::vector<RegisteredAttr> attrs;
  for (const Json& attr : list) {
    attrs.push_back({attr.at("name").get<std::string>(), attr.value("type", std::string()),
                     attr.at("allowed").get<std::vector<std::string>>()});
  }
  return attrs;
}

std::string
describe_args(const std::vector<project::OpArg>& args)
{
  std::vector<std::string> parts;
  for (const project::OpArg& arg : args) {
    parts.push_back(arg.name + ": " + arg.type);
  }
  return "(" + join(parts, ", ") + ")";
}

void
compare_args(const char* what, const std::vector<project::OpArg>& expected,
             const std::vector<project::OpArg>& actual, std::vector<std::string>& differences)
{
  bool same = expected.size() == actual.size();
  for (size_t i = 0; same && i < expected.size(); ++i) {
    same = expected[i].name == actual[i].name && expected[i].type == actual[i].type;
  }
  if (!same) {
    differences.push_back(
      fmt::format("{}: opkit.yaml declares {}, the library registered {}", what, describe_args(expected),
                  describe_args(actual)));
  }
}

void
compare_attrs(const project::OpSpec& spec, const RegisteredOp& op, std::vector<std::string>& differences)
{
  for (const project::OpAttr& attr : spec.attrs) {
    auto found = std::find_if(op.attrs.begin(), op.attrs.end(), [&](const RegisteredAttr& a) { return a.name == attr.name; });
    if (found == op.attrs.end()) {
      differences.push_back(fmt::format("attr {}: declared in opkit.yaml but not registered", attr.name));
      continue;
    }
    std::set<std::string> want(attr.allowed.begin(), attr.allowed.end());
    std::set<std::string> got(found->allowed.begin(), found->allowed.end());
    if (found->type != attr.type || want != got) {
      differences.push_back(fmt::format("attr {}: opkit.yaml declares {} {{{}}}, the library registered {} {{{}}}",
                                        attr.name, attr.type, join(attr.allowed, ", "), found->type,
                                        join(found->allowed, ", ")));
    }
  }
  for (const RegisteredAttr& attr : op.attrs) {
    if (std::none_of(spec.attrs.begin(), spec.attrs.end(), [&](const project::OpAttr& a) { return a.name == attr.name; })) {
      differences.push_back(fmt::format("attr {}: registered but not declared in opkit.yaml", attr.name));
    }
  }
}

} // namespace

stdfs::path
ensure_probe(const sdk::Sdk& sdk)
{
  stdfs::path dir = sdk::opkit_home() / "probes" / sdk.id;
  fs::FileLock lock(sdk::opkit_home() / "probes" / (sdk.id + ".lock"));
  fs::create_dirs(dir);
  fs::write_file_if_changed(dir / "tf_probe.cc", require_embedded(k_probe_source));
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  build::TargetPlan plan;
  plan.compiler = build::find_compiler();
  plan.build_dir = dir;
  plan.output = "tf_probe";
  plan.compiles.push_back({(dir / "tf_probe.cc").string(), "tf_probe.o", build::sdk_compile_flags(sdk, flags, {})});
  plan.link_flags = build::sdk_link_flags(sdk, flags);
  // The rpath lets the probe find this SDK's framework library wherever the store is.
  plan.link_flags.insert(plan.link_flags.end(), {"-Wl,-rpath," + sdk.lib_dir().string(), "-ldl"});
  build::TargetResult result = build::run_plan(plan, 2);
  if (!result.ok) {
    fail(ExitCode::system, "{}: cannot build the load probe:\n{}", sdk.id, tail_lines(result.log, 20));
  }
  return result.library;
}

ProbeReport
parse_probe_output(const std::string& json_text)
{
  try {
    Json json = Json::parse(json_text);
    ProbeReport report;
    report.loaded = json.at("loaded").get<bool>();
    report.error = json.at("error").get<std::string>();
    report.tf_version = json.value("tf_version", std::string());
    for (const Json& op : json.value("ops", Json::array())) {
      report.ops.push_back({op.at("name").get<std::string>(), args_from_json(op.at("inputs")),
                            args_from_json(op.at("outputs")), attrs_from_json(op.at("attrs"))});
    }
    for (const Json& kernel : json.value("kernels", Json::array())) {
      report.kernels.push_back({kernel.at("op").get<std::string>(), kernel.at("device").get<std::string>(),
                                attrs_from_json(kernel.at("constraints"))});
    }
    return report;
  } catch (const Json::exception& e) {
    fail(ExitCode::system, "load probe printed unexpected output ({}): {}", e.what(), tail_lines(json_text, 5));
  }
}

ProbeReport
run_probe(const stdfs::path& probe, const stdfs::path& library)
{
  ProcessOptions options;
  options.env_set["TF_CPP_MIN_LOG_LEVEL"] = "3"; // TF's own start-up chatter is not ours to show
  ProcessResult result = run_process({probe.string(), stdfs::absolute(library).string()}, options);
  if (result.exit_code != 0 && result.exit_code != 3) {
    fail(ExitCode::system, "{}: load probe crashed (exit {}) on {}: {}", probe, result.exit_code, library,
         tail_lines(result.err, 10));
  }
  return parse_probe_output(result.out);
}

std::vector<std::string>
compare_with_spec(const project::OpSpec& spec, const ProbeReport& report)
{
  std::vector<std::string> differences;
  auto op = std::find_if(report.ops.begin(), report.ops.end(), [&](const RegisteredOp& o) { return o.name == spec.name; });
  if (op == report.ops.end()) {
    differences.push_back(fmt::format("op {} is not registered by the library", spec.name));
    return differences;
  }
  compare_args("inputs", spec.inputs, op->inputs, differences);
  compare_args("outputs", spec.outputs, op->outputs, differences);
  compare_attrs(spec, *op, differences);
  for (const project::KernelSpec& kernel : spec.kernels) {
    bool found = std::any_of(report.kernels.begin(), report.kernels.end(), [&](const RegisteredKernel& k) {
      return k.op == spec.name && k.device == kernel.device;
    });
    if (!found) {
      differences.push_back(fmt::format("no {} kernel registered for {}", kernel.device, spec.name));
    }
  }
  return differences;
}

} // namespace opkit::probe
