#include "opkit/adopt/torch_scan.hpp"

#include "opkit/project/torch_schema.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace opkit::adopt::torch_scan_detail {

using namespace preprocess_detail;

namespace {

// The dispatch key torch gives a kernel registered for no key (m.def("op", &f),
// RegisterOperators().op("ns::op", &f), options().catchAllKernel(...)): the
// real dispatcher lists it so (tests/integration/torch_adopt.sh).
const char* const k_catch_all = "CompositeImplicitAutograd";

// A call argument's string: "text", or one wrapped in a macro (TORCH_SELECTIVE_SCHEMA("text")).
std::optional<std::string>
string_argument(const std::vector<Token>& arg)
{
  size_t begin = 0;
  size_t end = arg.size();
  if (end >= 4 && arg[0].kind == Kind::ident && is_punct(arg[1], "(") && is_punct(arg[end - 1], ")")) {
    begin = 2;
    end -= 1;
  }
  std::string text;
  for (size_t i = begin; i < end; ++i) {
    if (arg[i].kind != Kind::string) {
      return std::nullopt;
    }
    text += arg[i].text;
  }
  return begin < end ? std::optional<std::string>(text) : std::nullopt;
}

// The function an argument names (&fn, fn, &ns::fn, TORCH_FN(fn)): its last
// identifier; "" for anything else (a lambda, a functor, a template's instance).
std::string
function_of(const std::vector<Token>& arg)
{
  size_t begin = 0;
  size_t end = arg.size();
  if (end >= 4 && arg[0].kind == Kind::ident && is_punct(arg[1], "(") && is_punct(arg[end - 1], ")")) {
    begin = 2; // TORCH_FN(fn)
    end -= 1;
  }
  begin += begin < end && is_punct(arg[begin], "&") ? 1 : 0;
  begin += begin < end && is_punct(arg[begin], "::") ? 1 : 0;
  if (begin >= end || (end - begin) % 2 == 0) {
    return "";
  }
  for (size_t i = begin; i < end; ++i) {
    if ((i - begin) % 2 == 0 ? arg[i].kind != Kind::ident : !is_punct(arg[i], "::")) {
      return "";
    }
  }
  return arg[end - 1].text;
}

// The index of the "}" closing the "{" at `open`; tokens.size() when unbalanced.
size_t
closing_brace(const std::vector<Token>& tokens, size_t open)
{
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    depth += is_punct(tokens[i], "{") ? 1 : is_punct(tokens[i], "}") ? -1 : 0;
    if (depth == 0) {
      return i;
    }
  }
  return tokens.size();
}

// The index of the token closing the bracket opened at `open` ("(" or "<"); tokens.size() when unbalanced.
size_t
closing(const std::vector<Token>& tokens, size_t open)
{
  std::string left = tokens[open].text;
  std::string right = left == "<" ? ">" : ")";
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    depth += is_punct(tokens[i], left) ? 1 : is_punct(tokens[i], right) ? -1 : 0;
    if (depth == 0) {
      return i;
    }
  }
  return tokens.size();
}

// Arguments split at a comma inside template brackets (kernel<decltype(f), &f>)
// joined again: call_arguments counts (), [] and {} only.
std::vector<std::vector<Token>>
join_template_commas(const std::vector<std::vector<Token>>& args)
{
  std::vector<std::vector<Token>> joined;
  int open = 0; // the `<` minus the `>` of the argument being joined
  for (const std::vector<Token>& arg : args) {
    if (open > 0) {
      joined.back().push_back({Kind::punct, ",", arg.empty() ? 0 : arg.front().line});
      joined.back().insert(joined.back().end(), arg.begin(), arg.end());
    } else {
      joined.push_back(arg);
    }
    for (const Token& token : arg) {
      open += is_punct(token, "<") ? 1 : is_punct(token, ">") ? -1 : 0;
    }
  }
  return joined;
}

// One `.name<template>(arguments)` of a chain.
struct Call
{
  std::string method;
  int line = 0;
  std::vector<Token> template_args; // between < and >, when written
  std::vector<std::vector<Token>> args;
};

// The calls `.a(...).b<...>(...)` from `i` (a "."); `end` is set past the last.
std::vector<Call>
chain_calls(const std::vector<Token>& tokens, size_t i, size_t& end)
{
  std::vector<Call> calls;
  end = i;
  while (i + 2 < tokens.size() && is_punct(tokens[i], ".") && tokens[i + 1].kind == Kind::ident) {
    Call call{tokens[i + 1].text, tokens[i + 1].line, {}, {}};
    size_t open = i + 2;
    if (is_punct(tokens[open], "<")) {
      size_t angle_close = closing(tokens, open);
      if (angle_close + 1 >= tokens.size()) {
        break;
      }
      call.template_args.assign(tokens.begin() + static_cast<long>(open) + 1,
                                tokens.begin() + static_cast<long>(angle_close));
      open = angle_close + 1;
    }
    size_t close = tokens.size();
    std::optional<std::vector<std::vector<Token>>> args =
      is_punct(tokens[open], "(") ? call_arguments(tokens, open, close) : std::nullopt;
    if (!args) {
      break;
    }
    call.args =
      args->size() == 1 && args->front().empty() ? std::vector<std::vector<Token>>{} : join_template_commas(*args);
    calls.push_back(std::move(call));
    i = close + 1;
    end = i;
  }
  return calls;
}

