#include "opkit/probe/probe.hpp"

#include "opkit/check/checker.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/builder/plan.hpp"
#include "opkit/check/profile.hpp"
#include "opkit/probe/probe_runtime.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/torch_schema.hpp"
#include "opkit/cpu/scan.hpp"
#include "opkit/cpu/verdict.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/progress.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

const char* k_probe_launcher = "templates/probe/load_probe.c";

std::vector<project::OpArg>
args_from_json(const Json& list)
{
  std::vector<project::OpArg> args;
  for (const Json& arg : list) {
    args.push_back({arg.at("name").get<std::string>(), arg.at("type").get<std::string>(),
                    arg.value("number_attr", std::string()), arg.value("is_ref", false)});
  }
  return args;
}

std::vector<project::OpAttr>
op_attrs_from_json(const Json& list)
{
  std::vector<project::OpAttr> attrs;
  for (const Json& attr : list) {
    project::OpAttr one{attr.at("name").get<std::string>(), attr.at("type").get<std::string>(),
                        attr.at("allowed").get<std::vector<std::string>>()};
    if (attr.contains("default")) {
      one.default_value = attr.at("default").get<std::string>();
    }
    if (attr.contains("minimum")) {
      one.minimum = attr.at("minimum").get<int64_t>();
    }
    attrs.push_back(one);
  }
  return attrs;
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

void
compare_args(const char* what, const std::vector<project::OpArg>& expected, const std::vector<project::OpArg>& actual,
             std::vector<std::string>& differences)
{
  bool same = expected.size() == actual.size();
  for (size_t i = 0; same && i < expected.size(); ++i) {
    same = expected[i].name == actual[i].name && expected[i].type == actual[i].type;
  }
  if (!same) {
    differences.push_back(fmt::format("{}: opkit.yaml declares ({}), the library registered ({})", what,
                                      project::render_arg_specs(expected), project::render_arg_specs(actual)));
  }
}

void
compare_attrs(const project::OpSpec& spec, const RegisteredOp& op, std::vector<std::string>& differences)
{
  for (const project::OpAttr& attr : spec.attrs) {
    auto found =
      std::find_if(op.attrs.begin(), op.attrs.end(), [&](const project::OpAttr& a) { return a.name == attr.name; });
    if (found == op.attrs.end()) {
      differences.push_back(fmt::format("attr {}: declared in opkit.yaml but not registered", attr.name));
      continue;
    }
    std::set<std::string> want(attr.allowed.begin(), attr.allowed.end());
    std::set<std::string> got(found->allowed.begin(), found->allowed.end());
    if (found->type != attr.type || want != got) {
      differences.push_back(fmt::format("attr {}: opkit.yaml declares {}, the library registered {}", attr.name,
                                        project::render_attr_type(attr), project::render_attr_type(*found)));
    }
    if (!attr.full_spec) {
      continue; // {name, type, allowed} says nothing of defaults and minimums
    }
    if (found->default_value != attr.default_value) {
      differences.push_back(fmt::format("attr {}: opkit.yaml declares default {}, the library registered default {}",
                                        attr.name, value_or_none(attr.default_value),
                                        value_or_none(found->default_value)));
    }
    if (found->minimum != attr.minimum) {
      auto text = [](const std::optional<int64_t>& minimum) { return minimum ? std::to_string(*minimum) : "none"; };
      differences.push_back(fmt::format("attr {}: opkit.yaml declares minimum {}, the library registered minimum {}",
                                        attr.name, text(attr.minimum), text(found->minimum)));
    }
  }
  for (const project::OpAttr& attr : op.attrs) {
    if (std::none_of(spec.attrs.begin(), spec.attrs.end(),
                     [&](const project::OpAttr& a) { return a.name == attr.name; })) {
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
  const project::FrameworkTable& table = project::FrameworkTable::get(sdk.framework);
  fs::write_file_if_changed(dir / "load_probe.c", require_embedded(k_probe_launcher));
  // The same load inside the framework's own Python, for a library that needs that process (python_process).
  fs::write_file_if_changed(dir / "load_in_python.py", require_embedded("templates/probe/load_in_python.py"));
  fs::write_file_if_changed(dir / "probe_report.cc", require_embedded("templates/probe/" + table.probe_reporter()));
  project::FrameworkFlags flags = table.flags_for(sdk.version);
  builder::TargetPlan plan;
  builder::CompilerCommand compiler = builder::find_compiler();
  plan.compiler = compiler.compiler;
  plan.compiler_args = compiler.args;
  plan.build_dir = dir;
  // The reporter sees the framework; the launcher only dlopen (see load_probe.c):
  // it loads the reporter, and with it the framework, RTLD_LOCAL, as the framework's Python does.
  plan.compiles.push_back(
    {(dir / "probe_report.cc").string(), "probe_report.o", builder::sdk_compile_flags(sdk, flags, {})});
  plan.compiles.push_back({(dir / "load_probe.c").string(), "load_probe.o", {"-O2"}});
  builder::LinkStep reporter{"opkit_probe_report", "libopkit_probe_report.so", {"probe_report.o"}, {"-shared"}, {}, {}};
  reporter.flags.insert(reporter.flags.end(), flags.link_flags.begin(), flags.link_flags.end());
  std::vector<std::string> sdk_flags = builder::sdk_link_flags(sdk, flags);
  reporter.flags.insert(reporter.flags.end(), sdk_flags.begin(), sdk_flags.end());
  // The rpath lets the reporter find this SDK's framework library wherever the store is.
  reporter.flags.push_back("-Wl,-rpath," + sdk.lib_dir().string());
  plan.links.push_back(reporter);
  // The launcher's global libraries are a Python interpreter's (libpython
  // needs libm and libc; glibc 2.34+ has libdl and libpthread in libc):
  // libm, libdl and libpthread always, and nothing of libstdc++ (--as-needed).
  plan.links.push_back({"load_probe",
                        "load_probe",
                        {"load_probe.o"},
                        {"-Wl,--no-as-needed", "-lm", "-ldl", "-lpthread", "-Wl,--as-needed"},
                        {},
                        {}});
  builder::TargetResult result;
  {
    progress::Step step("building the load probe for " + sdk.id); // once per SDK: seconds
    result = builder::run_plan(plan, 2);
  }
  if (!result.ok) {
    fail(ExitCode::system, "{}: cannot build the load probe:\n{}", sdk.id, tail_lines(result.log, 20));
  }
  ensure_probe_runtime(sdk, dir); // what the framework library needs beyond the SDK (torch: CUDA's runtime)
  return dir / "load_probe";
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
                            args_from_json(op.at("outputs")), op_attrs_from_json(op.at("attrs")),
                            op.value("stateful", false), op.value("schema", std::string())});
    }
    for (const Json& kernel : json.value("kernels", Json::array())) {
      report.kernels.push_back({kernel.at("op").get<std::string>(), kernel.at("device").get<std::string>(),
                                attrs_from_json(kernel.at("constraints")), kernel.value("label", std::string())});
    }
    for (const Json& function : json.value("functions", Json::array())) {
      report.functions.push_back(function.get<std::string>());
    }
    return report;
  } catch (const Json::exception& e) {
    fail(ExitCode::system, "load probe printed unexpected output ({}): {}", e.what(), tail_lines(json_text, 5));
  }
}

