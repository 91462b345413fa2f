// The schema torch infers from a C++ function registered without one, as
// inferFunctionSchemaFlattenedReturns does (configs/adopt/torch_cpp_types.yaml).
#include "opkit/adopt/torch_scan.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/project/torch_schema.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace opkit::adopt::torch_scan_detail {

using namespace preprocess_detail;

namespace {

// Words before a name that make `name(...)` a statement or expression, not a declaration.
const std::set<std::string> k_not_types = {
  "return",   "else",    "case",   "goto",    "throw",     "new",    "delete", "co_return", "co_yield", "sizeof",
  "using",    "typedef", "if",     "while",   "for",       "switch", "do",     "operator",  "template", "typename",
  "decltype", "friend",  "public", "private", "protected", "class",  "struct", "enum",      "union",    "namespace"};

// Specifiers before a declaration's type that torch's inference never sees.
const std::set<std::string> k_specifiers = {"static",    "inline",     "extern",  "constexpr",
                                            "TORCH_API", "C10_EXPORT", "C10_API", "TORCH_LIBRARY_API"};

// Words of a fundamental type: never a parameter's name ("long long", "unsigned int").
const std::set<std::string> k_type_words = {"int",      "long",   "short", "char",  "double",   "float", "bool",
                                            "unsigned", "signed", "void",  "const", "volatile", "auto"};

// A type's tokens as one spelling: const, volatile and references dropped (std::decay_t),
// identifiers apart by one space, no leading "::".
std::string
spelling(const std::vector<Token>& tokens)
{
  std::string text;
  const Token* previous = nullptr;
  for (const Token& token : tokens) {
    if (token.text == "const" || token.text == "volatile" || is_punct(token, "&")) {
      continue;
    }
    if (previous != nullptr && previous->kind == Kind::ident && token.kind == Kind::ident) {
      text += " ";
    }
    text += token.text;
    previous = &token;
  }
  return starts_with(text, "::") ? text.substr(2) : text;
}

// Splits at top-level commas, counting (), [], {} and <>.
std::vector<std::vector<Token>>
split_top(const std::vector<Token>& tokens)
{
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;
  for (const Token& token : tokens) {
    if (token.kind == Kind::punct && std::string("([{<").find(token.text) != std::string::npos) {
      ++depth;
    } else if (token.kind == Kind::punct && std::string(")]}>").find(token.text) != std::string::npos) {
      --depth;
    } else if (depth == 0 && is_punct(token, ",")) {
      parts.emplace_back();
      continue;
    }
    parts.back().push_back(token);
  }
  return parts;
}

// One parameter's schema type: its default and name dropped; "" when unknown.
std::string
parameter_type(std::vector<Token> tokens)
{
  auto equals = std::find_if(tokens.begin(), tokens.end(), [](const Token& t) { return is_punct(t, "="); });
  tokens.erase(equals, tokens.end());
  if (tokens.size() >= 2 && tokens.back().kind == Kind::ident && k_type_words.count(tokens.back().text) == 0
      && !is_punct(tokens[tokens.size() - 2], "::")) {
    tokens.pop_back(); // its name
  }
  return tokens.empty() ? "" : project::torch_cpp_types().schema_type(spelling(tokens));
}

// The results of a return type: none for void, several for a tuple; nothing when one is unknown.
std::optional<std::vector<std::string>>
return_types(const std::vector<Token>& tokens)
{
  const project::TorchCppTypes& types = project::torch_cpp_types();
  std::string text = spelling(tokens);
  if (text == "void") {
    return std::vector<std::string>{};
  }
  size_t open = text.find('<');
  bool tuple = open != std::string::npos && text.back() == '>'
               && std::find(types.tuple.begin(), types.tuple.end(), text.substr(0, open)) != types.tuple.end();
  if (!tuple) {
    std::string type = types.schema_type(text);
    return type.empty() ? std::nullopt : std::optional<std::vector<std::string>>({type});
  }
  auto angle = std::find_if(tokens.begin(), tokens.end(), [](const Token& t) { return is_punct(t, "<"); });
  std::vector<Token> inner(angle + 1, tokens.end());
  while (!inner.empty() && !is_punct(inner.back(), ">")) {
    inner.pop_back(); // a reference or const after the tuple
  }
  if (inner.empty()) {
    return std::nullopt;
  }
  inner.pop_back();
  std::vector<std::string> results;
  for (const std::vector<Token>& part : inner.empty() ? std::vector<std::vector<Token>>{} : split_top(inner)) {
    std::string type = part.empty() ? "" : types.schema_type(spelling(part));
    if (type.empty()) {
      return std::nullopt;
    }
    results.push_back(type);
  }
  return results;
}

// A token a declaration's return type can hold.
bool
type_token(const Token& token)
{
  return token.kind == Kind::ident
         || (token.kind == Kind::punct
             && (token.text == "::" || token.text == "<" || token.text == ">" || token.text == "," || token.text == "&"
                 || token.text == "*"));
}

// The inferred schema of the declaration whose name is at `at`; nothing when
// `at` is no declaration, "" when one of its types is unknown.
std::optional<std::string>
declaration_schema(const std::vector<Token>& code, size_t at, const std::string& name)
{
  size_t open = at + 1;
  size_t close = code.size();
  std::optional<std::vector<std::vector<Token>>> params = call_arguments(code, open, close);
  size_t after = close + 1;
  after += after < code.size() && code[after].text == "noexcept" ? 1 : 0;
  if (!params || after >= code.size() || !(is_punct(code[after], "{") || is_punct(code[after], ";"))) {
    return std::nullopt;
  }
  size_t begin = at;
  while (begin >= 2 && is_punct(code[begin - 1], "::") && code[begin - 2].kind == Kind::ident) {
    begin -= 2; // ns::function: the qualifier is not part of the type
  }
  int angle = 0;
  size_t type_begin = begin;
  while (type_begin > 0 && type_token(code[type_begin - 1])) {
    const Token& token = code[type_begin - 1];
    angle += is_punct(token, ">") ? 1 : is_punct(token, "<") ? -1 : 0;
    if (angle < 0 || (angle == 0 && is_punct(token, ","))) {
      break;
    }
    --type_begin;
  }
  bool boundary = type_begin == 0 || is_punct(code[type_begin - 1], ";") || is_punct(code[type_begin - 1], "{")
                  || is_punct(code[type_begin - 1], "}") || is_punct(code[type_begin - 1], "]");
  std::vector<Token> type(code.begin() + static_cast<long>(type_begin), code.begin() + static_cast<long>(begin));
  while (!type.empty() && k_specifiers.count(type.front().text) != 0) {
    type.erase(type.begin());
  }
  bool statement = std::any_of(type.begin(), type.end(), [](const Token& t) { return k_not_types.count(t.text) != 0; });
  if (!boundary || type.empty() || statement || angle != 0) {
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> returns = return_types(type);
  if (!returns) {
    return std::string();
  }
  std::vector<std::string> args;
  bool none = params->size() == 1 && (params->front().empty() || spelling(params->front()) == "void");
  for (const std::vector<Token>& param : none ? std::vector<std::vector<Token>>{} : *params) {
    std::string arg = parameter_type(param);
    if (arg.empty()) {
      return std::string();
    }
    args.push_back(arg + " _" + std::to_string(args.size()));
  }
  std::vector<std::string> results;
  for (const std::string& result : *returns) {
    results.push_back(result + " _" + std::to_string(results.size()));
  }
  try {
    project::TorchSchema schema =
      project::parse_torch_schema(name + "(" + join(args, ", ") + ") -> (" + join(results, ", ") + ")");
    return project::render_torch_schema(schema);
  } catch (const project::SpecError&) {
    return std::string();
  }
}

} // namespace

std::string
infer_torch_schema(const std::vector<Token>& code, const std::string& function, const std::string& name)
{
  std::set<std::string> schemas; // of its definition and declarations: one, or the function is overloaded
  for (size_t i = 0; i + 1 < code.size(); ++i) {
    if (code[i].kind != Kind::ident || code[i].text != function || !is_punct(code[i + 1], "(")) {
      continue;
    }
    if (std::optional<std::string> schema = declaration_schema(code, i, name)) {
      schemas.insert(*schema);
    }
  }
  return schemas.size() == 1 ? *schemas.begin() : "";
}

} // namespace opkit::adopt::torch_scan_detail
