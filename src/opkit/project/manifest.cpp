#include "opkit/project/manifest.hpp"

#include "opkit/project/names.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/version.hpp"
#include "opkit/project/yaml_util.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::project {

namespace {

const std::vector<std::string> k_attr_types = {"type", "int", "float", "bool", "string", "shape", "list(type)",
                                               "list(int)", "list(float)", "tensor"};

bool
contains(const std::vector<std::string>& list, const std::string& value)
{
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::vector<OpAttr>
parse_attrs(const YAML::Node& node, const std::string& name)
{
  std::vector<OpAttr> attrs;
  for (const YAML::Node& item : node) {
    yaml::expect_keys(item, {"name", "type", "allowed"}, name);
    OpAttr attr{yaml::get_string(item, "name", name), yaml::get_string(item, "type", name),
                yaml::get_string_list(item, "allowed", name)};
    if (!is_valid_arg_name(attr.name)) {
      fail(ExitCode::usage, "{}: invalid attr name '{}'", yaml::where(name, item["name"]), attr.name);
    }
    if (!contains(k_attr_types, attr.type)) {
      fail(ExitCode::usage, "{}: unknown attr type '{}' (expected one of: {})", yaml::where(name, item["type"]),
           attr.type, fmt::join(k_attr_types, ", "));
    }
    for (const std::string& dtype : attr.allowed) {
      if (!contains(known_dtypes(), dtype)) {
        fail(ExitCode::usage, "{}: unknown dtype '{}'", yaml::where(name, item["allowed"]), dtype);
      }
    }
    attrs.push_back(attr);
  }
  return attrs;
}

std::vector<OpArg>
parse_args(const YAML::Node& node, const std::vector<OpAttr>& attrs, const std::string& name)
{
  std::vector<OpArg> args;
  for (const YAML::Node& item : node) {
    yaml::expect_keys(item, {"name", "type"}, name);
    OpArg arg{yaml::get_string(item, "name", name), yaml::get_string(item, "type", name)};
    if (!is_valid_arg_name(arg.name)) {
      fail(ExitCode::usage, "{}: invalid argument name '{}'", yaml::where(name, item["name"]), arg.name);
    }
    bool is_attr = std::any_of(attrs.begin(), attrs.end(),
                               [&](const OpAttr& a) { return a.name == arg.type && a.type == "type"; });
    if (!is_attr && !contains(known_dtypes(), arg.type)) {
      fail(ExitCode::usage, "{}: type '{}' is neither a dtype nor a type attr of this op",
           yaml::where(name, item["type"]), arg.type);
    }
    args.push_back(arg);
  }
  return args;
}

// - inputs: {to_zero: {dtype: int32, value: [[5, 4], [3, 2]]}}
//   outputs: {zeroed: [[5, 0], [0, 0]]}
TestVector
parse_test_vector(const YAML::Node& item, const OpSpec& op, const std::string& name)
{
  yaml::expect_keys(item, {"inputs", "outputs", "tolerance"}, name);
  TestVector vector;
  for (const OpArg& arg : op.inputs) {
    YAML::Node value = item["inputs"][arg.name];
    if (!value.IsDefined()) {
      fail(ExitCode::usage, "{}: test vector lacks input '{}'", yaml::where(name, item), arg.name);
    }
    yaml::expect_keys(value, {"dtype", "value"}, name);
    std::string dtype = yaml::get_string(value, "dtype", name);
    if (!contains(known_dtypes(), dtype)) {
      fail(ExitCode::usage, "{}: unknown dtype '{}'", yaml::where(name, value["dtype"]), dtype);
    }
    vector.inputs.push_back({arg.name, dtype, yaml::to_json_text(value["value"])});
  }
  for (const OpArg& arg : op.outputs) {
    YAML::Node value = item["outputs"][arg.name];
    if (!value.IsDefined()) {
      fail(ExitCode::usage, "{}: test vector lacks output '{}'", yaml::where(name, item), arg.name);
    }
    vector.outputs.push_back({arg.name, "", yaml::to_json_text(value)});
  }
  if (item["tolerance"].IsDefined()) {
    vector.tolerance = std::stod(yaml::get_string(item, "tolerance", name));
  }
  return vector;
}

OpSpec
parse_op(const YAML::Node& node, const std::string& name)
{
  yaml::expect_keys(node, {"name", "inputs", "outputs", "attrs", "kernels", "tests"}, name);
  OpSpec op;
  op.name = yaml::get_string(node, "name", name);
  if (!is_valid_op_name(op.name)) {
    fail(ExitCode::usage, "{}: invalid op name '{}' (TensorFlow op names are CamelCase: [A-Z][A-Za-z0-9]*)",
         yaml::where(name, node["name"]), op.name);
  }
  op.attrs = parse_attrs(node["attrs"], name);
  op.inputs = parse_args(node["inputs"], op.attrs, name);
  op.outputs = parse_args(node["outputs"], op.attrs, name);
  for (const YAML::Node& item : node["kernels"]) {
    yaml::expect_keys(item, {"device"}, name);
    op.kernels.push_back({yaml::get_string(item, "device", name)});
  }
  for (const YAML::Node& item : node["tests"]) {
    op.tests.push_back(parse_test_vector(item, op, name));
  }
  return op;
}

CompileSharing
parse_sharing(const YAML::Node& build, const std::string& name)
{
  yaml::expect_keys(build, {"cache", "cache_remote", "distcc_hosts"}, name);
  CompileSharing sharing;
  sharing.cache = yaml::get_string_or(build, "cache", name, "auto");
  if (sharing.cache != "auto" && sharing.cache != "on" && sharing.cache != "off") {
    fail(ExitCode::usage, "{}: build.cache must be auto, on or off, got '{}'", yaml::where(name, build["cache"]),
         sharing.cache);
  }
  sharing.cache_remote = yaml::get_string_or(build, "cache_remote", name, "");
  sharing.distcc_hosts = yaml::get_string_list(build, "distcc_hosts", name);
  return sharing;
}

} // namespace

const std::vector<std::string>&
known_dtypes()
{
  static const std::vector<std::string> k_dtypes = {
    "float", "double", "int32", "uint8", "int16", "int8", "string", "complex64", "int64", "bool",
    "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16", "complex128", "half", "resource",
    "variant", "uint32", "uint64"};
  return k_dtypes;
}

Manifest
parse_manifest(const std::string& text, const std::string& name, const std::filesystem::path& root)
{
  YAML::Node doc = yaml::load(text, name);
  if (!doc.IsMap()) {
    fail(ExitCode::usage, "{}: expected a mapping at the top level", yaml::where(name, doc));
  }
  yaml::expect_keys(doc, {"name", "version", "template", "op", "sources", "targets", "build"}, name);
  Manifest manifest;
  manifest.root = root;
  manifest.name = yaml::get_string(doc, "name", name);
  ProjectNames names = derive_names(manifest.name);
  if (names.snake != manifest.name) {
    fail(ExitCode::usage, "{}: name '{}' must be snake_case (did you mean '{}'?)", yaml::where(name, doc["name"]),
         manifest.name, names.snake);
  }
  manifest.template_name = yaml::get_string_or(doc, "template", name, "tensorflow-op");
  manifest.version = yaml::get_string_or(doc, "version", name, "0.1.0");
  std::optional<Version> own_version = parse_version(manifest.version);
  if (!own_version || !own_version->suffix.empty()) {
    fail(ExitCode::usage, "{}: version '{}' must be dotted numbers, e.g. 0.1.0", yaml::where(name, doc["version"]),
         manifest.version);
  }
  if (!doc["op"].IsDefined()) {
    fail(ExitCode::usage, "{}: missing required key 'op'", yaml::where(name, doc));
  }
  manifest.op = parse_op(doc["op"], name);
  manifest.sources = yaml::get_string_list(doc, "sources", name);
  // Only a TensorFlow op is compiled by opkit; the other kinds list their files for reference.
  bool compiled = load_template_spec(manifest.template_name).kind == TemplateKind::tensorflow;
  if (compiled && manifest.sources.empty()) {
    fail(ExitCode::usage, "{}: 'sources' must list at least one file", yaml::where(name, doc));
  }
  for (const std::string& source : manifest.sources) {
    if (!fs::stays_inside(source)) {
      fail(ExitCode::usage, "{}: source '{}' must be a path inside the project", yaml::where(name, doc["sources"]),
           source);
    }
  }
  YAML::Node targets = doc["targets"];
  if (targets.IsDefined()) {
    yaml::expect_keys(targets, {"tensorflow", "runtime"}, name);
    manifest.tf_versions = yaml::get_string_list(targets, "tensorflow", name);
    manifest.runtime = yaml::get_string_or(targets, "runtime", name, "");
    for (const std::string& version : manifest.tf_versions) {
      if (!parse_version(version)) {
        fail(ExitCode::usage, "{}: invalid TensorFlow version '{}'", yaml::where(name, targets["tensorflow"]),
             version);
      }
    }
  }
  if (YAML::Node build = doc["build"]) {
    manifest.sharing = parse_sharing(build, name);
  }
  return manifest;
}

Manifest
load_manifest(const std::filesystem::path& dir)
{
  std::filesystem::path root = std::filesystem::absolute(dir).lexically_normal();
  if (root.filename().empty()) {
    root = root.parent_path();
  }
  std::filesystem::path file = root / "opkit.yaml";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw Error(ExitCode::usage, fmt::format("{}: no opkit.yaml here", file),
                "run this inside a project made by `opkit new NAME`, or pass -C DIR");
  }
  return parse_manifest(fs::read_file(file), file.string(), root);
}

} // namespace opkit::project
