// opkit's load probe, part 2: a library compiled against one TensorFlow SDK
// with that SDK's flags and linked with its framework library. load_probe
// dlopens it RTLD_LOCAL, so the framework sits in a local scope as under TF's
// Python; it records the op and kernel registries before the op library is
// loaded and reports, as JSON, what the op library added to them.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/kernel_def.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_def.pb.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.pb.h"
#include "tensorflow/core/framework/tensor_shape.pb.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/public/version.h"
#if !defined(TF_VERSION_STRING) && __has_include("tensorflow/core/public/release_version.h")
// TF 2.20+: TF_VERSION_STRING moved here, made of the -D opkit passes (the SDK's `defines`).
#include "tensorflow/core/public/release_version.h"
#endif

namespace {

// `text` double-quoted: as JSON (control bytes as \u00XX), or as C (\r too, and every byte
// outside printable ASCII as octal \ooo: opkit's canonical form, project/attr_spec.cpp).
std::string
escaped(const std::string& text, bool json)
{
  std::string out = "\"";
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    char buffer[8];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (!json && c == '\r') {
          out += "\\r";
        } else if (byte < 0x20 || (!json && byte >= 0x7f)) {
          std::snprintf(buffer, sizeof buffer, json ? "\\u%04x" : "\\%03o", byte);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string
quote(const std::string& text)
{
  return escaped(text, true);
}

std::string
c_quoted(const std::string& text)
{
  return escaped(text, false);
}

std::string
type_list(const tensorflow::AttrValue& value)
{
  std::string out = "[";
  for (int i = 0; i < value.list().type_size(); ++i) {
    out += (i ? "," : "") + quote(tensorflow::DataTypeString(value.list().type(i)));
  }
  return out + "]";
}

// The readable forms below are opkit's canonical ones (src/opkit/project/attr_spec.cpp):
// the same value prints the same text in every TF version and on every machine.
std::string
float_text(float value)
{
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buffer[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

std::string
shape_text(const tensorflow::TensorShapeProto& shape)
{
  if (shape.unknown_rank())
    return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    out += i ? ", " : "";
    out += shape.dim(i).size() < 0 ? std::string("?") : std::to_string(static_cast<long long>(shape.dim(i).size()));
  }
  return out + "]";
}

std::string
tensor_text(const tensorflow::TensorProto& tensor)
{
  return "<tensor " + tensorflow::DataTypeString(tensor.dtype()) + " " + shape_text(tensor.tensor_shape()) + ">";
}

// One value of an attr whose type is `type` ("int", "string", ...; a list's element type).
std::string
scalar_text(const tensorflow::AttrValue& value, const std::string& type)
{
  if (type == "string")
    return c_quoted(value.s());
  if (type == "int")
    return std::to_string(static_cast<long long>(value.i()));
  if (type == "float")
    return float_text(value.f());
  if (type == "bool")
    return value.b() ? "true" : "false";
  if (type == "type")
    return tensorflow::DataTypeString(value.type());
  if (type == "shape")
    return shape_text(value.shape());
  if (type == "tensor")
    return tensor_text(value.tensor());
  if (type == "func")
    return value.func().name();
  return "<" + type + ">";
}

std::string
list_text(const tensorflow::AttrValue::ListValue& list, const std::string& type)
{
  std::vector<std::string> items;
  for (int i = 0; i < list.s_size(); ++i)
    items.push_back(c_quoted(list.s(i)));
  for (int i = 0; i < list.i_size(); ++i)
    items.push_back(std::to_string(static_cast<long long>(list.i(i))));
  for (int i = 0; i < list.f_size(); ++i)
    items.push_back(float_text(list.f(i)));
  for (int i = 0; i < list.b_size(); ++i)
    items.push_back(list.b(i) ? "true" : "false");
  for (int i = 0; i < list.type_size(); ++i)
    items.push_back(tensorflow::DataTypeString(list.type(i)));
  for (int i = 0; i < list.shape_size(); ++i)
    items.push_back(shape_text(list.shape(i)));
  for (int i = 0; i < list.tensor_size(); ++i)
    items.push_back(tensor_text(list.tensor(i)));
  for (int i = 0; i < list.func_size(); ++i)
    items.push_back(list.func(i).name());
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out + "]";
}

std::string
value_text(const tensorflow::AttrValue& value, const std::string& type)
{
  if (value.value_case() == tensorflow::AttrValue::kPlaceholder)
    return "$" + value.placeholder();
  if (type.compare(0, 5, "list(") == 0)
    return list_text(value.list(), type.substr(5, type.size() - 6));
  return scalar_text(value, type);
}

// The allowed values of a type attr (dtype names) or a string enum (the strings), as JSON.
std::string
allowed_json(const tensorflow::AttrValue& value)
{
  std::string out = "[";
  for (int i = 0; i < value.list().type_size(); ++i) {
    out += (i ? "," : "") + quote(tensorflow::DataTypeString(value.list().type(i)));
  }
  for (int i = 0; i < value.list().s_size(); ++i) {
    out += (i ? "," : "") + quote(value.list().s(i));
  }
  return out + "]";
}

std::string
arg_json(const tensorflow::OpDef::ArgDef& arg)
{
  std::string type = arg.type_attr().empty() ? tensorflow::DataTypeString(arg.type()) : arg.type_attr();
  if (!arg.type_list_attr().empty())
    type = arg.type_list_attr();
  return "{\"name\":" + quote(arg.name()) + ",\"type\":" + quote(type) + ",\"number_attr\":" + quote(arg.number_attr())
         + ",\"is_ref\":" + (arg.is_ref() ? "true" : "false") + "}";
}

std::string
attr_json(const tensorflow::OpDef::AttrDef& attr)
{
  std::string out = "{\"name\":" + quote(attr.name()) + ",\"type\":" + quote(attr.type())
                    + ",\"allowed\":" + allowed_json(attr.allowed_values());
  if (attr.has_default_value())
    out += ",\"default\":" + quote(value_text(attr.default_value(), attr.type()));
  if (attr.has_minimum())
    out += ",\"minimum\":" + std::to_string(static_cast<long long>(attr.minimum()));
  return out + "}";
}

std::string
op_json(const tensorflow::OpDef& op)
{
  std::string out =
    "{\"name\":" + quote(op.name()) + ",\"stateful\":" + (op.is_stateful() ? "true" : "false") + ",\"inputs\":[";
  for (int i = 0; i < op.input_arg_size(); ++i)
    out += (i ? "," : "") + arg_json(op.input_arg(i));
  out += "],\"outputs\":[";
  for (int i = 0; i < op.output_arg_size(); ++i)
    out += (i ? "," : "") + arg_json(op.output_arg(i));
  out += "],\"attrs\":[";
  for (int i = 0; i < op.attr_size(); ++i)
    out += (i ? "," : "") + attr_json(op.attr(i));
  return out + "]}";
}

std::string
kernel_json(const tensorflow::KernelDef& kernel)
{
  std::string out = "{\"op\":" + quote(kernel.op()) + ",\"device\":" + quote(kernel.device_type())
                    + ",\"label\":" + quote(kernel.label()) + ",\"constraints\":[";
  for (int i = 0; i < kernel.constraint_size(); ++i) {
    out += std::string(i ? "," : "") + "{\"name\":" + quote(kernel.constraint(i).name())
           + ",\"allowed\":" + type_list(kernel.constraint(i).allowed_values()) + "}";
  }
  return out + "]}";
}

std::set<std::string>
op_names()
{
  std::vector<tensorflow::OpDef> ops;
  tensorflow::OpRegistry::Global()->GetRegisteredOps(&ops);
  std::set<std::string> names;
  for (const auto& op : ops)
    names.insert(op.name());
  return names;
}

std::set<std::string>
kernel_keys()
{
  std::set<std::string> keys;
  tensorflow::KernelList all = tensorflow::GetAllRegisteredKernels();
  for (int i = 0; i < all.kernel_size(); ++i)
    keys.insert(all.kernel(i).SerializeAsString());
  return keys;
}

} // namespace

static std::set<std::string>* g_ops_before = nullptr;
static std::set<std::string>* g_kernels_before = nullptr;
static std::string* g_report = nullptr;

extern "C" __attribute__((visibility("default"))) void
opkit_probe_snapshot()
{
  g_ops_before = new std::set<std::string>(op_names());
  g_kernels_before = new std::set<std::string>(kernel_keys());
}

extern "C" __attribute__((visibility("default"))) const char*
opkit_probe_refused(const char* error)
{
  g_report = new std::string("{\"loaded\":false,\"error\":" + quote(error) + "}");
  return g_report->c_str();
}

extern "C" __attribute__((visibility("default"))) const char*
opkit_probe_report()
{
  std::string out = "{\"loaded\":true,\"error\":\"\",\"tf_version\":" + quote(TF_VERSION_STRING) + ",\"ops\":[";
  std::vector<tensorflow::OpDef> ops;
  tensorflow::OpRegistry::Global()->GetRegisteredOps(&ops);
  bool first = true;
  for (const auto& op : ops) {
    if (g_ops_before->count(op.name()))
      continue;
    out += (first ? "" : ",") + op_json(op);
    first = false;
  }
  out += "],\"kernels\":[";
  tensorflow::KernelList all = tensorflow::GetAllRegisteredKernels();
  first = true;
  for (int i = 0; i < all.kernel_size(); ++i) {
    if (g_kernels_before->count(all.kernel(i).SerializeAsString()))
      continue;
    out += (first ? "" : ",") + kernel_json(all.kernel(i));
    first = false;
  }
  g_report = new std::string(out + "]}");
  return g_report->c_str();
}
