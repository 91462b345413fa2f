#pragma once

#include "opkit/project/manifest.hpp"
#include "opkit/sdk/sdk.hpp"
#include "opkit/util/process.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::probe {

// What the framework's registries gained when the library was loaded
// (TensorFlow's op and kernel registries; torch's dispatcher).
struct RegisteredAttr
{
  std::string name;
  std::string type;
  std::vector<std::string> allowed; // dtype names, for type attrs with a restriction
};

// An op as TensorFlow's op registry holds it: attrs with their defaults,
// allowed values and minimums in canonical text (project/attr_spec).
struct RegisteredOp
{
  std::string name;
  std::vector<project::OpArg> inputs;
  std::vector<project::OpArg> outputs;
  std::vector<project::OpAttr> attrs;
  bool stateful = false;
  std::string schema = {}; // torch: the dispatcher's FunctionSchema ("ns::op(Tensor x) -> Tensor"); TF: none
};

struct RegisteredKernel
{
  std::string op;
  std::string device;
  std::vector<RegisteredAttr> constraints; // name + allowed dtypes
  std::string label = {};
};

struct ProbeReport
{
  bool loaded = false;
  std::string error;      // the loader's own message when not loaded
  std::string tf_version; // TF_VERSION_STRING of the framework the probe ran in
  std::vector<RegisteredOp> ops;
  std::vector<RegisteredKernel> kernels;
  // Where it was loaded: "" for the load probe's own process (the framework
  // RTLD_LOCAL, as its Python loads it); else why the framework's own Python
  // (its release's venv) had to stand in (python_process.hpp).
  std::string python_process = {};
  // A Python extension module, imported as its package imports it: its
  // public functions (pybind11's m.def), sorted. Empty for any other library.
  std::vector<std::string> functions = {};
};

// The probe executable for an SDK (and the reporter library beside it, which
// links the framework), compiled once and cached under
// <OPKIT_HOME>/probes/<sdk-id>/; concurrent callers wait on a lock.
std::filesystem::path
ensure_probe(const sdk::Sdk& sdk);

// Runs the probe on a library inside that SDK's real libtensorflow_framework.
// `process_dir` (the SDK's lib/) holds what the framework's process has loaded
// besides it (torch's libc10_cuda.so): an op that needs one finds it there,
// as it finds the loaded copy in that process.
ProbeReport
run_probe(const std::filesystem::path& probe, const std::filesystem::path& library,
          const std::filesystem::path& process_dir = {});

// What one run of a load probe (`probe`, as named in errors) on `library`
// says: the report it printed (exit 0 or 3), or why it died: TensorFlow's
// fatal line, or SIGILL with the library's load-time instruction this CPU
// lacks. Any other death is Error(system).
ProbeReport
read_probe_run(const ProcessResult& result, const std::string& probe, const std::filesystem::path& library);

// Parses the probe's JSON output; Error(system) if it is not what the probe prints.
ProbeReport
parse_probe_output(const std::string& json_text);

// How the registration differs from one op of opkit.yaml: its args, attrs, and
// each device's kernels with their type constraints (GPU kernels only when
// `gpu`: the SDK is a CUDA build). One sentence per difference.
std::vector<std::string>
compare_op(const project::OpSpec& spec, const ProbeReport& report, bool gpu);

// The same for every op of a library, plus each op it registers that opkit.yaml does not declare.
std::vector<std::string>
compare_with_spec(const project::LibrarySpec& library, const ProbeReport& report, bool gpu);

} // namespace opkit::probe
