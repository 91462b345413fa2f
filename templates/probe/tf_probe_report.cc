// opkit's load probe, part 2: a library compiled against one TensorFlow SDK
// with that SDK's flags and linked with its framework library. tf_probe
// dlopens it RTLD_LOCAL, so the framework sits in a local scope as under TF's
// Python; it records the op and kernel registries before the op library is
// loaded and reports, as JSON, what the op library added to them.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "tensorflow/core/framework/kernel_def.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_def.pb.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/public/version.h"

namespace {

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string type_list(const tensorflow::AttrValue& value) {
  std::string out = "[";
  for (int i = 0; i < value.list().type_size(); ++i) {
    out += (i ? "," : "") + quote(tensorflow::DataTypeString(value.list().type(i)));
  }
  return out + "]";
}

std::string arg_json(const tensorflow::OpDef::ArgDef& arg) {
  std::string type = arg.type_attr().empty() ? tensorflow::DataTypeString(arg.type()) : arg.type_attr();
  if (!arg.type_list_attr().empty()) type = arg.type_list_attr();
  return "{\"name\":" + quote(arg.name()) + ",\"type\":" + quote(type) + ",\"number_attr\":" +
         quote(arg.number_attr()) + "}";
}

std::string op_json(const tensorflow::OpDef& op) {
  std::string out = "{\"name\":" + quote(op.name()) + ",\"inputs\":[";
  for (int i = 0; i < op.input_arg_size(); ++i) out += (i ? "," : "") + arg_json(op.input_arg(i));
  out += "],\"outputs\":[";
  for (int i = 0; i < op.output_arg_size(); ++i) out += (i ? "," : "") + arg_json(op.output_arg(i));
  out += "],\"attrs\":[";
  for (int i = 0; i < op.attr_size(); ++i) {
    const tensorflow::OpDef::AttrDef& attr = op.attr(i);
    out += std::string(i ? "," : "") + "{\"name\":" + quote(attr.name()) + ",\"type\":" + quote(attr.type()) +
           ",\"allowed\":" + type_list(attr.allowed_values()) + "}";
  }
  return out + "]}";
}

std::string kernel_json(const tensorflow::KernelDef& kernel) {
  std::string out = "{\"op\":" + quote(kernel.op()) + ",\"device\":" + quote(kernel.device_type()) +
                    ",\"constraints\":[";
  for (int i = 0; i < kernel.constraint_size(); ++i) {
    out += std::string(i ? "," : "") + "{\"name\":" + quote(kernel.constraint(i).name()) +
           ",\"allowed\":" + type_list(kernel.constraint(i).allowed_values()) + "}";
  }
  return out + "]}";
}

std::set<std::string> op_names() {
  std::vector<tensorflow::OpDef> ops;
  tensorflow::OpRegistry::Global()->GetRegisteredOps(&ops);
  std::set<std::string> names;
  for (const auto& op : ops) names.insert(op.name());
  return names;
}

std::set<std::string> kernel_keys() {
  std::set<std::string> keys;
  tensorflow::KernelList all = tensorflow::GetAllRegisteredKernels();
  for (int i = 0; i < all.kernel_size(); ++i) keys.insert(all.kernel(i).SerializeAsString());
  return keys;
}

}  // namespace

static std::set<std::string>* g_ops_before = nullptr;
static std::set<std::string>* g_kernels_before = nullptr;
static std::string* g_report = nullptr;

extern "C" __attribute__((visibility("default"))) void opkit_probe_snapshot() {
  g_ops_before = new std::set<std::string>(op_names());
  g_kernels_before = new std::set<std::string>(kernel_keys());
}

extern "C" __attribute__((visibility("default"))) const char* opkit_probe_refused(const char* error) {
  g_report = new std::string("{\"loaded\":false,\"error\":" + quote(error) + "}");
  return g_report->c_str();
}

extern "C" __attribute__((visibility("default"))) const char* opkit_probe_report() {
  std::string out = "{\"loaded\":true,\"error\":\"\",\"tf_version\":" + quote(TF_VERSION_STRING) + ",\"ops\":[";
  std::vector<tensorflow::OpDef> ops;
  tensorflow::OpRegistry::Global()->GetRegisteredOps(&ops);
  bool first = true;
  for (const auto& op : ops) {
    if (g_ops_before->count(op.name())) continue;
    out += (first ? "" : ",") + op_json(op);
    first = false;
  }
  out += "],\"kernels\":[";
  tensorflow::KernelList all = tensorflow::GetAllRegisteredKernels();
  first = true;
  for (int i = 0; i < all.kernel_size(); ++i) {
    if (g_kernels_before->count(all.kernel(i).SerializeAsString())) continue;
    out += (first ? "" : ",") + kernel_json(all.kernel(i));
    first = false;
  }
  g_report = new std::string(out + "]}");
  return g_report->c_str();
}
