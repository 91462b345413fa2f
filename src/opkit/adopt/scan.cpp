#include "opkit/adopt/scan.hpp"

#include "opkit/adopt/preprocess.hpp"
#include "opkit/adopt/torch_scan.hpp"
#include "opkit/project/framework_table.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/project/names.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace opkit::adopt {

using namespace preprocess_detail;

namespace {

// A spelling TensorFlow's registry reads as a dtype ("float32" too).
bool
is_dtype(const std::string& name)
{
  return !project::canonical_dtype(name).empty();
}

// Reads registrations out of the expanded code.
class RegistrationParser
{
public:
  RegistrationParser(const std::vector<Token>& code, SourceScan& scan)
    : m_code(code)
    , m_scan(scan)
  {
  }

  void run()
  {
    for (size_t i = 0; i + 1 < m_code.size(); ++i) {
      if (m_code[i].kind == Kind::ident && is_punct(m_code[i + 1], "(")) {
        if (m_code[i].text == "REGISTER_OP") {
          op(i);
        } else if (m_code[i].text == "REGISTER_KERNEL_BUILDER") {
          kernel(i);
        } else if (m_code[i].text == "TORCH_LIBRARY" || m_code[i].text == "TORCH_LIBRARY_FRAGMENT") {
          torch_scan_detail::read_torch_library(m_code, i, false, m_scan);
        } else if (m_code[i].text == "TORCH_LIBRARY_IMPL") {
          torch_scan_detail::read_torch_library(m_code, i, true, m_scan);
        } else if (m_code[i].text == "PYBIND11_MODULE") {
          torch_scan_detail::read_python_module(m_code, i, m_scan);
        } else if (starts_with(m_code[i].text, "PyInit_") && m_code[i].text.size() > 7 && m_scan.module_name.empty()) {
          m_scan.module_name = m_code[i].text.substr(7); // the module's import name, as Python looks it up
          m_scan.module_code = fmt::format("{}:{}: defines {}", m_scan.file, m_code[i].line, m_code[i].text);
        }
      }
      if (m_code[i].kind == Kind::ident && m_code[i].text == "RegisterOperators") {
        torch_scan_detail::read_register_operators(m_code, i, m_scan);
      }
    }
  }

private:
  const std::vector<Token>& m_code;
  SourceScan& m_scan;

  void problem(int line, const std::string& what)
  {
    m_scan.problems.push_back(fmt::format("{}:{}: {}", m_scan.file, line, what));
  }

  const Token* get(size_t i) const { return i < m_code.size() ? &m_code[i] : nullptr; }

  // The index of the ")" closing the "(" at `open`; m_code.size() when unbalanced.
  size_t close_of(size_t open) const
  {
    size_t close = m_code.size();
    call_arguments(m_code, open, close);
    return close;
  }

  // Adjacent string literals in [begin, end), concatenated; nothing if anything else is there.
  std::optional<std::string> strings(size_t begin, size_t end) const
  {
    std::string text;
    for (size_t i = begin; i < end; ++i) {
      if (m_code[i].kind != Kind::string) {
        return std::nullopt;
      }
      text += m_code[i].text;
    }
    return begin < end ? std::optional<std::string>(text) : std::nullopt;
  }

  // Calls `method(name, begin, end)` for each `.Name(args)` (or `.Name<...>(args)`) from `i`.
  template<typename Method>
  void chain(size_t i, Method method)
  {
    while (get(i + 2) != nullptr && is_punct(m_code[i], ".") && m_code[i + 1].kind == Kind::ident) {
      size_t open = i + 2;
      size_t angle_begin = open;
      if (is_punct(m_code[open], "<")) {
        for (int depth = 0; open < m_code.size(); ++open) {
          depth += is_punct(m_code[open], "<") ? 1 : is_punct(m_code[open], ">") ? -1 : 0;
          if (depth == 0) {
            break;
          }
        }
        ++open;
      }
      if (get(open) == nullptr || !is_punct(m_code[open], "(")) {
        return;
      }
      size_t close = close_of(open);
      method(m_code[i + 1].text, angle_begin, open, close);
      i = close + 1;
    }
  }

