#include "opkit/adopt/scan.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/project/names.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace opkit::adopt {

namespace {

enum class Kind
{
  ident,
  string,
  number,
  punct,
  other
};

struct Token
{
  Kind kind;
  std::string text; // a string literal's value, without quotes or prefix
  int line = 0;
  bool gpu = false;          // inside a GPU-only #if block
  bool space_before = false; // whitespace precedes it (a function-like #define needs none)
};

struct Macro
{
  bool function = false;
  std::vector<std::string> params; // "__VA_ARGS__" last for a variadic one
  std::vector<Token> body;
  bool gpu = false;
};

// An #if group: whether its current branch is GPU-only or skipped (#if 0).
struct Condition
{
  bool gpu = false;
  bool disabled = false;
  bool about_gpu = false; // the condition names a GPU macro: #else flips `gpu`
  bool zero = false;      // #if 0: #else enables
};

bool
is_ident_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool
is_registration(const Token& token)
{
  return token.kind == Kind::ident && (token.text == "REGISTER_OP" || token.text == "REGISTER_KERNEL_BUILDER");
}

bool
is_dtype(const std::string& name)
{
  const std::vector<std::string>& known = project::known_dtypes();
  return std::find(known.begin(), known.end(), name) != known.end();
}

bool
is_punct(const Token& token, std::string_view text)
{
  return token.kind == Kind::punct && token.text == text;
}

// Turns a C++ file into tokens, running the directives it meets.
class Scanner
{
public:
  Scanner(std::string_view text, SourceScan& scan, const std::vector<std::string>& watched)
    : m_text(text), m_scan(scan), m_watched(watched.begin(), watched.end())
  {
  }

  std::vector<Token> run();

private:
  std::string_view m_text;
  SourceScan& m_scan;
  std::set<std::string> m_watched;
  std::set<std::string> m_used;
  size_t m_pos = 0;
  int m_line = 1;
  std::vector<Condition> m_conditions;
  std::map<std::string, Macro> m_macros;
  std::vector<Token> m_pending; // code since the last #define/#undef, not yet expanded
  std::vector<Token> m_code;

