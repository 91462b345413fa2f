#include "opkit/probe/lock.hpp"

#include "opkit/project/attr_spec.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace opkit::probe {

namespace {

const char* k_header = "# opkit.lock: the op interface each library registers in each framework SDK, as\n"
                       "# `opkit test` read it from the framework's own registry (TensorFlow: attrs with\n"
                       "# their defaults, allowed values and minimums; kernels with their devices and type\n"
                       "# constraints. PyTorch: each operator's schema; its kernels' dispatch keys).\n"
                       "# Written by opkit: commit it and review its changes like code. `opkit test` fails\n"
                       "# when an interface changes; `opkit test --update` accepts the change.\n";
const char* k_version = "version: 1";

bool
same_args(const std::vector<project::OpArg>& a, const std::vector<project::OpArg>& b)
{
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const project::OpArg& x, const project::OpArg& y) {
    return project::render_arg_spec(x) == project::render_arg_spec(y);
  });
}

bool
same_op(const RegisteredOp& a, const RegisteredOp& b)
{
  return a.name == b.name && a.stateful == b.stateful && a.schema == b.schema && same_args(a.inputs, b.inputs)
         && same_args(a.outputs, b.outputs)
         && std::equal(a.attrs.begin(), a.attrs.end(), b.attrs.begin(), b.attrs.end(),
                       [](const project::OpAttr& x, const project::OpAttr& y) {
                         return project::render_attr_spec(x) == project::render_attr_spec(y);
                       });
}

std::string
minimum_text(const std::optional<int64_t>& value)
{
  return value ? std::to_string(*value) : "none";
}

void
diff_attrs(const RegisteredOp& before, const RegisteredOp& after, std::vector<std::string>& out)
{
  auto find = [](const RegisteredOp& op, const std::string& name) {
    auto at = std::find_if(op.attrs.begin(), op.attrs.end(), [&](const project::OpAttr& a) { return a.name == name; });
    return at == op.attrs.end() ? nullptr : &*at;
  };
  for (const project::OpAttr& old : before.attrs) {
    const project::OpAttr* now = find(after, old.name);
    std::string lead = fmt::format("{}: attr {}: ", before.name, old.name);
    if (now == nullptr) {
      out.push_back(lead + "removed (was " + project::render_attr_spec(old) + ")");
      continue;
    }
    if (project::render_attr_type(old) != project::render_attr_type(*now)) {
      out.push_back(lead + "type " + project::render_attr_type(old) + " -> " + project::render_attr_type(*now));
    }
    if (old.default_value != now->default_value) {
      out.push_back(lead + "default " + value_or_none(old.default_value) + " -> " + value_or_none(now->default_value));
    }
    if (old.minimum != now->minimum) {
      out.push_back(lead + "minimum " + minimum_text(old.minimum) + " -> " + minimum_text(now->minimum));
    }
  }
  for (const project::OpAttr& now : after.attrs) {
    if (find(before, now.name) == nullptr) {
      out.push_back(fmt::format("{}: attr {}: added ({})", after.name, now.name, project::render_attr_spec(now)));
    }
  }
}

void
diff_op(const RegisteredOp& before, const RegisteredOp& after, std::vector<std::string>& out)
{
  if (before.stateful != after.stateful) {
    out.push_back(fmt::format("{}: stateful {} -> {}", before.name, before.stateful, after.stateful));
  }
  if (before.schema != after.schema) {
    out.push_back(fmt::format("{}: schema {} -> {}", before.name, before.schema.empty() ? "none" : before.schema,
                              after.schema.empty() ? "none" : after.schema));
  }
  for (auto [what, old, now] :
       {std::tuple{"inputs", &before.inputs, &after.inputs}, std::tuple{"outputs", &before.outputs, &after.outputs}}) {
    if (!same_args(*old, *now)) {
      out.push_back(fmt::format("{}: {} ({}) -> ({})", before.name, what, project::render_arg_specs(*old),
                                project::render_arg_specs(*now)));
    }
  }
  diff_attrs(before, after, out);
}

// "Op DEVICE ..." as "Op: kernel DEVICE ...: <what>".
std::string
kernel_change(const std::string& line, const char* what)
{
  size_t space = line.find(' ');
  return fmt::format("{}: kernel {}: {}", line.substr(0, space), line.substr(space + 1), what);
}

