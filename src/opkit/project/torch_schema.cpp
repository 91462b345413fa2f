#include "opkit/project/torch_schema.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opkit::project {

namespace {

bool
is_identifier_start(char c)
{
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool
is_identifier_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A cursor over the schema text; every error names the byte it stopped at.
class Reader
{
public:
  explicit Reader(std::string_view text)
    : m_text(text)
  {
  }

  void skip_spaces()
  {
    while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at]))) {
      ++m_at;
    }
  }
  bool done()
  {
    skip_spaces();
    return m_at >= m_text.size();
  }
  char peek()
  {
    skip_spaces();
    return m_at < m_text.size() ? m_text[m_at] : '\0';
  }
  bool accept(std::string_view token)
  {
    skip_spaces();
    if (m_text.substr(m_at, token.size()) == token) {
      m_at += token.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view token, const char* what)
  {
    if (!accept(token)) {
      fail(fmt::format("expected {} '{}'", what, token));
    }
  }
  std::string identifier(const char* what)
  {
    skip_spaces();
    size_t start = m_at;
    if (m_at >= m_text.size() || !is_identifier_start(m_text[m_at])) {
      fail(fmt::format("expected {}", what));
    }
    while (m_at < m_text.size() && is_identifier_char(m_text[m_at])) {
      ++m_at;
    }
    return std::string(m_text.substr(start, m_at - start));
  }
  // Text up to a top-level `,` or `)`, brackets and quotes balanced, spaces outside quotes dropped.
  std::string value()
  {
    skip_spaces();
    std::string out;
    int depth = 0;
    while (m_at < m_text.size()) {
      char c = m_text[m_at];
      if (depth == 0 && (c == ',' || c == ')')) {
        break;
      }
      if (c == '"' || c == '\'') {
        size_t end = m_text.find(c, m_at + 1);
        if (end == std::string_view::npos) {
          fail("unterminated string");
        }
        out += m_text.substr(m_at, end - m_at + 1);
        m_at = end + 1;
        continue;
      }
      depth += (c == '[' || c == '(') ? 1 : (c == ']' || c == ')') ? -1 : 0;
      if (!std::isspace(static_cast<unsigned char>(c))) {
        out += c;
      }
      ++m_at;
    }
    if (out.empty()) {
      fail("expected a default value");
    }
    return out;
  }
  // `Type`, `Type(a!)`, `Type[]`, `Type[2]?`, `Type?[]`: spaces dropped.
  std::string type()
  {
    std::string out = identifier("a type");
    if (peek() == '(') { // alias annotation: (a), (a!), (a -> *), (b|c)
      size_t end = m_text.find(')', m_at);
      if (end == std::string_view::npos) {
        fail("unterminated alias annotation");
      }
      for (char c : m_text.substr(m_at, end - m_at + 1)) {
        if (!std::isspace(static_cast<unsigned char>(c))) {
          out += c;
        }
      }
      m_at = end + 1;
    }
    for (;;) {
      if (accept("?")) {
        out += '?';
      } else if (accept("[")) {
        skip_spaces();
        size_t start = m_at;
        while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at]))) {
          ++m_at;
        }
        out += "[" + std::string(m_text.substr(start, m_at - start)) + "]";
        expect("]", "the end of a list type");
      } else {
        return out;
      }
    }
  }
  [[noreturn]] void fail(const std::string& cause)
  {
    skip_spaces();
    throw SpecError(m_at, cause);
  }

private:
  std::string_view m_text;
  size_t m_at = 0;
};

// A float default as the dispatcher prints it (c10's IValue printing): a
// whole number as "2." ("0.0" is "0."), else 17 significant digits ("0.5",
// "0.10000000000000001"); anything else (inf, a name) as written.
std::string
float_as_torch_prints(const std::string& text)
{
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    return text;
  }
  if (std::abs(value) < 1e10 && static_cast<double>(static_cast<int64_t>(value)) == value) {
    return fmt::format("{}{}.", value == 0 && std::signbit(value) ? "-" : "", static_cast<int64_t>(value));
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

TorchArg
read_arg(Reader& in, bool is_return)
{
  TorchArg arg;
  arg.type = in.type();
  char next = in.peek();
  if (is_identifier_start(next)) {
    arg.name = in.identifier("an argument name");
  } else if (!is_return) {
    in.fail("expected an argument name");
  }
  if (!is_return && in.accept("=")) {
    arg.default_value = in.value();
    if (arg.type == "float" || arg.type == "float?") {
      arg.default_value = float_as_torch_prints(arg.default_value);
    }
  }
  return arg;
}

std::string
render_arg(const TorchArg& arg)
{
  std::string out = arg.type;
  if (!arg.name.empty()) {
    out += " " + arg.name;
  }
  if (!arg.default_value.empty()) {
    out += "=" + arg.default_value;
  }
  return out;
}

} // namespace

