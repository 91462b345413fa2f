#include "opkit/project/op_yaml.hpp"

#include "opkit/project/attr_spec.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/project/names.hpp"
#include "opkit/project/torch_schema.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"
#include "opkit/util/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace opkit::project {

namespace {

const std::vector<std::string> k_attr_types = {"type",  "int",        "float",     "bool",        "string",
                                               "shape", "list(type)", "list(int)", "list(float)", "tensor"};

bool
contains(const std::vector<std::string>& list, const std::string& value)
{
  return std::find(list.begin(), list.end(), value) != list.end();
}

// A dtype as the framework's table reads it (TensorFlow's registry: "float32"
// is float; torch: "float" is float32); any other spelling is Error(usage) at
// `where`, calling it an unknown `kind`.
std::string
dtype_named(const std::string& spelling, const Node& where, const std::string& name,
            const FrameworkTable& table = FrameworkTable::tensorflow(), const char* kind = "dtype")
{
  std::string dtype = table.canonical_dtype(spelling);
  if (dtype.empty()) {
    std::optional<std::string> meant = nearest(spelling, table.dtypes());
    fail(ExitCode::usage, "{}: unknown {} '{}'{}", yaml::where(name, where), kind, spelling,
         meant ? " (did you mean " + *meant + "?)" : std::string());
  }
  return dtype;
}

// "name:line:col" of the byte `offset` of a scalar's spec (a quoted scalar starts one column later).
std::string
where_in(const std::string& name, const Node& node, size_t offset)
{
  NodeMark mark = node.mark();
  if (mark.is_null()) {
    return name;
  }
  mark.column += static_cast<int>(offset) + (node.quoted() ? 1 : 0);
  return yaml::at(name, mark);
}

// A spec item in TensorFlow's REGISTER_OP grammar (project/attr_spec), or its error at file:line:col.
template<typename Parse>
auto
parse_spec(const Node& item, const char* what, const std::string& name, Parse parse)
{
  try {
    return parse(item.scalar());
  } catch (const project::SpecError& e) {
    fail(ExitCode::usage, "{}: {} '{}': {}", where_in(name, item, e.offset), what, item.scalar(), e.what());
  }
}

// - {name: T, type: type, allowed: [float, int32]}
// - "clip: float = 100.0"      (TensorFlow's attr grammar: defaults, enums, minimums)
std::vector<OpAttr>
parse_attrs(const Node& op, const std::string& name)
{
  std::vector<OpAttr> attrs;
  for (const Node& item : yaml::get_list(op, "attrs", name)) {
    if (item.is_scalar()) {
      attrs.push_back(parse_spec(item, "attr", name, parse_attr_spec));
      continue;
    }
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
    for (std::string& dtype : attr.allowed) {
      dtype = dtype_named(dtype, item["allowed"], name);
    }
    attrs.push_back(attr);
  }
  return attrs;
}

std::vector<OpArg>
parse_args(const Node& op, const char* key, const std::vector<OpAttr>& attrs, const std::string& name)
{
  std::vector<OpArg> args;
  for (const Node& item : yaml::get_list(op, key, name)) {
    OpArg arg;
    if (item.is_scalar()) {
      arg = parse_spec(item, "argument", name, parse_arg_spec); // "keys: string", "values: N * T"
    } else {
      yaml::expect_keys(item, {"name", "type"}, name);
      arg = {yaml::get_string(item, "name", name), yaml::get_string(item, "type", name)};
    }
    auto at = [&](const char* field) { return yaml::where(name, item.is_scalar() ? item : item[field]); };
    if (!is_valid_arg_name(arg.name)) {
      fail(ExitCode::usage, "{}: invalid argument name '{}'", at("name"), arg.name);
    }
    if (!arg.number_attr.empty() && std::none_of(attrs.begin(), attrs.end(), [&](const OpAttr& a) {
          return a.name == arg.number_attr && a.type == "int";
        })) {
      fail(ExitCode::usage, "{}: '{}' in '{} * {}' is not an int attr of this op", at("type"), arg.number_attr,
           arg.number_attr, arg.type);
    }
    bool is_attr = std::any_of(attrs.begin(), attrs.end(), [&](const OpAttr& a) {
      return a.name == arg.type && (a.type == "type" || a.type == "list(type)");
    });
    if (!is_attr && canonical_dtype(arg.type).empty()) {
      fail(ExitCode::usage, "{}: type '{}' is neither a dtype nor a type attr of this op", at("type"), arg.type);
    }
    arg.type = is_attr ? arg.type : canonical_dtype(arg.type);
    args.push_back(arg);
  }
  return args;
}

// {file: data/vocab.txt}: a file of the project, which the op reads; the op gets its absolute path.
bool
is_file_value(const Node& node)
{
  return node.is_map() && node["file"].is_defined();
}

// `file:`'s path: relative, and inside the project once "." and ".." apply
// (a symlink out of it is refused where the file is read, python_vectors).
std::string
project_file(const Node& node, const std::string& name)
{
  std::string path = yaml::get_string(node, "file", name);
  if (path.empty() || !fs::stays_inside(path)) {
    fail(ExitCode::usage, "{}: test data file '{}' must be a file of the project: a path relative to it, inside it",
         yaml::where(name, node["file"]), path);
  }
  return path;
}

TestVector::Value
file_value(const std::string& arg, const std::string& type, const Node& node, const std::string& name)
{
  yaml::expect_keys(node, {"file"}, name);
  return {arg, type, "", project_file(node, name), yaml::where(name, node["file"])};
}

// A torch tensor argument: the value alone (torch.tensor infers its dtype, as
// in Python) or {dtype: int32, value: ...}, dtype by torch's names.
TestVector::Value
parse_torch_tensor(const OpArg& arg, const Node& node, const std::string& name)
{
  if (!node.is_map()) {
    return {arg.name, "", yaml::to_json_text(node), "", yaml::where(name, node)};
  }
  yaml::expect_keys(node, {"dtype", "value"}, name);
  if (!node["value"].is_defined()) {
    fail(ExitCode::usage, "{}: input '{}' needs value: (and may give dtype:)", yaml::where(name, node), arg.name);
  }
  std::string dtype = node["dtype"].is_defined() ? dtype_named(yaml::get_string(node, "dtype", name), node["dtype"],
                                                               name, FrameworkTable::get("torch"), "torch dtype")
                                                 : "";
  return {arg.name, dtype, yaml::to_json_text(node["value"]), "", yaml::where(name, node["value"])};
}

// An input: {dtype: string, value: [...]}, {dtype: string, file: path}, or the
// value alone when the op's input has a fixed dtype (torch: parse_torch_tensor).
TestVector::Value
parse_input_value(const OpArg& arg, const Node& node, const std::string& name)
{
  if (arg.type == "Tensor" || arg.type == "Tensor[]") {
    return parse_torch_tensor(arg, node, name);
  }
  if (!node.is_map()) {
    if (!contains(known_dtypes(), arg.type)) {
      fail(ExitCode::usage, "{}: input '{}' has the type of attr {}: give {{dtype: ..., value: ...}}",
           yaml::where(name, node), arg.name, arg.type);
    }
    return {arg.name, arg.type, yaml::to_json_text(node), "", yaml::where(name, node)};
  }
  yaml::expect_keys(node, {"dtype", "value", "file"}, name);
  std::string dtype = dtype_named(node["dtype"].is_defined() ? yaml::get_string(node, "dtype", name) : arg.type,
                                  node["dtype"].is_defined() ? node["dtype"] : node, name);
  if (node["value"].is_defined() == node["file"].is_defined()) {
    fail(ExitCode::usage, "{}: input '{}' needs exactly one of value: and file:", yaml::where(name, node), arg.name);
  }
  if (node["file"].is_defined()) {
    if (dtype != "string") {
      fail(ExitCode::usage, "{}: input '{}' names a file, so its dtype must be string", yaml::where(name, node),
           arg.name);
    }
    return {arg.name, dtype, "", project_file(node, name), yaml::where(name, node["file"])};
  }
  return {arg.name, dtype, yaml::to_json_text(node["value"]), "", yaml::where(name, node["value"])};
}

// A map from the op's argument (or attr) names to values: every name must be one of them.
void
expect_names(const Node& map, const std::vector<std::string>& known, const std::string& what, const std::string& name)
{
  if (!map.is_defined()) {
    return;
  }
  if (!map.is_map()) {
    fail(ExitCode::usage, "{}: test vector {} must map names to values", yaml::where(name, map), what);
  }
  for (const auto& entry : map) {
    if (!contains(known, entry.first.scalar())) {
      fail(ExitCode::usage, "{}: the op has no {} '{}' (it has: {})", yaml::where(name, entry.first), what,
           entry.first.scalar(), known.empty() ? "none" : join(known, ", "));
    }
  }
}

template<typename T>
std::vector<std::string>
names_of(const std::vector<T>& items)
{
  std::vector<std::string> names;
  names.reserve(items.size());
  for (const T& item : items) {
    names.push_back(item.name);
  }
  return names;
}

// torch: a vector's null is None, which only an optional argument (`T?`) takes.
void
expect_none_taken(const Node& value, const std::string& arg, const std::string& type, bool nullable,
                  const std::string& name)
{
  if (value.is_null() && !nullable) {
    fail(ExitCode::usage,
         "{}: input '{}' is null (None), but the op's argument '{}' is {}, not optional: only `{}? {}` would take None",
         yaml::where(name, value), arg, arg, type, type, arg);
  }
}

// torch: a vector's outputs are the op's results and the arguments it writes into (`Tensor(a!)`).
std::vector<std::string>
torch_output_names(const OpSpec& op, const Node& outputs, const std::string& name)
{
  std::vector<std::string> names = names_of(op.outputs);
  for (const OpArg& arg : op.inputs) {
    if (arg.mutated && !contains(names, arg.name)) {
      names.push_back(arg.name);
    }
  }
  if (!outputs.is_map()) {
    return names; // expect_names says what is wrong with it
  }
  std::vector<std::string> arguments = names_of(op.inputs);
  for (const OpAttr& attr : op.attrs) {
    arguments.push_back(attr.name);
  }
  for (const auto& entry : outputs) {
    std::string output = entry.first.scalar();
    if (contains(arguments, output) && !contains(names, output)) {
      fail(ExitCode::usage,
           "{}: '{}' is an argument the op does not write into: only a result or an argument it writes "
           "into (`Tensor(a!)`) is an output (this op's: {})",
           yaml::where(name, entry.first), output, names.empty() ? "none" : join(names, ", "));
    }
  }
  return names;
}

// - name: two keys
//   attrs: {num_buckets: 16, salt: s1, vocab: {file: data/vocab.txt}}
//   inputs: {keys: {dtype: string, value: [a, b]}}
//   outputs: {buckets: [3, 7]}      (or: error: "must be a vector")
//
// A torch op's vector gives every argument of its schema under `inputs:`
// (tensors and the rest alike; null is None, for a `T?` argument) and its
// results under `outputs:`, with any argument it writes into (`Tensor(a!)`)
// whose value after the call is checked.
TestVector
parse_test_vector(const Node& item, const OpSpec& op, const std::string& name)
{
  bool torch = !op.schema.empty();
  if (torch) {
    yaml::expect_keys(item, {"name", "inputs", "outputs", "error", "tolerance"}, name);
  } else {
    yaml::expect_keys(item, {"name", "attrs", "inputs", "outputs", "error", "tolerance"}, name);
  }
  TestVector vector;
  vector.name = yaml::get_string_or(item, "name", name, "");
  std::vector<std::string> input_names = names_of(op.inputs);
  if (torch) {
    std::vector<std::string> more = names_of(op.attrs);
    input_names.insert(input_names.end(), more.begin(), more.end());
  } else {
    expect_names(item["attrs"], names_of(op.attrs), "attr", name);
  }
  expect_names(item["inputs"], input_names, "input", name);
  expect_names(item["outputs"], torch ? torch_output_names(op, item["outputs"], name) : names_of(op.outputs), "output",
               name);
  // yaml-cpp: indexing a missing node throws; a missing map stands for all its missing entries.
  auto entry = [](const Node& map, const std::string& key) { return map.is_defined() ? map[key] : map; };
  const Node attrs = torch ? item["inputs"] : item["attrs"];
  const Node inputs = item["inputs"];
  const Node outputs = item["outputs"];
  for (const OpAttr& attr : op.attrs) {
    Node value = entry(attrs, attr.name);
    if (torch) {
      expect_none_taken(value, attr.name, attr.type, ends_with(attr.type, "?"), name);
    }
    if (value.is_defined()) {
      vector.attrs.push_back(is_file_value(value) ? file_value(attr.name, attr.type, value, name)
                                                  : TestVector::Value{attr.name, attr.type, yaml::to_json_text(value),
                                                                      "", yaml::where(name, value)});
    }
  }
  for (const OpArg& arg : op.inputs) {
    Node value = entry(inputs, arg.name);
    if (!value.is_defined() && arg.optional) {
      continue; // the op's default (or None)
    }
    if (!value.is_defined()) {
      fail(ExitCode::usage, "{}: test vector lacks input '{}'", yaml::where(name, item), arg.name);
    }
    if (torch) {
      expect_none_taken(value, arg.name, arg.type, arg.nullable, name);
    }
    vector.inputs.push_back(parse_input_value(arg, value, name));
  }
  vector.expects_error = item["error"].is_defined();
  if (vector.expects_error) {
    vector.error = yaml::get_string(item, "error", name);
    if (item["outputs"].is_defined()) {
      fail(ExitCode::usage, "{}: a test vector expects either outputs or an error, not both",
           yaml::where(name, item["outputs"]));
    }
  }
  for (const OpArg& arg : op.outputs) {
    if (vector.expects_error) {
      break;
    }
    Node value = entry(outputs, arg.name);
    if (!value.is_defined()) {
      fail(ExitCode::usage, "{}: test vector lacks output '{}' (or error: if the op must fail)",
           yaml::where(name, item), arg.name);
    }
    vector.outputs.push_back({arg.name, "", yaml::to_json_text(value), "", yaml::where(name, value)});
  }
  for (const OpArg& arg : op.inputs) { // torch: the arguments written into that the vector checks
    Node value = entry(outputs, arg.name);
    if (arg.mutated && value.is_defined() && !contains(names_of(op.outputs), arg.name)) {
      vector.outputs.push_back({arg.name, "", yaml::to_json_text(value), "", yaml::where(name, value)});
    }
  }
  if (item["tolerance"].is_defined()) {
    std::string text = yaml::get_string(item, "tolerance", name);
    char* end = nullptr;
    vector.tolerance = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(vector.tolerance >= 0) || !std::isfinite(vector.tolerance)) {
      fail(ExitCode::usage, "{}: tolerance must be a number >= 0, got '{}'", yaml::where(name, item["tolerance"]),
           text);
    }
  }
  return vector;
}