  void op(size_t at)
  {
    int line = m_code[at].line;
    size_t close = close_of(at + 1);
    std::optional<std::string> name = strings(at + 2, close);
    if (!name || !project::is_valid_op_name(*name)) {
      problem(line, name ? fmt::format("REGISTER_OP(\"{}\"): not a TensorFlow op name", *name)
                         : "REGISTER_OP with a name that is not a string literal: skipped");
      return;
    }
    if (std::string why = project::op_name_problem(*name); !why.empty()) {
      problem(line, fmt::format("REGISTER_OP(\"{}\"): {}: not declared", *name, why));
      return;
    }
    FoundOp found{{}, {m_scan.file, line}};
    found.op.name = *name;
    std::vector<std::pair<std::string, project::OpArg>> args; // ("Input"/"Output", arg), checked once attrs are known
    chain(close + 1, [&](const std::string& method, size_t, size_t open, size_t end) {
      if (method != "Input" && method != "Output" && method != "Attr") {
        return;
      }
      std::optional<std::string> spec = strings(open + 1, end);
      std::string why;
      if (!spec) {
        why = "not a string literal";
      } else if (method == "Attr") {
        std::optional<project::OpAttr> attr = parse_attr_spec(*spec, why);
        if (attr) {
          found.op.attrs.push_back(*attr);
        }
      } else if (std::optional<project::OpArg> arg = parse_arg_spec(*spec, why)) {
        args.emplace_back(method, *arg);
      }
      if (!why.empty()) {
        problem(line, fmt::format("{} .{}(\"{}\"): {}", *name, method, spec.value_or("..."), why));
      }
    });
    for (auto [method, arg] : args) {
      const std::string type = arg.type; // a structured binding cannot be captured before C++20
      auto attr = std::find_if(found.op.attrs.begin(), found.op.attrs.end(),
                               [&](const project::OpAttr& a) { return a.name == type; });
      if (attr == found.op.attrs.end() ? !is_dtype(arg.type) : attr->type != "type") {
        problem(line, fmt::format("{} {} '{}: {}': opkit.yaml cannot declare this type; left out", *name,
                                  method == "Input" ? "input" : "output", arg.name, arg.type));
        continue;
      }
      if (attr == found.op.attrs.end()) {
        arg.type = project::canonical_dtype(arg.type); // as the registry prints it: float32 is float
      }
      (method == "Input" ? found.op.inputs : found.op.outputs).push_back(arg);
    }
    m_scan.ops.push_back(found);
  }

  void kernel(size_t at)
  {
    int line = m_code[at].line;
    size_t end = close_of(at + 1);
    size_t name = at + 2;
    while (name + 1 < end && !(m_code[name].text == "Name" && is_punct(m_code[name + 1], "("))) {
      ++name;
    }
    size_t name_close = name + 1 < end ? close_of(name + 1) : end;
    std::optional<std::string> op = strings(name + 2, name_close);
    if (!op) {
      problem(line, "REGISTER_KERNEL_BUILDER without a Name(\"...\") string literal: skipped");
      return;
    }
    bool gpu_file = ends_with(m_scan.file, ".cu.cc") || ends_with(m_scan.file, ".cu");
    FoundKernel kernel{*op, "", {}, gpu_file || m_code[at].gpu, {m_scan.file, line}};
    chain(name_close + 1, [&](const std::string& method, size_t angle, size_t open, size_t close) {
      if (method == "Device") {
        for (size_t i = open + 1; i < close; ++i) {
          std::string text = m_code[i].text;
          kernel.device = text == "DEVICE_CPU" || text == "CPU"   ? "CPU"
                          : text == "DEVICE_GPU" || text == "GPU" ? "GPU"
                                                                  : text;
        }
      } else if (method == "TypeConstraint") {
        type_constraint(kernel, angle, open, close);
      }
    });
    if (kernel.device != "CPU" && kernel.device != "GPU") {
      problem(line, fmt::format("kernel of {} for device '{}': opkit.yaml declares CPU and GPU kernels only; skipped",
                                *op, kernel.device));
      return;
    }
    m_scan.kernels.push_back(kernel);
  }