// The position of `name (` in `tokens`, tokens.size() when none.
size_t
find_call(const std::vector<Token>& tokens, const std::string& name)
{
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].kind == Kind::ident && tokens[i].text == name && is_punct(tokens[i + 1], "(")) {
      return i;
    }
  }
  return tokens.size();
}

// A kernel a registration names: its dispatch key and the function it registers ("" when none readable).
struct Kernel
{
  std::string key;
  std::string function;
};

class Reader
{
public:
  Reader(const std::vector<Token>& code, SourceScan& scan)
    : m_code(code)
    , m_scan(scan)
  {
  }

  void problem(int line, const std::string& what)
  {
    m_scan.problems.push_back(fmt::format("{}:{}: {}", m_scan.file, line, what));
  }

  // A registration seen and not read: a problem line, counted.
  void skip(int line, const std::string& what)
  {
    problem(line, what + ", skipped");
    m_scan.skipped.push_back({m_scan.file, line});
  }

  // An op declared by `text` ("ns::op" or "ns::op(Tensor x) -> Tensor") with
  // these kernels; without a schema, torch's is inferred from the first
  // kernel's function when this file holds it.
  void add_op(const std::string& text, int line, const std::vector<Kernel>& kernels, bool gpu)
  {
    FoundOp found{{}, {m_scan.file, line}};
    std::string name = trim(text.substr(0, text.find('(')));
    found.op.name = name;
    if (text.find('(') != std::string::npos) {
      try {
        project::TorchSchema schema = project::parse_torch_schema(text);
        found.op.name = schema.name;
        found.op.schema = project::render_torch_schema(schema);
      } catch (const project::SpecError& e) {
        problem(line,
                fmt::format("{}: schema not read ({}); opkit test records what torch makes of it", name, e.what()));
      }
    } else {
      auto with_function =
        std::find_if(kernels.begin(), kernels.end(), [](const Kernel& k) { return !k.function.empty(); });
      if (with_function != kernels.end()) {
        found.op.schema = infer_torch_schema(m_code, with_function->function, name);
        found.inferred = !found.op.schema.empty();
      }
    }
    m_scan.torch = true;
    m_scan.registers = true;
    m_scan.ops.push_back(found);
    for (const Kernel& kernel : kernels) {
      m_scan.kernels.push_back({found.op.name, kernel.key, {}, gpu, {m_scan.file, line}});
    }
  }

  void torch_library(size_t at, bool impl);
  void register_operators(size_t at);

private:
  const std::vector<Token>& m_code;
  SourceScan& m_scan;

  bool gpu_file() const { return ends_with(m_scan.file, ".cu"); }
  void op_call(const Call& call, bool gpu);
  std::optional<std::string> options(const std::vector<Token>& arg, int line, std::vector<Kernel>& kernels);
};

