#include "opkit/probe/python_vectors.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/check/target.hpp"
#include "opkit/probe/framework_venv.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>

namespace opkit::probe {

namespace stdfs = std::filesystem;

namespace {

// A value of a vector as the script takes it: a file of the project becomes its absolute path.
Json
value_json(const project::TestVector::Value& value, const stdfs::path& root)
{
  if (value.file.empty()) {
    return Json::parse(value.json);
  }
  stdfs::path file = (root / value.file).lexically_normal();
  std::error_code ec;
  if (!stdfs::exists(file, ec)) {
    fail(ExitCode::usage, "{}: test data file {} does not exist", value.where, file);
  }
  // Through symlinks too: a link out of the project is not a file of it.
  stdfs::path real = stdfs::weakly_canonical(file, ec);
  stdfs::path inside = ec ? stdfs::path() : real.lexically_relative(stdfs::weakly_canonical(root, ec));
  if (ec || inside.empty() || !fs::stays_inside(inside)) {
    fail(ExitCode::usage, "{}: test data file {} leads outside the project (to {}): only a file of the project is read",
         value.where, file, real);
  }
  return file.string();
}

const project::OpArg*
input_named(const project::OpSpec& op, const std::string& name)
{
  auto arg = std::find_if(op.inputs.begin(), op.inputs.end(), [&](const project::OpArg& a) { return a.name == name; });
  return arg == op.inputs.end() ? nullptr : &*arg;
}

bool
given(const std::vector<project::TestVector::Value>& values, const std::string& name)
{
  return std::any_of(values.begin(), values.end(), [&](const auto& value) { return value.name == name; });
}

// torch: the optional arguments (`T?`) without a default that `vector` leaves
// out, which the op is called with as None (torch calls any argument without a
// default missing). A `Tensor?`'s only default is None, so any omitted one is.
Json
none_for_omitted(const project::OpSpec& op, const project::TestVector& vector)
{
  Json names = Json::array();
  for (const project::OpArg& arg : op.inputs) {
    if (arg.nullable && !given(vector.inputs, arg.name)) {
      names.push_back(arg.name);
    }
  }
  for (const project::OpAttr& attr : op.attrs) {
    if (ends_with(attr.type, "?") && !attr.default_value && !given(vector.attrs, attr.name)) {
      names.push_back(attr.name);
    }
  }
  return names;
}

} // namespace

Json
vectors_json(const project::OpSpec& op, const stdfs::path& root)
{
  bool torch = !op.schema.empty();
  Json vectors = Json::array();
  for (const project::TestVector& vector : op.tests) {
    Json attrs = Json::array();
    for (const auto& attr : vector.attrs) {
      Json item = {{"name", attr.name}, {"type", attr.type}, {"value", value_json(attr, root)}};
      if (torch && item["value"].is_null()) {
        item["none"] = true;
      }
      attrs.push_back(item);
    }
    Json inputs = Json::array();
    for (const auto& input : vector.inputs) {
      Json item = {{"name", input.name}, {"dtype", input.type}, {"value", value_json(input, root)}};
      if (torch) { // a tensor or a list of them, by the schema ("" dtype: inferred); null: None
        const project::OpArg* arg = input_named(op, input.name);
        item["kind"] = arg && arg->type == "Tensor[]" ? "tensors" : "tensor";
        if (item["value"].is_null()) {
          item["none"] = true;
        }
      }
      inputs.push_back(item);
    }
    Json outputs = Json::array();
    for (const auto& output : vector.outputs) {
      Json item = {{"name", output.name}, {"value", Json::parse(output.json)}};
      const project::OpArg* arg = torch ? input_named(op, output.name) : nullptr;
      bool result = std::any_of(op.outputs.begin(), op.outputs.end(),
                                [&](const project::OpArg& a) { return a.name == output.name; });
      if (arg && arg->mutated && !result) { // its value after the call
        item["argument"] = true;
      }
      outputs.push_back(item);
    }
    Json json = {{"attrs", attrs},
                 {"inputs", inputs},
                 {"outputs", outputs},
                 {"error", vector.expects_error ? Json(vector.error) : Json()},
                 {"tolerance", vector.tolerance}};
    if (torch) {
      json["pass_none"] = none_for_omitted(op, vector);
    }
    vectors.push_back(json);
  }
  return vectors;
}

namespace {

Json
expected_json(const project::TestVector& vector)
{
  if (vector.expects_error) {
    return {{"error", vector.error}};
  }
  Json outputs = Json::object();
  for (const auto& output : vector.outputs) {
    outputs[output.name] = Json::parse(output.json);
  }
  return {{"outputs", outputs}};
}

// Reads the script's JSON lines into outcomes; what it never got to is a problem.
void
parse_run(const std::string& out, const project::OpSpec& op, VectorOutcome base, PythonVectorsReport& report,
          std::string& error, std::string& framework_version)
{
  for (const std::string& line : split(out, '\n')) {
    Json json = Json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      continue;
    }
    if (json.contains("error")) {
      error = json.value("error", "");
    } else if (json.contains("python_name")) {
      base.python_name = json.value("python_name", "");
    } else if (json.contains("framework_version")) {
      framework_version = json.value("framework_version", "");
    } else if (json.contains("vector")) {
      int index = json.value("vector", -1);
      if (index < 0 || static_cast<size_t>(index) >= op.tests.size()) {
        continue;
      }
      VectorOutcome outcome = base;
      outcome.vector = index;
      outcome.name = op.tests[index].name;
      outcome.ok = json.value("ok", false);
      outcome.expected = json_text(expected_json(op.tests[index]));
      outcome.actual = json_text(json["actual"]);
      report.outcomes.push_back(outcome);
    }
  }
}

// Runs one op's vectors with the venv's python, from the project root.
void
run_op(const stdfs::path& script, const fs::Folder& dir, const project::Manifest& manifest,
       const project::LibrarySpec& library, const stdfs::path& path, const project::OpSpec& op,
       const std::string& vectors_text, bool function, PythonVectorsReport& report)
{
  std::string safe = op.name; // Vendor>Op, ns::op.overload
  std::replace(safe.begin(), safe.end(), '>', '_');
  std::replace(safe.begin(), safe.end(), ':', '_');
  std::string name = library.name + "." + safe + ".json";
  stdfs::path vectors = dir.path() / name;
  dir.write_if_changed(name, vectors_text);
  ProcessOptions options;
  options.cwd = manifest.root;
  options.env_set["TF_CPP_MIN_LOG_LEVEL"] = "3";
  options.env_set["PYTHONDONTWRITEBYTECODE"] = "1";
  log_info("{} {}: running {} vector(s) of {} ...", report.framework, report.version, op.tests.size(), op.name);
  std::vector<std::string> argv = {report.python.string(), script.string(), path.string(), op.name, vectors.string()};
  if (function) {
    argv.push_back(library.python_module); // a module's function: the runner imports the module, then calls it
  }
  ProcessResult result = run_process(argv, options);
  VectorOutcome base;
  base.library = library.name;
  base.path = path;
  base.op = op.name;
  std::string error;
  std::string framework_version;
  size_t before = report.outcomes.size();
  parse_run(result.out, op, base, report, error, framework_version);
  if (!error.empty()) {
    report.problems.push_back(fmt::format("{} in {}: {}", op.name, path.filename(), error));
  } else if (framework_version.empty()) {
    report.problems.push_back(fmt::format("{} in {}: the op did not run (exit {}):\n{}", op.name, path.filename(),
                                          result.exit_code, tail_lines(result.err, 15)));
  } else if (framework_version != report.version) {
    report.problems.push_back(
      fmt::format("{}: it imported {} {}, not {}", report.python, report.framework, framework_version, report.version));
  } else if (report.outcomes.size() - before != op.tests.size()) {
    report.problems.push_back(fmt::format("{} in {}: {} of {} vectors reported", op.name, path.filename(),
                                          report.outcomes.size() - before, op.tests.size()));
  }
}

// Every built library must load where it is headed before any venv is made.
void
require_loadable(const std::vector<builder::BuiltTarget>& built, const project::Manifest& manifest)
{
  for (const builder::BuiltTarget& target : built) {
    for (const auto& [spec, path] : target.libraries) {
      check::CheckReport check = check::check_library(path, check::make_check_target(target.sdk, manifest.runtime, {}));
      if (check.loads) {
        continue;
      }
      std::vector<std::string> findings;
      for (const check::Finding& finding : check.findings) {
        findings.push_back(fmt::format("[{}] {}", finding.kind, finding.summary));
      }
      const project::FrameworkTable& table = project::FrameworkTable::get(target.sdk.framework);
      throw Error(ExitCode::failed,
                  fmt::format("{}: will not load in {} {}: {}", path, target.sdk.framework, target.sdk.version.str(),
                              join(findings, "; ")),
                  fmt::format("`opkit check {} --{} {}` shows how to fix it", path, table.short_name(), target.spec));
    }
  }
}

} // namespace