// - device: CPU
//   constraints: {T: [float, int32]}
KernelSpec
parse_kernel(const Node& item, const std::string& name)
{
  yaml::expect_keys(item, {"device", "constraints"}, name);
  KernelSpec kernel{yaml::get_string(item, "device", name), {}};
  const std::vector<std::string>& devices = FrameworkTable::tensorflow().kernel_keys();
  if (!contains(devices, kernel.device)) {
    fail(ExitCode::usage, "{}: kernel device must be {}, got '{}'", yaml::where(name, item["device"]),
         join(devices, " or "), kernel.device);
  }
  Node constraints = item["constraints"];
  if (constraints.is_defined() && !constraints.is_map()) {
    fail(ExitCode::usage, "{}: constraints must map attr names to dtype lists, e.g. {{T: [float, int32]}}",
         yaml::where(name, constraints));
  }
  for (const auto& entry : constraints) {
    std::string attr = entry.first.scalar();
    std::vector<std::string> dtypes = yaml::get_string_list(constraints, attr.c_str(), name);
    for (std::string& dtype : dtypes) {
      dtype = dtype_named(dtype, entry.second, name);
    }
    kernel.constraints.emplace_back(attr, dtypes);
  }
  return kernel;
}

// - schema: "ns::op(Tensor x, int dim=0) -> Tensor"
//   kernels: [CPU, Autograd]
//   tests: [...]
OpSpec
parse_torch_op(const Node& node, const std::string& name)
{
  yaml::expect_keys(node, {"schema", "kernels", "tests"}, name);
  if (!node["schema"].is_defined()) {
    fail(ExitCode::usage, "{}: a torch op is declared by its schema, e.g. schema: \"ns::op(Tensor x) -> Tensor\"",
         yaml::where(name, node));
  }
  yaml::get_string(node, "schema", name); // a scalar
  TorchSchema schema = parse_spec(node["schema"], "schema", name, parse_torch_schema);
  OpSpec op;
  op.name = schema.name;
  op.schema = render_torch_schema(schema);
  for (const TorchArg& arg : schema.args) {
    if (arg.is_tensor() || arg.is_tensors()) {
      OpArg input{arg.name, arg.is_tensors() ? "Tensor[]" : "Tensor"};
      input.optional = arg.may_omit();
      input.nullable = arg.is_optional();
      input.mutated = arg.is_mutated();
      op.inputs.push_back(input);
    } else {
      OpAttr attr{arg.name, arg.base_type(), {}};
      if (!arg.default_value.empty()) {
        attr.default_value = arg.default_value;
      }
      op.attrs.push_back(attr);
    }
  }
  std::vector<std::string> results = torch_result_names(schema);
  for (size_t i = 0; i < results.size(); ++i) {
    op.outputs.push_back({results[i], schema.returns[i].base_type()});
  }
  const FrameworkTable& torch = FrameworkTable::get("torch");
  for (const std::string& key : yaml::get_string_list(node, "kernels", name)) {
    if (!contains(torch.kernel_keys(), key)) {
      std::optional<std::string> meant = nearest(key, torch.kernel_keys());
      fail(ExitCode::usage, "{}: '{}' is not a dispatch key opkit reads (one of: {}){}",
           yaml::where(name, node["kernels"]), key, join(torch.kernel_keys(), ", "),
           meant ? " (did you mean " + *meant + "?)" : std::string());
    }
    op.kernels.push_back({key, {}});
  }
  for (const Node& item : yaml::get_list(node, "tests", name)) {
    op.tests.push_back(parse_test_vector(item, op, name));
  }
  return op;
}

} // namespace