  char at(size_t offset) const { return m_pos + offset < m_text.size() ? m_text[m_pos + offset] : '\0'; }
  bool skip_space(bool directive);
  Token lex();
  void lex_quoted(Token& token, char quote);
  void lex_raw(Token& token);
  void directive();
  void condition(const std::string& name, const std::vector<Token>& tokens);
  void define(const std::vector<Token>& tokens);
  void flush();
  void expand(const std::vector<Token>& in, std::set<std::string>& active, std::vector<Token>& out, int depth);
  bool any_condition(bool Condition::*flag) const;
  bool gpu_now() const { return any_condition(&Condition::gpu); }
  bool disabled_now() const { return any_condition(&Condition::disabled); }
};

// Skips whitespace, comments and line splices. In a directive, stops before a
// newline and returns false there; true when a token follows.
bool
Scanner::skip_space(bool directive)
{
  while (m_pos < m_text.size()) {
    char c = m_text[m_pos];
    if (c == '\n') {
      if (directive) {
        return false;
      }
      ++m_line;
      ++m_pos;
    } else if (c == '\\' && (at(1) == '\n' || (at(1) == '\r' && at(2) == '\n'))) {
      m_pos += at(1) == '\n' ? 2 : 3;
      ++m_line;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++m_pos;
    } else if (c == '/' && at(1) == '/') {
      while (m_pos < m_text.size() && !(m_text[m_pos] == '\n' && m_text[m_pos - 1] != '\\')) {
        m_line += m_text[m_pos] == '\n' ? 1 : 0;
        ++m_pos;
      }
    } else if (c == '/' && at(1) == '*') {
      size_t end = m_text.find("*/", m_pos + 2);
      end = end == std::string_view::npos ? m_text.size() : end + 2;
      m_line += static_cast<int>(std::count(m_text.begin() + m_pos, m_text.begin() + end, '\n'));
      m_pos = end;
    } else {
      return true;
    }
  }
  return false;
}

// A "..." or '...' literal; an unterminated one ends at the line's end.
void
Scanner::lex_quoted(Token& token, char quote)
{
  ++m_pos;
  while (m_pos < m_text.size() && m_text[m_pos] != quote && m_text[m_pos] != '\n') {
    char c = m_text[m_pos++];
    if (c != '\\' || m_pos >= m_text.size()) {
      token.text += c;
      continue;
    }
    char escaped = m_text[m_pos++];
    static const std::string k_from = "ntr0";
    static const std::string k_to = "\n\t\r";
    size_t known = k_from.find(escaped);
    if (escaped == '\n') {
      ++m_line;
    } else {
      token.text += known == std::string::npos ? escaped : known < k_to.size() ? k_to[known] : '\0';
    }
  }
  m_pos += m_pos < m_text.size() && m_text[m_pos] == quote ? 1 : 0;
}

// R"delim(...)delim", at the opening quote.
void
Scanner::lex_raw(Token& token)
{
  size_t open = m_text.find('(', m_pos);
  std::string close = ")" + std::string(m_text.substr(m_pos + 1, open - m_pos - 1)) + "\"";
  size_t end = open == std::string_view::npos ? std::string_view::npos : m_text.find(close, open);
  size_t stop = end == std::string_view::npos ? m_text.size() : end + close.size();
  if (end != std::string_view::npos) {
    token.text = std::string(m_text.substr(open + 1, end - open - 1));
  }
  m_line += static_cast<int>(std::count(m_text.begin() + m_pos, m_text.begin() + stop, '\n'));
  m_pos = stop;
}

Token
Scanner::lex()
{
  Token token{Kind::other, "", m_line, gpu_now(),
              m_pos > 0 && std::isspace(static_cast<unsigned char>(m_text[m_pos - 1]))};
  char c = m_text[m_pos];
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
    size_t start = m_pos;
    while (m_pos < m_text.size() && is_ident_char(m_text[m_pos])) {
      ++m_pos;
    }
    token.text = std::string(m_text.substr(start, m_pos - start));
    token.kind = Kind::ident;
    if (at(0) == '"'
        && (token.text == "R" || token.text == "u8R" || token.text == "uR" || token.text == "UR"
            || token.text == "LR")) {
      token = Token{Kind::string, "", token.line, token.gpu, token.space_before};
      lex_raw(token);
    } else if (at(0) == '"' && (token.text == "u8" || token.text == "u" || token.text == "U" || token.text == "L")) {
      token = Token{Kind::string, "", token.line, token.gpu, token.space_before};
      lex_quoted(token, '"');
    }
  } else if (std::isdigit(static_cast<unsigned char>(c))
             || (c == '.' && std::isdigit(static_cast<unsigned char>(at(1))))) {
    size_t start = m_pos;
    while (m_pos < m_text.size()
           && (is_ident_char(m_text[m_pos]) || m_text[m_pos] == '.' || m_text[m_pos] == '\''
               || ((m_text[m_pos] == '+' || m_text[m_pos] == '-')
                   && std::string_view("eEpP").find(m_text[m_pos - 1]) != std::string_view::npos))) {
      ++m_pos;
    }
    token.kind = Kind::number;
    token.text = std::string(m_text.substr(start, m_pos - start));
  } else if (c == '"' || c == '\'') {
    token.kind = c == '"' ? Kind::string : Kind::other;
    lex_quoted(token, c);
  } else {
    token.kind = Kind::punct;
    for (std::string_view multi : {"...", "::", "##", "->"}) {
      if (m_text.substr(m_pos, multi.size()) == multi) {
        token.text = std::string(multi);
        m_pos += multi.size();
        return token;
      }
    }
    token.text = std::string(1, c);
    ++m_pos;
  }
  return token;
}

bool
Scanner::any_condition(bool Condition::*flag) const
{
  return std::any_of(m_conditions.begin(), m_conditions.end(), [&](const Condition& c) { return c.*flag; });
}