// One line of the lock: its number, its text, and a failure naming both.
struct Line
{
  const std::string& name;
  size_t number;
  std::string_view text;
  [[noreturn]] void fail(size_t column, const std::string& cause) const
  {
    opkit::fail(ExitCode::usage, "{}:{}:{}: {} (`opkit test --update` writes it again)", name, number, column + 1,
                cause);
  }
};

template<typename Parse>
auto
parse_spec(const Line& line, size_t at, Parse parse)
{
  try {
    return parse(line.text.substr(at));
  } catch (const project::SpecError& e) {
    line.fail(at + e.offset, e.what());
  }
}

} // namespace

bool
Interface::operator==(const Interface& other) const
{
  return kernels == other.kernels && std::equal(ops.begin(), ops.end(), other.ops.begin(), other.ops.end(), same_op);
}

const LockEntry*
LockFile::find(const std::string& library, const std::string& sdk) const
{
  for (const LockEntry& entry : entries) {
    if (entry.library == library && entry.sdk == sdk) {
      return &entry;
    }
  }
  return nullptr;
}

void
LockFile::put(LockEntry entry)
{
  auto key = [](const LockEntry& e) { return std::tie(e.library, e.sdk); };
  auto at = std::lower_bound(entries.begin(), entries.end(), entry,
                             [&](const LockEntry& a, const LockEntry& b) { return key(a) < key(b); });
  if (at != entries.end() && key(*at) == key(entry)) {
    *at = std::move(entry);
  } else {
    entries.insert(at, std::move(entry));
  }
}

std::string
kernel_line(const RegisteredKernel& kernel)
{
  std::vector<std::string> constraints;
  constraints.reserve(kernel.constraints.size());
  for (const RegisteredAttr& constraint : kernel.constraints) {
    constraints.push_back(fmt::format("{} in {{{}}}", constraint.name, join(constraint.allowed, ", ")));
  }
  std::string line = kernel.op + " " + kernel.device;
  line += constraints.empty() ? "" : " " + join(constraints, "; ");
  line += kernel.label.empty() ? "" : " label " + project::quoted_text(kernel.label);
  return line;
}

Interface
interface_of(const ProbeReport& report)
{
  Interface interface {
    report.ops, {}
  };
  std::sort(interface.ops.begin(), interface.ops.end(),
            [](const RegisteredOp& a, const RegisteredOp& b) { return a.name < b.name; });
  for (const RegisteredKernel& kernel : report.kernels) {
    interface.kernels.push_back(kernel_line(kernel));
  }
  std::sort(interface.kernels.begin(), interface.kernels.end());
  return interface;
}

std::string
render_lock(const LockFile& lock)
{
  std::string out = std::string(k_header) + k_version + "\n";
  for (const LockEntry& entry : lock.entries) {
    out += fmt::format("\nlibrary {} {}\n", entry.library, entry.sdk);
    for (const RegisteredOp& op : entry.interface.ops) {
      out += "op " + op.name + "\n";
      out += op.stateful ? "  stateful\n" : "";
      out += op.schema.empty() ? "" : "  schema " + op.schema + "\n";
      for (const project::OpArg& arg : op.inputs) {
        out += "  input " + project::render_arg_spec(arg) + "\n";
      }
      for (const project::OpArg& arg : op.outputs) {
        out += "  output " + project::render_arg_spec(arg) + "\n";
      }
      for (const project::OpAttr& attr : op.attrs) {
        out += "  attr " + project::render_attr_spec(attr) + "\n";
      }
    }
    for (const std::string& kernel : entry.interface.kernels) {
      out += "kernel " + kernel + "\n";
    }
  }
  return out;
}