bool
PythonVectorsReport::ok() const
{
  return problems.empty() && !outcomes.empty()
         && std::all_of(outcomes.begin(), outcomes.end(), [](const VectorOutcome& o) { return o.ok; });
}

std::vector<PythonVectorsReport>
test_in_framework_versions(const project::Manifest& manifest, const std::vector<std::string>& specs,
                           const stdfs::path& build_root, const std::vector<std::string>& libraries)
{
  std::vector<std::string> wanted = specs.empty() ? manifest.target_versions : specs;
  const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
  if (wanted.empty()) {
    fail(ExitCode::usage, "no {} versions to run the vectors in: pass --{} or list them under targets.{}",
         table.display_name(), table.short_name(), manifest.framework);
  }
  std::vector<builder::BuiltTarget> built = builder::find_built_libraries(manifest, wanted, build_root, libraries);
  // The vectors (and the files they name) are checked before anything runs.
  std::map<const project::OpSpec*, std::string> vectors;
  for (const builder::BuiltTarget& target : built) {
    if (target.nothing_built()) {
      log_info("{}", target.skip_line("run"));
    }
    for (const auto& library : target.libraries) {
      for (const std::vector<project::OpSpec>* list : {&library.first->ops, &library.first->functions}) {
        for (const project::OpSpec& op : *list) {
          if (!op.tests.empty() && vectors.count(&op) == 0) {
            vectors[&op] = json_text(vectors_json(op, manifest.root), 2) + "\n";
          }
        }
      }
    }
  }
  if (vectors.empty()) {
    fail(ExitCode::usage, "{}: no test vectors (an op's or a function's tests:) to run", manifest.root / "opkit.yaml");
  }
  require_loadable(built, manifest);
  stdfs::path root = project::build_root(manifest.root, build_root);
  std::vector<PythonVectorsReport> reports;
  for (const builder::BuiltTarget& target : built) {
    if (target.nothing_built()) {
      continue; // said above: no venv to make for it
    }
    PythonVectorsReport report;
    report.sdk_id = target.sdk.id;
    report.framework = target.sdk.framework;
    report.version = target.sdk.version.str();
    stdfs::path venv = ensure_framework_venv(target.sdk);
    std::string installed = installed_framework(venv, target.sdk);
    if (installed != report.version) {
      throw Error(ExitCode::missing,
                  fmt::format("{}: its {} is {}, but the libraries were built against {}", venv, table.display_name(),
                              installed.empty() ? "missing" : installed, target.sdk.id),
                  fmt::format("remove {} and opkit makes it again", venv));
    }
    report.python = venv / "bin" / "python";
    // Opened without following a link: the build folder is the project's, whatever it holds.
    fs::Folder dir = fs::Folder::open(builder::target_dir(root, target.sdk), "build outputs", false)
                       .child("opkit-vectors", "test vectors", true);
    stdfs::path script = dir.path() / table.vectors_runner();
    dir.write_if_changed(table.vectors_runner(), require_embedded("templates/probe/" + table.vectors_runner()));
    dir.write_if_changed("vectors_json.py",
                         require_embedded("templates/probe/vectors_json.py")); // the runner imports it
    for (const auto& [library, path] : target.libraries) {
      for (const std::vector<project::OpSpec>* list : {&library->ops, &library->functions}) {
        for (const project::OpSpec& op : *list) {
          if (!op.tests.empty()) {
            run_op(script, dir, manifest, *library, path, op, vectors.at(&op), list == &library->functions, report);
          }
        }
      }
    }
    reports.push_back(report);
  }
  return reports;
}

Json
to_json(const std::vector<PythonVectorsReport>& reports)
{
  Json records = Json::array();
  Json problems = Json::array();
  bool ok = true;
  for (const PythonVectorsReport& report : reports) {
    ok = ok && report.ok();
    for (const VectorOutcome& outcome : report.outcomes) {
      records.push_back({{"framework", report.framework},
                         {"version", report.version},
                         {"sdk", report.sdk_id},
                         {"python", report.python.string()},
                         {"library", outcome.library},
                         {"path", outcome.path.string()},
                         {"op", outcome.op},
                         {"python_name", outcome.python_name},
                         {"vector", outcome.vector},
                         {"name", outcome.name},
                         {"ok", outcome.ok},
                         {"expected", Json::parse(outcome.expected)},
                         {"actual", Json::parse(outcome.actual)}});
    }
    for (const std::string& problem : report.problems) {
      problems.push_back(
        {{"framework", report.framework}, {"version", report.version}, {"sdk", report.sdk_id}, {"problem", problem}});
    }
  }
  return {{"schema", "opkit.test-python/1"}, {"ok", ok}, {"records", records}, {"problems", problems}};
}

} // namespace opkit::probe