OpSpec
parse_op(const Node& node, const std::string& name, const std::string& framework)
{
  if (framework == "torch") {
    return parse_torch_op(node, name);
  }
  yaml::expect_keys(node, {"name", "inputs", "outputs", "attrs", "kernels", "tests"}, name);
  OpSpec op;
  op.name = yaml::get_string(node, "name", name);
  if (!is_valid_op_name(op.name)) {
    fail(ExitCode::usage,
         "{}: invalid op name '{}' (TensorFlow op names are CamelCase, optionally namespaced: "
         "[A-Z][A-Za-z0-9>]*, e.g. Vendor>OpName)",
         yaml::where(name, node["name"]), op.name);
  }
  if (std::string problem = op_name_problem(op.name); !problem.empty()) {
    fail(ExitCode::usage, "{}: op name '{}': {}", yaml::where(name, node["name"]), op.name, problem);
  }
  op.attrs = parse_attrs(node, name);
  op.inputs = parse_args(node, "inputs", op.attrs, name);
  op.outputs = parse_args(node, "outputs", op.attrs, name);
  for (const Node& item : yaml::get_list(node, "kernels", name)) {
    op.kernels.push_back(parse_kernel(item, name));
  }
  for (const Node& item : yaml::get_list(node, "tests", name)) {
    op.tests.push_back(parse_test_vector(item, op, name));
  }
  return op;
}

} // namespace opkit::project