LockFile
parse_lock(const std::string& text, const std::string& name)
{
  LockFile lock;
  std::vector<LockEntry> entries;
  bool versioned = false;
  std::vector<std::string> lines = split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    Line line{name, i + 1, lines[i]};
    std::string_view body = line.text;
    if (body.empty() || body[0] == '#') {
      continue;
    }
    if (!versioned) {
      if (body != k_version) {
        line.fail(0, fmt::format("expected '{}' (an opkit.lock this opkit writes)", k_version));
      }
      versioned = true;
      continue;
    }
    auto word = [&](std::string_view prefix) { return body.rfind(prefix, 0) == 0; };
    if (word("library ")) {
      std::vector<std::string> parts = split(std::string(body.substr(8)), ' ');
      if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
        line.fail(8, "expected 'library NAME SDK'");
      }
      entries.push_back({parts[0], parts[1], {}});
      continue;
    }
    if (entries.empty()) {
      line.fail(0, "expected 'library NAME SDK' before anything else");
    }
    Interface& interface = entries.back().interface;
    if (word("op ")) {
      if (body.size() == 3 || body.find(' ', 3) != std::string_view::npos) {
        line.fail(3, "expected 'op NAME'");
      }
      interface.ops.push_back({std::string(body.substr(3)), {}, {}, {}});
    } else if (word("kernel ")) {
      if (body.find(' ', 7) == std::string_view::npos) {
        line.fail(7, "expected 'kernel OP DEVICE ...'");
      }
      interface.kernels.emplace_back(body.substr(7));
    } else if (word("  ")) {
      if (interface.ops.empty()) {
        line.fail(2, "an op's line before any 'op NAME'");
      }
      RegisteredOp& op = interface.ops.back();
      if (body == "  stateful") {
        op.stateful = true;
      } else if (word("  schema ")) {
        op.schema = std::string(body.substr(9)); // torch's FunctionSchema text, as the dispatcher prints it
      } else if (word("  input ")) {
        op.inputs.push_back(parse_spec(line, 8, project::parse_arg_spec));
      } else if (word("  output ")) {
        op.outputs.push_back(parse_spec(line, 9, project::parse_arg_spec));
      } else if (word("  attr ")) {
        project::OpAttr attr = parse_spec(line, 7, project::parse_attr_spec);
        attr.full_spec = false;
        op.attrs.push_back(attr);
      } else {
        line.fail(2, "expected stateful, schema, input, output or attr");
      }
    } else {
      line.fail(0, "expected library, op or kernel");
    }
  }
  if (!versioned) {
    fail(ExitCode::usage, "{}: empty: expected '{}' (`opkit test --update` writes it again)", name, k_version);
  }
  for (LockEntry& entry : entries) {
    std::sort(entry.interface.ops.begin(), entry.interface.ops.end(),
              [](const RegisteredOp& a, const RegisteredOp& b) { return a.name < b.name; });
    std::sort(entry.interface.kernels.begin(), entry.interface.kernels.end());
    if (lock.find(entry.library, entry.sdk) != nullptr) {
      fail(ExitCode::usage, "{}: library {} {} appears twice (`opkit test --update` writes it again)", name,
           entry.library, entry.sdk);
    }
    lock.put(std::move(entry));
  }
  return lock;
}

std::vector<std::string>
diff_interfaces(const Interface& before, const Interface& after)
{
  std::vector<std::string> out;
  std::map<std::string, std::pair<const RegisteredOp*, const RegisteredOp*>> ops;
  for (const RegisteredOp& op : before.ops) {
    ops[op.name].first = &op;
  }
  for (const RegisteredOp& op : after.ops) {
    ops[op.name].second = &op;
  }
  for (const auto& [name, pair] : ops) {
    if (pair.second == nullptr) {
      out.push_back(name + ": op removed");
    } else if (pair.first == nullptr) {
      out.push_back(name + ": op added");
    } else {
      diff_op(*pair.first, *pair.second, out);
    }
  }
  std::vector<std::string> removed;
  std::vector<std::string> added;
  std::set_difference(before.kernels.begin(), before.kernels.end(), after.kernels.begin(), after.kernels.end(),
                      std::back_inserter(removed));
  std::set_difference(after.kernels.begin(), after.kernels.end(), before.kernels.begin(), before.kernels.end(),
                      std::back_inserter(added));
  for (const std::string& line : removed) {
    out.push_back(kernel_change(line, "removed"));
  }
  for (const std::string& line : added) {
    out.push_back(kernel_change(line, "added"));
  }
  return out;
}

} // namespace opkit::probe