void
Reader::torch_library(size_t at, bool impl)
{
  int line = m_code[at].line;
  const char* macro = impl ? "TORCH_LIBRARY_IMPL" : "TORCH_LIBRARY";
  size_t close = m_code.size();
  std::optional<std::vector<std::vector<Token>>> args = call_arguments(m_code, at + 1, close);
  bool plain = args && args->size() == (impl ? 3u : 2u)
               && std::all_of(args->begin(), args->end(),
                              [](const std::vector<Token>& a) { return a.size() == 1 && a[0].kind == Kind::ident; });
  if (!plain || close + 1 >= m_code.size() || !is_punct(m_code[close + 1], "{")) {
    skip(line, fmt::format("{} without a namespace name and a block", macro));
    return;
  }
  std::string ns = (*args)[0][0].text;
  if (ns == "TORCH_EXTENSION_NAME") { // -DTORCH_EXTENSION_NAME=<module>, set by the build, not the source
    skip(line, fmt::format("{}(TORCH_EXTENSION_NAME, ...): a namespace the build defines", macro));
    return;
  }
  m_scan.torch = true;
  std::string key = impl ? (*args)[1][0].text : "";
  size_t end = close + 1;
  for (int depth = 0; end < m_code.size(); ++end) {
    depth += is_punct(m_code[end], "{") ? 1 : is_punct(m_code[end], "}") ? -1 : 0;
    if (depth == 0) {
      break;
    }
  }
  for (size_t i = close + 2; i + 2 < end; ++i) {
    if (!is_punct(m_code[i], ".") || m_code[i + 1].kind != Kind::ident || !is_punct(m_code[i + 2], "(")) {
      continue;
    }
    const std::string& method = m_code[i + 1].text;
    if (method != "def" && method != "impl") {
      continue;
    }
    int at_line = m_code[i].line;
    size_t call_close = m_code.size();
    std::optional<std::vector<std::vector<Token>>> call = call_arguments(m_code, i + 2, call_close);
    std::optional<std::string> text = call && !call->empty() ? string_argument(call->front()) : std::nullopt;
    if (!text) {
      skip(at_line, fmt::format("{}.{}() without a string literal first", ns, method));
      continue;
    }
    bool gpu = gpu_file() || m_code[i].gpu;
    if (method == "impl") { // without a key (in TORCH_LIBRARY): the catch-all kernel
      std::string op = ns + "::" + text->substr(0, text->find('('));
      m_scan.kernels.push_back({op, key.empty() ? k_catch_all : key, {}, gpu, {m_scan.file, at_line}});
    } else if (!impl) { // a def belongs to TORCH_LIBRARY (or _FRAGMENT) blocks only
      // m.def("op(Tensor x) -> Tensor") declares a schema; m.def("op", &f)
      // registers f as the op's catch-all kernel, and torch infers the schema from it.
      std::vector<Kernel> kernels;
      if (call->size() > 1) {
        kernels.push_back({k_catch_all, function_of((*call)[1])});
      }
      add_op(ns + "::" + trim(*text), at_line, kernels, false);
    }
    i = call_close;
  }
}

void
Reader::register_operators(size_t at)
{
  size_t next = at + 1;
  if (next < m_code.size() && m_code[next].kind == Kind::ident && next + 1 < m_code.size()) {
    // `torch::RegisterOperators reg(...)`, or `reg;` whose ops a later statement adds
    const Token& variable = m_code[next];
    if (is_punct(m_code[next + 1], ";")) {
      skip(variable.line,
           fmt::format("RegisterOperators {}: the ops a later statement adds to it are not read", variable.text));
      return;
    }
    next += 1;
  }
  if (next >= m_code.size() || !(is_punct(m_code[next], "(") || is_punct(m_code[next], "{"))) {
    return; // a type named (RegisterOperators::options, a parameter, `= RegisterOperators()...` read there)
  }
  bool gpu = gpu_file() || m_code[at].gpu;
  size_t close = m_code.size();
  std::optional<std::vector<std::vector<Token>>> args;
  if (is_punct(m_code[next], "(")) {
    args = call_arguments(m_code, next, close);
    args = args ? std::optional(join_template_commas(*args)) : std::nullopt;
  }
  if (args && !(args->size() == 1 && args->front().empty())) {
    op_call({"op", m_code[at].line, {}, *args}, gpu); // RegisterOperators("ns::op", &f): one op
  }
  size_t end = close + 1;
  for (const Call& call : args ? chain_calls(m_code, close + 1, end) : std::vector<Call>{}) {
    if (call.method == "op") {
      op_call(call, gpu);
    }
  }
}

// One .op(...) of a RegisterOperators chain.
void
Reader::op_call(const Call& call, bool gpu)
{
  if (call.args.empty()) {
    skip(call.line, "RegisterOperators .op() without arguments");
    return;
  }
  std::vector<Kernel> kernels;
  std::optional<std::string> text = string_argument(call.args.front());
  if (text) {
    for (size_t i = 1; i < call.args.size(); ++i) {
      if (find_call(call.args[i], "options") < call.args[i].size()) {
        if (!options(call.args[i], call.line, kernels)) {
          return;
        }
      } else if (i == 1) { // .op("ns::op", &f): f is the catch-all kernel
        kernels.push_back({k_catch_all, function_of(call.args[i])});
      }
    }
  } else if (find_call(call.args.front(), "options") < call.args.front().size()) {
    text = options(call.args.front(), call.line, kernels);
    if (!text) {
      return;
    }
    if (text->empty()) {
      skip(call.line, "RegisterOperators .op(options()...) without .schema(\"...\")");
      return;
    }
  } else {
    skip(call.line, "RegisterOperators .op() whose first argument is neither a string literal nor options()");
    return;
  }
  std::string name = trim(text->substr(0, text->find('(')));
  if (name.find("::") == std::string::npos) {
    skip(call.line, fmt::format("RegisterOperators .op(\"{}\"): an operator name without a namespace", name));
    return;
  }
  add_op(trim(*text), call.line, kernels, gpu);
}

