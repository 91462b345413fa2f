#include "opkit/project/op_yaml.hpp"

#include "opkit/project/manifest.hpp"
#include "opkit/project/names.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::project {

namespace {

const std::vector<std::string> k_attr_types = {"type",  "int",        "float",     "bool",        "string",
                                               "shape", "list(type)", "list(int)", "list(float)", "tensor"};

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
    bool is_attr =
      std::any_of(attrs.begin(), attrs.end(), [&](const OpAttr& a) { return a.name == arg.type && a.type == "type"; });
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

// - device: CPU
//   constraints: {T: [float, int32]}
KernelSpec
parse_kernel(const YAML::Node& item, const std::string& name)
{
  yaml::expect_keys(item, {"device", "constraints"}, name);
  KernelSpec kernel{yaml::get_string(item, "device", name), {}};
  if (kernel.device != "CPU" && kernel.device != "GPU") {
    fail(ExitCode::usage, "{}: kernel device must be CPU or GPU, got '{}'", yaml::where(name, item["device"]),
         kernel.device);
  }
  YAML::Node constraints = item["constraints"];
  if (constraints.IsDefined() && !constraints.IsMap()) {
    fail(ExitCode::usage, "{}: constraints must map attr names to dtype lists, e.g. {{T: [float, int32]}}",
         yaml::where(name, constraints));
  }
  for (const auto& entry : constraints) {
    std::string attr = entry.first.as<std::string>();
    std::vector<std::string> dtypes = yaml::get_string_list(constraints, attr.c_str(), name);
    for (const std::string& dtype : dtypes) {
      if (!contains(known_dtypes(), dtype)) {
        fail(ExitCode::usage, "{}: unknown dtype '{}'", yaml::where(name, entry.second), dtype);
      }
    }
    kernel.constraints.emplace_back(attr, dtypes);
  }
  return kernel;
}

} // namespace

OpSpec
parse_op(const YAML::Node& node, const std::string& name)
{
  yaml::expect_keys(node, {"name", "inputs", "outputs", "attrs", "kernels", "tests"}, name);
  OpSpec op;
  op.name = yaml::get_string(node, "name", name);
  if (!is_valid_op_name(op.name)) {
    fail(ExitCode::usage,
         "{}: invalid op name '{}' (TensorFlow op names are CamelCase, optionally namespaced: "
         "[A-Z][A-Za-z0-9>]*, e.g. Vendor>OpName)",
         yaml::where(name, node["name"]), op.name);
  }
  op.attrs = parse_attrs(node["attrs"], name);
  op.inputs = parse_args(node["inputs"], op.attrs, name);
  op.outputs = parse_args(node["outputs"], op.attrs, name);
  for (const YAML::Node& item : node["kernels"]) {
    op.kernels.push_back(parse_kernel(item, name));
  }
  for (const YAML::Node& item : node["tests"]) {
    op.tests.push_back(parse_test_vector(item, op, name));
  }
  return op;
}

} // namespace opkit::project
