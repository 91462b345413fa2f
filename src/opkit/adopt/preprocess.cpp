#include "opkit/adopt/preprocess.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace opkit::adopt::preprocess_detail {

bool
is_punct(const Token& token, std::string_view text)
{
  return token.kind == Kind::punct && token.text == text;
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

namespace {

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
is_registration(const Token& token)
{
  // TensorFlow's registrations, and torch's (TORCH_LIBRARY blocks).
  static const std::set<std::string> k_registrations = {"REGISTER_OP", "REGISTER_KERNEL_BUILDER", "TORCH_LIBRARY",
                                                        "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"};
  return token.kind == Kind::ident && k_registrations.count(token.text) != 0;
}

// torch's registrations (adopt/torch_scan reads them), by the word that starts one.
bool
is_torch_registration(const Token& token)
{
  static const std::set<std::string> k_torch = {"TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL",
                                                "RegisterOperators"};
  return token.kind == Kind::ident && k_torch.count(token.text) != 0;
}

// Turns a C++ file into tokens, running the directives it meets.
class Scanner
{
public:
  Scanner(std::string_view text, SourceScan& scan, const std::vector<std::string>& watched)
    : m_text(text)
    , m_scan(scan)
    , m_watched(watched.begin(), watched.end())
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
  std::map<std::string, Token> m_torch_macros; // macros holding a torch registration, not expanded yet: the word
  std::vector<Token> m_pending;                // code since the last #define/#undef, not yet expanded
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
    while (m_pos < m_text.size() && is_identifier_char(m_text[m_pos])) {
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
           && (is_identifier_char(m_text[m_pos]) || m_text[m_pos] == '.' || m_text[m_pos] == '\''
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
  // A registration inside a macro this file never expands (one other files
  // use, through a header): opkit reads no file's macros in another.
  for (const auto& [name, word] : m_torch_macros) {
    m_scan.problems.push_back(fmt::format("{}:{}: {} inside macro {}, which {} never expands: not read, skipped",
                                          m_scan.file, word.line, word.text, name, m_scan.file));
    m_scan.skipped.push_back({m_scan.file, word.line});
  }
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
  } else if (name == "include" && !tokens.empty() && is_punct(tokens[0], "<")) {
    std::string header;
    for (size_t i = 1; i < tokens.size() && !is_punct(tokens[i], ">"); ++i) {
      header += tokens[i].text;
    }
    m_scan.system_includes.push_back({header, tokens[0].line});
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
  auto torch = std::find_if(macro.body.begin(), macro.body.end(), is_torch_registration);
  if (torch != macro.body.end()) {
    m_torch_macros.insert_or_assign(tokens[0].text, *torch);
  }
  m_macros[tokens[0].text] = macro;
}

void
Scanner::flush()
{
  std::set<std::string> active;
  expand(m_pending, active, m_code, 0);
  m_pending.clear();
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
    m_torch_macros.erase(token.text);
    expand(substitute(*macro, args, token), active, out, depth + 1);
    active.erase(token.text);
  }
}

} // namespace

std::vector<Token>
preprocess(std::string_view text, SourceScan& scan, const std::vector<std::string>& watched)
{
  return Scanner(text, scan, watched).run();
}

} // namespace opkit::adopt::preprocess_detail