std::vector<Token>
Scanner::run()
{
  bool line_start = true;
  while (true) {
    int line = m_line;
    if (!skip_space(false)) {
      break;
    }
    line_start = line_start || m_line != line;
    if (line_start && m_text[m_pos] == '#') {
      ++m_pos;
      directive();
      continue;
    }
    line_start = false;
    Token token = lex();
    if (!disabled_now()) {
      if (token.kind == Kind::ident && m_watched.count(token.text) != 0) {
        m_used.insert(token.text);
      }
      m_pending.push_back(token);
    }
  }
  flush();
  m_scan.identifiers.assign(m_used.begin(), m_used.end());
  return std::move(m_code);
}

void
Scanner::directive()
{
  std::vector<Token> tokens;
  while (skip_space(true)) {
    tokens.push_back(lex());
  }
  if (tokens.empty() || tokens[0].kind != Kind::ident) {
    return;
  }
  std::string name = tokens[0].text;
  tokens.erase(tokens.begin());
  if (name == "if" || name == "ifdef" || name == "ifndef" || name == "elif" || name == "else" || name == "endif") {
    condition(name, tokens);
  } else if (disabled_now()) {
    return;
  } else if (name == "define" && !tokens.empty() && tokens[0].kind == Kind::ident) {
    define(tokens);
  } else if (name == "undef" && !tokens.empty()) {
    flush();
    m_macros.erase(tokens[0].text);
  } else if (name == "include" && !tokens.empty() && tokens[0].kind == Kind::string) {
    m_scan.includes.push_back({tokens[0].text, tokens[0].line});
  }
}

void
Scanner::condition(const std::string& name, const std::vector<Token>& tokens)
{
  if (name == "endif") {
    if (!m_conditions.empty()) {
      m_conditions.pop_back();
    }
    return;
  }
  if (name == "else") {
    if (!m_conditions.empty()) {
      Condition& top = m_conditions.back();
      top.gpu = top.about_gpu ? !top.gpu : top.gpu;
      top.disabled = top.zero ? !top.disabled : top.disabled;
    }
    return;
  }
  Condition next;
  const std::vector<std::string>& gpu_macros = project::adopt_rules().gpu_macros;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (std::find(gpu_macros.begin(), gpu_macros.end(), tokens[i].text) == gpu_macros.end()) {
      continue;
    }
    // `!GOOGLE_CUDA`, `!defined(GOOGLE_CUDA)`, `! defined GOOGLE_CUDA`, #ifndef: the CPU branch.
    size_t k = i;
    k -= k > 0 && is_punct(tokens[k - 1], "(") ? 1 : 0;
    k -= k > 0 && tokens[k - 1].text == "defined" ? 1 : 0;
    bool negated = (k > 0 && is_punct(tokens[k - 1], "!")) || name == "ifndef";
    next.about_gpu = true;
    next.gpu = !negated;
    break;
  }
  next.zero = (name == "if" || name == "elif") && tokens.size() == 1 && tokens[0].text == "0";
  next.disabled = next.zero;
  if (name == "elif") {
    if (m_conditions.empty()) {
      return;
    }
    m_conditions.back() = next;
    return;
  }
  m_conditions.push_back(next);
}

void
Scanner::define(const std::vector<Token>& tokens)
{
  flush();
  Macro macro;
  macro.gpu = gpu_now();
  size_t body = 1;
  if (tokens.size() > 1 && is_punct(tokens[1], "(") && !tokens[1].space_before) {
    macro.function = true;
    for (body = 2; body < tokens.size() && !is_punct(tokens[body], ")"); ++body) {
      if (tokens[body].kind == Kind::ident) {
        macro.params.push_back(tokens[body].text);
      } else if (is_punct(tokens[body], "...")) {
        macro.params.push_back("__VA_ARGS__");
      }
    }
    ++body;
  }
  macro.body.assign(tokens.begin() + std::min(body, tokens.size()), tokens.end());
  m_scan.registers = m_scan.registers || std::any_of(macro.body.begin(), macro.body.end(), is_registration);
  m_macros[tokens[0].text] = macro;
}