  // TypeConstraint<float>("T") (angle < open), TypeConstraint("T", DT_FLOAT) or ("T", {DT_FLOAT, DT_HALF}).
  void type_constraint(FoundKernel& kernel, size_t angle, size_t open, size_t close)
  {
    std::vector<std::string> types;
    std::vector<std::string> dtypes;
    std::optional<std::string> attr = strings(open + 1, close);
    if (angle < open) {
      std::string type;
      for (size_t i = angle + 1; i + 1 < open; ++i) {
        bool space = m_code[i].kind == Kind::ident && i > angle + 1 && m_code[i - 1].kind == Kind::ident;
        type += (space ? " " : "") + m_code[i].text;
      }
      types.push_back(type);
      dtypes.push_back(project::adopt_rules().dtype_of(type));
    } else if (open + 1 < close && m_code[open + 1].kind == Kind::string) {
      attr = m_code[open + 1].text;
      for (size_t i = open + 2; i < close; ++i) {
        if (m_code[i].kind == Kind::ident && starts_with(m_code[i].text, "DT_")) {
          std::string lower = ascii_lower(m_code[i].text.substr(3));
          types.push_back(m_code[i].text);
          dtypes.push_back(is_dtype(lower) ? lower : "");
        }
      }
    }
    for (size_t i = 0; attr && i < types.size(); ++i) {
      if (dtypes[i].empty()) {
        problem(kernel.place.line,
                fmt::format("kernel of {}: TypeConstraint {}: unknown type; constraint left out", kernel.op, types[i]));
      } else {
        kernel.constraints.emplace_back(*attr, dtypes[i]);
      }
    }
    if (!attr || types.empty()) {
      problem(kernel.place.line, fmt::format("kernel of {}: unreadable TypeConstraint; left out", kernel.op));
    }
  }
};

// "a, b, c" inside braces, each trimmed.
std::vector<std::string>
split_list(const std::string& text)
{
  std::vector<std::string> items;
  for (const std::string& item : split(text, ',')) {
    if (!trim(item).empty()) {
      items.push_back(trim(item));
    }
  }
  return items;
}

const std::vector<std::string> k_declarable = {"type",  "int",        "float",     "bool",        "string",
                                               "shape", "list(type)", "list(int)", "list(float)", "tensor"};

} // namespace

std::string
Place::str() const
{
  return fmt::format("{}:{}", file, line);
}

std::optional<project::OpArg>
parse_arg_spec(const std::string& spec, std::string& problem)
{
  size_t colon = spec.find(':');
  std::string name = trim(spec.substr(0, colon));
  std::string type = colon == std::string::npos ? "" : trim(spec.substr(colon + 1));
  if (starts_with(type, "Ref(") && ends_with(type, ")")) {
    type = trim(type.substr(4, type.size() - 5));
  }
  if (type.find('*') != std::string::npos) {
    type = trim(type.substr(type.find('*') + 1));
  }
  if (!project::is_valid_arg_name(name) || type.empty() || !std::all_of(type.begin(), type.end(), is_identifier_char)) {
    problem = "expected \"name: type\"";
    return std::nullopt;
  }
  return project::OpArg{name, type};
}

std::optional<project::OpAttr>
parse_attr_spec(const std::string& spec, std::string& problem)
{
  size_t colon = spec.find(':');
  project::OpAttr attr{trim(spec.substr(0, colon)), "", {}};
  std::string type = colon == std::string::npos ? "" : spec.substr(colon + 1);
  // The default follows the first '=' that is not part of ">=", "<=" or "==", outside quotes and brackets.
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < type.size(); ++i) {
    char c = type[i];
    if (quote != 0 || c == '\'' || c == '"') {
      quote = quote == 0 ? c : c == quote ? 0 : quote;
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      --depth;
    } else if (c == '=' && depth == 0
               && (i == 0 || std::string_view("<>!=").find(type[i - 1]) == std::string_view::npos)
               && (i + 1 == type.size() || type[i + 1] != '=')) {
      type = type.substr(0, i);
      break;
    }
  }
  type = trim(type.substr(0, type.find(">="))); // "int >= 1": the minimum is TF's business
  bool list = starts_with(type, "list(") && ends_with(type, ")");
  std::string inner = list ? trim(type.substr(5, type.size() - 6)) : type;
  if (starts_with(inner, "{") && ends_with(inner, "}")) {
    std::vector<std::string> values = split_list(inner.substr(1, inner.size() - 2));
    bool strings = !values.empty() && (values[0][0] == '\'' || values[0][0] == '"');
    attr.type = strings ? "string" : "type";
    for (const std::string& value : strings ? std::vector<std::string>{} : values) {
      std::string dtype = project::canonical_dtype(value);
      if (dtype.empty()) {
        problem += fmt::format("{}unknown dtype '{}' left out", problem.empty() ? "" : "; ", value);
      } else if (std::find(attr.allowed.begin(), attr.allowed.end(), dtype) == attr.allowed.end()) {
        attr.allowed.push_back(dtype);
      }
    }
  } else if (project::adopt_rules().type_shorthands.count(inner) != 0) {
    attr.type = "type";
    attr.allowed = project::adopt_rules().type_shorthands.at(inner);
  } else {
    attr.type = inner;
  }
  attr.type = list ? "list(" + attr.type + ")" : attr.type;
  if (!project::is_valid_arg_name(attr.name) || attr.type.empty()) {
    problem = "expected \"name: type\"";
    return std::nullopt;
  }
  if (std::find(k_declarable.begin(), k_declarable.end(), attr.type) == k_declarable.end()) {
    problem = fmt::format("opkit.yaml cannot declare a {} attr; left out", attr.type);
    return std::nullopt;
  }
  // Where TensorFlow's grammar reads it whole (enums of strings, defaults,
  // minimums), the attr is declared as the registry states it: `opkit test`
  // then compares those too, and init's own output passes.
  try {
    project::OpAttr full = project::parse_attr_spec(spec);
    if (full.name == attr.name && (full.allowed == attr.allowed || full.type == "string")) {
      return full;
    }
  } catch (const project::SpecError&) {
    // a type shorthand (numbertype, ...) TF's grammar does not name: the reading above stands
  }
  return attr;
}