std::string
TorchArg::base_type() const
{
  size_t open = type.find('(');
  if (open == std::string::npos) {
    return type;
  }
  size_t close = type.find(')', open);
  return type.substr(0, open) + (close == std::string::npos ? "" : type.substr(close + 1));
}

bool
TorchArg::is_tensor() const
{
  std::string base = base_type();
  return base == "Tensor" || base == "Tensor?";
}

bool
TorchArg::is_tensors() const
{
  std::string base = base_type();
  return starts_with(base, "Tensor[") || starts_with(base, "Tensor?[");
}

bool
TorchArg::may_omit() const
{
  return !default_value.empty() || is_optional();
}

bool
TorchArg::is_optional() const
{
  return ends_with(type, "?");
}

bool
TorchArg::is_mutated() const
{
  size_t open = type.find('(');
  size_t close = open == std::string::npos ? std::string::npos : type.find(')', open);
  return close != std::string::npos && type.substr(open, close - open).find('!') != std::string::npos;
}

TorchSchema
parse_torch_schema(std::string_view text)
{
  Reader in(text);
  TorchSchema schema;
  std::string ns = in.identifier("the op's namespace (ns::op)");
  in.expect("::", "the namespace separator");
  schema.name = ns + "::" + in.identifier("the op's name");
  if (in.accept(".")) {
    schema.name += "." + in.identifier("an overload name");
  }
  in.expect("(", "the argument list's");
  bool keyword_only = false;
  if (!in.accept(")")) {
    do {
      if (in.accept("*")) {
        if (keyword_only) {
          in.fail("a second '*'");
        }
        keyword_only = true;
        continue;
      }
      TorchArg arg = read_arg(in, false);
      arg.keyword_only = keyword_only;
      for (const TorchArg& seen : schema.args) {
        if (seen.name == arg.name) {
          in.fail(fmt::format("argument '{}' appears twice", arg.name));
        }
      }
      schema.args.push_back(arg);
    } while (in.accept(","));
    in.expect(")", "the end of the argument list");
  }
  in.expect("->", "the results after");
  if (in.accept("(")) {
    if (!in.accept(")")) {
      do {
        schema.returns.push_back(read_arg(in, true));
      } while (in.accept(","));
      in.expect(")", "the end of the results");
    }
  } else {
    schema.returns.push_back(read_arg(in, true));
  }
  if (!in.done()) {
    in.fail("unexpected text after the results");
  }
  return schema;
}

std::string
render_torch_schema(const TorchSchema& schema)
{
  std::vector<std::string> args;
  bool keyword_only = false;
  for (const TorchArg& arg : schema.args) {
    if (arg.keyword_only && !keyword_only) {
      args.emplace_back("*");
      keyword_only = true;
    }
    args.push_back(render_arg(arg));
  }
  std::vector<std::string> returns;
  for (const TorchArg& result : schema.returns) {
    returns.push_back(render_arg(result));
  }
  std::string results = returns.size() == 1 ? returns.front() : "(" + join(returns, ", ") + ")";
  return schema.name + "(" + join(args, ", ") + ") -> " + results;
}

std::vector<std::string>
torch_result_names(const TorchSchema& schema)
{
  std::vector<std::string> names;
  for (size_t i = 0; i < schema.returns.size(); ++i) {
    const TorchArg& result = schema.returns[i];
    names.push_back(!result.name.empty()         ? result.name
                    : schema.returns.size() == 1 ? std::string("output")
                                                 : "output" + std::to_string(i));
  }
  return names;
}

} // namespace opkit::project