void
Scanner::flush()
{
  std::set<std::string> active;
  expand(m_pending, active, m_code, 0);
  m_pending.clear();
}

// The arguments of a call whose "(" is at `open`: split at top-level commas;
// `close` is set to the ")" (nothing when unbalanced).
std::optional<std::vector<std::vector<Token>>>
call_arguments(const std::vector<Token>& tokens, size_t open, size_t& close)
{
  std::vector<std::vector<Token>> args(1);
  int depth = 0;
  for (size_t i = open + 1; i < tokens.size(); ++i) {
    const Token& token = tokens[i];
    if (token.kind == Kind::punct && (token.text == "(" || token.text == "[" || token.text == "{")) {
      ++depth;
    } else if (token.kind == Kind::punct && (token.text == ")" || token.text == "]" || token.text == "}")) {
      if (depth-- == 0) {
        close = i;
        return args;
      }
    } else if (depth == 0 && is_punct(token, ",")) {
      args.emplace_back();
      continue;
    }
    args.back().push_back(token);
  }
  return std::nullopt;
}

// The macro body with the call's arguments in place (# stringifies, ## pastes).
std::vector<Token>
substitute(const Macro& macro, const std::vector<std::vector<Token>>& args, const Token& call)
{
  // A variadic macro's __VA_ARGS__: the arguments from its position on, with their commas.
  bool variadic = !macro.params.empty() && macro.params.back() == "__VA_ARGS__";
  std::vector<Token> rest;
  for (size_t i = macro.params.size() - (variadic ? 1 : 0); variadic && i < args.size(); ++i) {
    if (i + 1 > macro.params.size()) { // after the first
      rest.push_back({Kind::punct, ",", call.line});
    }
    rest.insert(rest.end(), args[i].begin(), args[i].end());
  }
  auto arg_of = [&](const Token& token) -> const std::vector<Token>* {
    static const std::vector<Token> k_none;
    auto found = std::find(macro.params.begin(), macro.params.end(), token.text);
    if (token.kind != Kind::ident || found == macro.params.end()) {
      return nullptr;
    }
    size_t index = static_cast<size_t>(found - macro.params.begin());
    return variadic && index + 1 == macro.params.size() ? &rest : index < args.size() ? &args[index] : &k_none;
  };
  std::vector<Token> out;
  const std::vector<Token>& body = macro.body;
  for (size_t i = 0; i < body.size(); ++i) {
    const std::vector<Token>* arg = arg_of(body[i]);
    if (is_punct(body[i], "#") && i + 1 < body.size() && arg_of(body[i + 1]) != nullptr) {
      std::string text;
      for (const Token& token : *arg_of(body[++i])) {
        std::string spelling = token.kind == Kind::string ? "\"" + token.text + "\"" : token.text;
        text += (text.empty() || !token.space_before ? "" : " ") + spelling;
      }
      out.push_back({Kind::string, text, call.line});
    } else if (is_punct(body[i], "##") && !out.empty() && i + 1 < body.size()) {
      const std::vector<Token>* right = arg_of(body[++i]);
      std::vector<Token> pasted = right != nullptr ? *right : std::vector<Token>{body[i]};
      if (!pasted.empty()) {
        out.back().text += pasted.front().text;
        out.insert(out.end(), pasted.begin() + 1, pasted.end());
      }
    } else if (arg != nullptr) {
      out.insert(out.end(), arg->begin(), arg->end());
    } else {
      out.push_back(body[i]);
    }
  }
  for (Token& token : out) {
    token.line = call.line;
    token.gpu = call.gpu || macro.gpu || token.gpu;
  }
  return out;
}