namespace {

// The line of `int main(` at file scope (a program's entry, as a benchmark or
// test beside an op defines it), 0 when there is none.
int
main_definition(const std::vector<Token>& code)
{
  int depth = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    const Token& token = code[i];
    if (token.kind == Kind::punct) {
      depth += token.text == "{" ? 1 : token.text == "}" ? -1 : 0;
      continue;
    }
    if (depth == 0 && token.kind == Kind::ident && token.text == "main" && i > 0 && i + 1 < code.size()
        && code[i - 1].kind == Kind::ident && code[i - 1].text == "int" && code[i + 1].kind == Kind::punct
        && code[i + 1].text == "(") {
      return token.line;
    }
  }
  return 0;
}

} // namespace

namespace {

// A source that includes a Python module's header (torch/extension.h, Python.h,
// pybind11/: configs/frameworks/torch.yaml) is a module's; one of a torch module
// (it includes torch's headers) is a torch source, whose library the module is.
void
note_module_code(SourceScan& scan)
{
  const std::vector<std::string>& headers = project::FrameworkTable::get("torch").module_headers();
  bool torch_headers = false;
  for (const FoundInclude& include : scan.system_includes) {
    torch_headers = torch_headers || starts_with(include.path, "torch/");
    for (const std::string& header : headers) {
      bool match = ends_with(header, "/") ? starts_with(include.path, header) : include.path == header;
      if (match && scan.module_code.empty()) {
        scan.module_code = fmt::format("{}:{}: includes <{}>", scan.file, include.line, include.path);
      }
    }
  }
  if (!scan.module_code.empty() && torch_headers) {
    scan.torch = true;
    scan.registers = true;
  }
}

} // namespace

SourceScan
scan_source(std::string_view text, const std::string& file, const std::vector<std::string>& watched)
{
  SourceScan scan;
  scan.file = file;
  std::vector<Token> code = preprocess(text, scan, watched);
  RegistrationParser(code, scan).run();
  if (!scan.skipped.empty() && !scan.torch && scan.ops.empty() && scan.kernels.empty()) {
    scan.registers = false; // every registration it has was skipped: no op source
  }
  note_module_code(scan);
  scan.main_line = main_definition(code);
  return scan;
}

std::optional<std::set<std::string>>
op_strings_of(std::string_view bytes)
{
  if (bytes.size() < 4
      || bytes.substr(0, 4)
           != "\x7f"
              "ELF") {
    return std::nullopt;
  }
  std::set<std::string> found;
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\0') {
      continue;
    }
    std::string_view run = bytes.substr(start, i - start);
    start = i + 1;
    if (run.size() >= 2 && run.size() <= 128 && project::is_valid_op_name(run) && run[0] != '_'
        && found.size() < 1000000) {
      found.emplace(run);
    }
  }
  return found;
}

const SourceScan*
AdoptedTree::find(const std::string& path) const
{
  auto found = std::lower_bound(scans.begin(), scans.end(), path,
                                [](const SourceScan& scan, const std::string& p) { return scan.file < p; });
  return found != scans.end() && found->file == path ? &*found : nullptr;
}

bool
AdoptedTree::has_file(const std::string& path) const
{
  return std::binary_search(files.begin(), files.end(), path);
}

AdoptedTree
scan_tree(std::vector<std::string> files, const std::vector<TreeText>& cpp, std::vector<TreeText> python)
{
  AdoptedTree tree;
  std::sort(files.begin(), files.end());
  tree.files = std::move(files);
  std::vector<std::string> watched;
  for (const project::AdoptRules::IdentifierRule& rule : project::adopt_rules().identifiers) {
    watched.push_back(rule.identifier);
  }
  for (const TreeText& source : cpp) {
    tree.scans.push_back(scan_source(source.text, source.path, watched));
  }
  std::sort(tree.scans.begin(), tree.scans.end(),
            [](const SourceScan& a, const SourceScan& b) { return a.file < b.file; });
  tree.python = std::move(python);
  return tree;
}

} // namespace opkit::adopt