namespace {

// Why a load died of SIGILL: the library's load-time code that needs what this
// CPU lacks, with its first such instruction (cpu/scan), when opkit finds it.
std::string
illegal_instruction_at_load(const stdfs::path& library)
{
  std::string text = "illegal instruction (SIGILL) while loading";
  std::optional<cpu::TargetCpu> here = cpu::target_cpu(check::host_cpu(), "this machine");
  if (!here) {
    return text;
  }
  try {
    cpu::Exceeding over = cpu::exceeding(cpu::scan_library(library), here->features);
    for (const cpu::FunctionUse& use : over.load_time) {
      for (const auto& [feature, instruction] : use.features) {
        return fmt::format("{}: {} runs {} ({}), which {} lacks", text, use.function, instruction.text, feature,
                           here->name);
      }
    }
  } catch (const Error&) {
    // not code opkit reads: the signal alone is said
  }
  return text;
}

} // namespace

ProbeReport
run_probe(const stdfs::path& probe, const stdfs::path& library, const stdfs::path& process_dir)
{
  ProcessOptions options;
  options.env_set["TF_CPP_MIN_LOG_LEVEL"] = "3"; // TF's own start-up chatter is not ours to show
  std::error_code ec;
  std::vector<std::string> search;
  if (stdfs::is_directory(probe.parent_path() / "runtime", ec)) { // probe_runtime: found as the process finds them
    search.push_back((probe.parent_path() / "runtime").string());
  }
  if (!process_dir.empty()) {
    search.push_back(process_dir.string());
  }
  if (!search.empty()) {
    options.env_set["LD_LIBRARY_PATH"] = join(search, ":");
  }
  return read_probe_run(run_process({probe.string(), stdfs::absolute(library).string()}, options), probe.string(),
                        library);
}

