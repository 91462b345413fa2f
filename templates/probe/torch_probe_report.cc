// opkit's load probe for PyTorch, part 2: a library compiled against one torch
// SDK with that SDK's flags (its C++ ABI: the dispatcher's API takes and
// returns std::string) and linked with libc10 and libtorch_cpu. load_probe
// dlopens it RTLD_LOCAL, so the framework sits in a local scope as under
// torch's Python; it records the dispatcher's operators before the op library
// is loaded and reports, as JSON, what the op library added: each operator's
// schema and the dispatch keys it has a kernel for. The JSON has the shape of
// the TensorFlow reporter's (ops, kernels), so opkit compares and locks both alike.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", byte);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// "ns::op" or "ns::op.overload": how torch.ops and opkit.lock name an operator.
std::string qualified(const c10::OperatorName& name) {
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

std::set<std::string> op_names() {
  std::set<std::string> names;
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    names.insert(qualified(name));
  }
  return names;
}

// The dispatch keys a kernel may be registered under, as TORCH_LIBRARY_IMPL names them.
const std::vector<std::pair<c10::DispatchKey, const char*>>& reported_keys() {
  static const std::vector<std::pair<c10::DispatchKey, const char*>> keys = {
    {c10::DispatchKey::CPU, "CPU"},
    {c10::DispatchKey::CUDA, "CUDA"},
    {c10::DispatchKey::Meta, "Meta"},
    {c10::DispatchKey::Autograd, "Autograd"},
    {c10::DispatchKey::AutogradCPU, "AutogradCPU"},
    {c10::DispatchKey::AutogradCUDA, "AutogradCUDA"},
    {c10::DispatchKey::CompositeImplicitAutograd, "CompositeImplicitAutograd"},
    {c10::DispatchKey::CompositeExplicitAutograd, "CompositeExplicitAutograd"},
  };
  return keys;
}

std::set<std::string>* g_ops_before = nullptr;
std::string* g_report = nullptr;

} // namespace

extern "C" __attribute__((visibility("default"))) void opkit_probe_snapshot() {
  g_ops_before = new std::set<std::string>(op_names());
}

extern "C" __attribute__((visibility("default"))) const char* opkit_probe_refused(const char* error) {
  g_report = new std::string("{\"loaded\":false,\"error\":" + quote(error) + "}");
  return g_report->c_str();
}

extern "C" __attribute__((visibility("default"))) const char* opkit_probe_report() {
  std::string ops;
  std::string kernels;
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    std::string id = qualified(name);
    if (g_ops_before->count(id)) continue;
    std::optional<c10::OperatorHandle> handle = c10::Dispatcher::singleton().findOp(name);
    if (!handle) continue;
    std::string schema;
    if (handle->hasSchema()) {
      std::ostringstream text;
      text << handle->schema();
      schema = text.str();
    }
    ops += (ops.empty() ? "" : ",") + std::string("{\"name\":") + quote(id) + ",\"schema\":" + quote(schema) +
           ",\"inputs\":[],\"outputs\":[],\"attrs\":[]}";
    for (const auto& [key, key_name] : reported_keys()) {
      if (handle->hasKernelForDispatchKey(key)) {
        kernels += (kernels.empty() ? "" : ",") + std::string("{\"op\":") + quote(id) + ",\"device\":" +
                   quote(key_name) + ",\"constraints\":[]}";
      }
    }
  }
  g_report = new std::string("{\"loaded\":true,\"error\":\"\",\"tf_version\":" + quote(TORCH_VERSION) +
                             ",\"ops\":[" + ops + "],\"kernels\":[" + kernels + "]}");
  return g_report->c_str();
}