// RegisterOperators::options().schema("...").kernel<...>(DispatchKey::CPU)...:
// the schema text ("" when none) and the kernels; nothing (a skipped line)
// when a kernel's dispatch key cannot be read.
std::optional<std::string>
Reader::options(const std::vector<Token>& arg, int line, std::vector<Kernel>& kernels)
{
  size_t start = find_call(arg, "options");
  size_t close = start + 1 < arg.size() ? closing(arg, start + 1) : arg.size();
  size_t end = close + 1;
  std::vector<Call> calls = close < arg.size() ? chain_calls(arg, close + 1, end) : std::vector<Call>{};
  if (end != arg.size()) {
    skip(line, "RegisterOperators .op() with an options() chain opkit cannot read");
    return std::nullopt;
  }
  std::string text;
  for (const Call& call : calls) {
    if (call.method == "schema") {
      std::optional<std::string> schema = call.args.size() == 1 ? string_argument(call.args[0]) : std::nullopt;
      if (!schema) {
        skip(call.line, "RegisterOperators options().schema() without a string literal");
        return std::nullopt;
      }
      text = *schema;
    } else if (call.method == "kernel" || call.method == "catchAllKernel") {
      Kernel kernel{call.method == "kernel" ? "" : k_catch_all, ""};
      // kernel<decltype(f), &f>(DispatchKey::CPU), kernel(DispatchKey::CPU, &f), catchAllKernel<...>()
      for (size_t i = 0; i + 1 < call.template_args.size() && kernel.function.empty(); ++i) {
        if (is_punct(call.template_args[i], "&")) {
          kernel.function = function_of({call.template_args.begin() + static_cast<long>(i), call.template_args.end()});
        }
      }
      for (const std::vector<Token>& a : call.args) {
        bool key = false;
        for (size_t i = 0; i + 2 < a.size(); ++i) {
          if (a[i].text == "DispatchKey" && is_punct(a[i + 1], "::") && a[i + 2].kind == Kind::ident) {
            kernel.key = kernel.key.empty() ? a[i + 2].text : kernel.key;
            key = true;
          }
        }
        kernel.function = kernel.function.empty() && !key ? function_of(a) : kernel.function;
      }
      if (kernel.key.empty()) {
        skip(call.line, "RegisterOperators options().kernel() without a c10::DispatchKey");
        return std::nullopt;
      }
      kernels.push_back(kernel);
    }
  }
  return text;
}

} // namespace

void
read_torch_library(const std::vector<Token>& code, size_t at, bool impl, SourceScan& scan)
{
  Reader(code, scan).torch_library(at, impl);
}

void
read_register_operators(const std::vector<Token>& code, size_t at, SourceScan& scan)
{
  Reader(code, scan).register_operators(at);
}

void
read_python_module(const std::vector<Token>& code, size_t at, SourceScan& scan)
{
  int line = code[at].line;
  size_t close = code.size();
  std::optional<std::vector<std::vector<Token>>> args = call_arguments(code, at + 1, close);
  if (!args || args->size() != 2 || (*args)[0].size() != 1 || (*args)[0][0].kind != Kind::ident
      || close + 1 >= code.size() || !is_punct(code[close + 1], "{")) {
    scan.problems.push_back(fmt::format("{}:{}: PYBIND11_MODULE without a module name and a block: its functions "
                                        "are not read",
                                        scan.file, line));
    return;
  }
  scan.module_code =
    scan.module_code.empty() ? fmt::format("{}:{}: PYBIND11_MODULE", scan.file, line) : scan.module_code;
  const std::string& module = (*args)[0][0].text;
  if (module != "TORCH_EXTENSION_NAME" && scan.module_name.empty()) {
    scan.module_name = module;
  }
  size_t end = closing_brace(code, close + 1);
  for (size_t i = close + 2; i + 2 < end; ++i) {
    if (!is_punct(code[i], ".") || code[i + 1].kind != Kind::ident || code[i + 1].text != "def"
        || !is_punct(code[i + 2], "(")) {
      continue;
    }
    size_t call_close = code.size();
    std::optional<std::vector<std::vector<Token>>> call = call_arguments(code, i + 2, call_close);
    std::optional<std::string> name = call && !call->empty() ? string_argument(call->front()) : std::nullopt;
    if (!name) {
      scan.problems.push_back(
        fmt::format("{}:{}: a PYBIND11_MODULE function named by no string literal: skipped", scan.file, code[i].line));
      continue;
    }
    FoundOp found{{}, {scan.file, code[i].line}};
    found.op.name = *name;
    std::string function = call->size() > 1 ? function_of((*call)[1]) : "";
    // Inferred as for an op, under a stand-in namespace: the module's name is the library's, known later.
    found.op.schema = function.empty() ? "" : infer_torch_schema(code, function, "_::" + *name);
    found.inferred = !found.op.schema.empty();
    scan.functions.push_back(found);
    i = call_close;
  }
}

} // namespace opkit::adopt::torch_scan_detail