namespace {

// The probe could not load its reporter, which links the framework, because
// this machine lacks a library the framework needs (a CUDA build's CUDA 9
// libraries): Error(missing) naming every one the loader cannot find.
void
framework_cannot_load(const ProcessResult& result, const std::string& probe)
{
  stdfs::path reporter = stdfs::path(probe).parent_path() / "libopkit_probe_report.so";
  std::error_code ec;
  if (result.err.find("cannot open shared object file") == std::string::npos
      || result.err.find("libopkit_probe_report.so:") == std::string::npos || !stdfs::is_regular_file(reporter, ec)) {
    return;
  }
  std::vector<std::string> missing = check::unfound_libraries(reporter);
  if (missing.empty()) {
    return;
  }
  throw Error(ExitCode::missing,
              fmt::format("{}: the framework cannot load on this machine: it needs {}, which this machine does not "
                          "have",
                          reporter.parent_path().filename().string(), join(missing, ", ")),
              "libcuda.so.1 comes with NVIDIA's GPU driver, the others with the CUDA toolkit and cuDNN of the "
              "version the framework was built with; without them opkit builds and checks for this SDK but cannot "
              "load it");
}

} // namespace

ProbeReport
read_probe_run(const ProcessResult& result, const std::string& probe, const stdfs::path& library)
{
  if (result.exit_code != 0 && result.exit_code != 3) {
    // TensorFlow aborts the process when a registration is invalid (LOG(FATAL) at load):
    // the library does not load, and TF's last words say why.
    std::string fatal;
    for (const std::string& line : split(result.err, '\n')) {
      if (line.find("] ") != std::string::npos && line.find(" F ") != std::string::npos) {
        fatal = line.substr(line.find("] ") + 2);
      }
    }
    if (!fatal.empty()) {
      ProbeReport report;
      report.error = fmt::format("TensorFlow aborted the load: {}", fatal.substr(0, 300));
      return report;
    }
    if (result.exit_code == 128 + SIGILL) {
      ProbeReport report;
      report.error = illegal_instruction_at_load(library);
      return report;
    }
    framework_cannot_load(result, probe);
    fail(ExitCode::system, "{}: load probe crashed (exit {}) on {}: {}", probe, result.exit_code, library,
         tail_lines(result.err, 10));
  }
  return parse_probe_output(result.out);
}

namespace {

// A schema as the dispatcher printed it, in opkit's canonical text (as written when it does not parse).
std::string
canonical_schema(const std::string& text)
{
  try {
    return project::render_torch_schema(project::parse_torch_schema(text));
  } catch (const project::SpecError&) {
    return text;
  }
}

// A torch op: its schema as text, and each dispatch key opkit.yaml names
// against those the library registered a kernel for.
std::vector<std::string>
compare_torch_op(const project::OpSpec& spec, const RegisteredOp& op, const ProbeReport& report, bool gpu)
{
  std::vector<std::string> differences;
  std::string registered = canonical_schema(op.schema);
  if (registered != spec.schema) {
    differences.push_back(
      fmt::format("{}: opkit.yaml declares {}, the library registered {}", spec.name, spec.schema, registered));
  }
  std::set<std::string> keys;
  for (const RegisteredKernel& kernel : report.kernels) {
    if (kernel.op == spec.name) {
      keys.insert(kernel.device);
    }
  }
  const std::string& gpu_key = project::FrameworkTable::get("torch").gpu_kernel_key();
  for (const project::KernelSpec& kernel : spec.kernels) {
    if (keys.count(kernel.device) == 0 && (kernel.device != gpu_key || gpu)) {
      differences.push_back(fmt::format("no {} kernel registered for {}", kernel.device, spec.name));
    }
    keys.erase(kernel.device);
  }
  for (const std::string& key : keys) {
    differences.push_back(fmt::format("{} kernel of {}: registered but not declared in opkit.yaml", key, spec.name));
  }
  return differences;
}

} // namespace