// A TF_CALL_<type>(m) or TF_CALL_<GROUP>(m) as a macro: m(<C++ type>) per type.
std::optional<Macro>
tf_call_macro(const std::string& name)
{
  const project::AdoptRules& rules = project::adopt_rules();
  if (!starts_with(name, "TF_CALL_")) {
    return std::nullopt;
  }
  std::string suffix = name.substr(8);
  std::vector<std::string> names = {suffix};
  auto group = rules.tf_call_groups.find(suffix);
  if (group != rules.tf_call_groups.end()) {
    names = group->second;
  } else if (rules.tf_call.count(suffix) == 0) {
    return std::nullopt;
  }
  Macro macro{true, {"m"}, {}, false};
  for (const std::string& type : names) {
    SourceScan ignored;
    std::vector<Token> type_tokens = Scanner(rules.tf_call.at(type), ignored, {}).run();
    macro.body.push_back({Kind::ident, "m", 0});
    macro.body.push_back({Kind::punct, "(", 0});
    macro.body.insert(macro.body.end(), type_tokens.begin(), type_tokens.end());
    macro.body.push_back({Kind::punct, ")", 0});
  }
  return macro;
}

void
Scanner::expand(const std::vector<Token>& in, std::set<std::string>& active, std::vector<Token>& out, int depth)
{
  for (size_t i = 0; i < in.size(); ++i) {
    const Token& token = in[i];
    auto own = m_macros.find(token.text);
    std::optional<Macro> macro = own != m_macros.end() ? std::optional<Macro>(own->second) : std::nullopt;
    if (!macro && token.kind == Kind::ident) {
      macro = tf_call_macro(token.text);
    }
    if (token.kind != Kind::ident || !macro || active.count(token.text) != 0 || depth > 32 || out.size() > 1000000) {
      m_scan.registers = m_scan.registers || is_registration(token);
      out.push_back(token);
      continue;
    }
    std::vector<std::vector<Token>> args;
    if (macro->function) {
      size_t close = 0;
      auto found = i + 1 < in.size() && is_punct(in[i + 1], "(") ? call_arguments(in, i + 1, close) : std::nullopt;
      if (!found) {
        out.push_back(token);
        continue;
      }
      args = *found;
      i = close;
    }
    active.insert(token.text);
    expand(substitute(*macro, args, token), active, out, depth + 1);
    active.erase(token.text);
  }
}

// Reads registrations out of the expanded code.
class RegistrationParser
{
public:
  RegistrationParser(const std::vector<Token>& code, SourceScan& scan) : m_code(code), m_scan(scan) {}

  void run()
  {
    for (size_t i = 0; i + 1 < m_code.size(); ++i) {
      if (m_code[i].kind == Kind::ident && is_punct(m_code[i + 1], "(")) {
        if (m_code[i].text == "REGISTER_OP") {
          op(i);
        } else if (m_code[i].text == "REGISTER_KERNEL_BUILDER") {
          kernel(i);
        }
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
    for (const auto& [method, arg] : args) {
      auto attr = std::find_if(found.op.attrs.begin(), found.op.attrs.end(),
                               [&](const project::OpAttr& a) { return a.name == arg.type; });
      if (attr == found.op.attrs.end() ? !is_dtype(arg.type) : attr->type != "type") {
        problem(line, fmt::format("{} {} '{}: {}': opkit.yaml cannot declare this type; left out", *name,
                                  method == "Input" ? "input" : "output", arg.name, arg.type));
        continue;
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
          std::string lower = m_code[i].text.substr(3);
          std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
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
  if (!project::is_valid_arg_name(name) || type.empty()
      || !std::all_of(type.begin(), type.end(), [](char c) { return is_ident_char(c); })) {
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
    const std::map<std::string, std::string>& aliases = project::adopt_rules().dtype_aliases;
    for (const std::string& value : strings ? std::vector<std::string>{} : values) {
      std::string dtype = aliases.count(value) != 0 ? aliases.at(value) : value;
      if (!is_dtype(dtype)) {
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
  return attr;
}

SourceScan
scan_source(std::string_view text, const std::string& file, const std::vector<std::string>& watched)
{
  SourceScan scan;
  scan.file = file;
  std::vector<Token> code = Scanner(text, scan, watched).run();
  RegistrationParser(code, scan).run();
  return scan;
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