std::vector<std::string>
compare_op(const project::OpSpec& spec, const ProbeReport& report, bool gpu)
{
  std::vector<std::string> differences;
  auto op =
    std::find_if(report.ops.begin(), report.ops.end(), [&](const RegisteredOp& o) { return o.name == spec.name; });
  if (op == report.ops.end()) {
    differences.push_back(fmt::format("op {} is not registered by the library", spec.name));
    return differences;
  }
  if (!spec.schema.empty()) {
    return compare_torch_op(spec, *op, report, gpu);
  }
  std::vector<std::string> own;
  compare_args("inputs", spec.inputs, op->inputs, own);
  compare_args("outputs", spec.outputs, op->outputs, own);
  compare_attrs(spec, *op, own);
  for (const std::string& difference : own) {
    differences.push_back(spec.name + " " + difference);
  }
  for (const std::string& device : {std::string("CPU"), std::string("GPU")}) {
    std::vector<const RegisteredKernel*> registered;
    for (const RegisteredKernel& kernel : report.kernels) {
      if (kernel.op == spec.name && kernel.device == device) {
        registered.push_back(&kernel);
      }
    }
    auto declared = std::find_if(spec.kernels.begin(), spec.kernels.end(),
                                 [&](const project::KernelSpec& k) { return k.device == device; });
    if (declared == spec.kernels.end()) {
      if (!registered.empty()) {
        differences.push_back(
          fmt::format("{} kernel of {}: registered but not declared in opkit.yaml", device, spec.name));
      }
      continue;
    }
    if (device == "GPU" && !gpu) {
      continue; // a CPU-only build compiles no device code: its GPU kernels are expected from the CUDA build
    }
    if (registered.empty()) {
      differences.push_back(fmt::format("no {} kernel registered for {}", device, spec.name));
      continue;
    }
    // Each constrained attr: the dtypes every registration of this device covers together.
    std::map<std::string, std::set<std::string>> got;
    for (const RegisteredKernel* kernel : registered) {
      for (const RegisteredAttr& constraint : kernel->constraints) {
        got[constraint.name].insert(constraint.allowed.begin(), constraint.allowed.end());
      }
    }
    std::map<std::string, std::set<std::string>> want;
    for (const auto& [attr, dtypes] : declared->constraints) {
      want[attr].insert(dtypes.begin(), dtypes.end());
    }
    if (got != want) {
      auto text = [](const std::map<std::string, std::set<std::string>>& constraints) {
        std::vector<std::string> parts;
        parts.reserve(constraints.size());
        for (const auto& [attr, dtypes] : constraints) {
          parts.push_back(
            fmt::format("{} in {{{}}}", attr, join(std::vector<std::string>(dtypes.begin(), dtypes.end()), ", ")));
        }
        return parts.empty() ? std::string("no type constraint") : join(parts, "; ");
      };
      differences.push_back(fmt::format("{} kernel of {}: opkit.yaml declares {}, the library registered {}", device,
                                        spec.name, text(want), text(got)));
    }
  }
  return differences;
}

std::vector<std::string>
compare_with_spec(const project::LibrarySpec& library, const ProbeReport& report, bool gpu)
{
  std::vector<std::string> differences;
  for (const project::OpSpec& op : library.ops) {
    std::vector<std::string> more = compare_op(op, report, gpu);
    differences.insert(differences.end(), more.begin(), more.end());
  }
  for (const RegisteredOp& op : report.ops) {
    if (std::none_of(library.ops.begin(), library.ops.end(),
                     [&](const project::OpSpec& o) { return o.name == op.name; })) {
      differences.push_back(fmt::format("op {} is registered by the library but not declared in opkit.yaml", op.name));
    }
  }
  // A Python module's functions: each declared one is among what its import defines.
  for (const project::OpSpec& function : library.functions) {
    std::string name = function.name.substr(function.name.find("::") + 2);
    if (std::find(report.functions.begin(), report.functions.end(), name) == report.functions.end()) {
      differences.push_back(
        fmt::format("function {} of {} is declared in opkit.yaml but the module has none (it has: {})", name,
                    library.python_module, report.functions.empty() ? "no function" : join(report.functions, ", ")));
    }
  }
  return differences;
}

} // namespace opkit::probe
