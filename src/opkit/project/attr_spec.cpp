#include "opkit/project/attr_spec.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opkit::project {

namespace {

const std::vector<std::string> k_scalar_types = {"string", "int", "float", "bool", "type", "shape", "tensor", "func"};

// A cursor over a spec; every problem is a SpecError at the cursor.
class Cursor
{
public:
  explicit Cursor(std::string_view text)
    : m_text(text)
  {
  }

  void skip_spaces()
  {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
      ++m_pos;
    }
  }
  bool done()
  {
    skip_spaces();
    return m_pos >= m_text.size();
  }
  char peek()
  {
    skip_spaces();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
  }
  // Consumes `token` (after spaces) when it is next.
  bool accept(std::string_view token)
  {
    skip_spaces();
    if (m_text.substr(m_pos, token.size()) != token) {
      return false;
    }
    m_pos += token.size();
    return true;
  }
  void expect(std::string_view token, const char* what)
  {
    if (!accept(token)) {
      fail(fmt::format("expected {} '{}'{}", what, token, found()));
    }
  }
  std::string identifier(const char* what)
  {
    skip_spaces();
    size_t start = m_pos;
    if (m_pos < m_text.size() && is_identifier_start(m_text[m_pos])) {
      while (m_pos < m_text.size() && is_identifier_char(m_text[m_pos])) {
        ++m_pos;
      }
    }
    if (start == m_pos) {
      fail(fmt::format("expected {}{}", what, found()));
    }
    return std::string(m_text.substr(start, m_pos - start));
  }
  // Characters while `keep` holds (after spaces).
  std::string token(bool (*keep)(char))
  {
    skip_spaces();
    size_t start = m_pos;
    while (m_pos < m_text.size() && keep(m_text[m_pos])) {
      ++m_pos;
    }
    return std::string(m_text.substr(start, m_pos - start));
  }
  // A string in ' or " with C escapes, unescaped.
  std::string string_literal()
  {
    char quote = peek();
    if (quote != '\'' && quote != '"') {
      fail(fmt::format("expected a quoted string{}", found()));
    }
    size_t start = m_pos++;
    std::string out;
    while (m_pos < m_text.size() && m_text[m_pos] != quote) {
      char c = m_text[m_pos++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_pos >= m_text.size()) {
        break;
      }
      char e = m_text[m_pos++];
      static const std::string_view k_simple = "n\nt\tr\r\\\\''\"\"";
      size_t at = k_simple.find(e);
      if (at != std::string_view::npos && at % 2 == 0) {
        out += k_simple[at + 1];
      } else if (e >= '0' && e <= '7') {
        int value = e - '0';
        for (int i = 0; i < 2 && m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '7'; ++i) {
          value = value * 8 + (m_text[m_pos++] - '0');
        }
        out += static_cast<char>(value);
      } else if (e == 'x' && m_pos + 1 < m_text.size() && std::isxdigit(static_cast<unsigned char>(m_text[m_pos]))
                 && std::isxdigit(static_cast<unsigned char>(m_text[m_pos + 1]))) {
        out += static_cast<char>(std::stoi(std::string(m_text.substr(m_pos, 2)), nullptr, 16));
        m_pos += 2;
      } else {
        m_pos -= 2;
        fail(fmt::format("unknown escape '\\{}'", e));
      }
    }
    if (m_pos >= m_text.size()) {
      m_pos = start;
      fail("unterminated string");
    }
    ++m_pos;
    return out;
  }
  std::string rest()
  {
    skip_spaces();
    std::string out(m_text.substr(m_pos));
    m_pos = m_text.size();
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) {
      out.pop_back();
    }
    return out;
  }
  size_t position() const { return m_pos; }
  [[noreturn]] void fail(const std::string& cause) const { throw SpecError(m_pos, cause); }

private:
  std::string found() const
  {
    return m_pos < m_text.size() ? fmt::format(", found '{}'", m_text.substr(m_pos, 12)) : ", found the end";
  }
  std::string_view m_text;
  size_t m_pos = 0;
};

// `float`, `float32` or `DT_FLOAT` -> `float`, one of known_dtypes().
std::string
dtype_name(Cursor& in)
{
  in.skip_spaces();
  size_t at = in.position();
  std::string name = in.identifier("a dtype");
  if (name.rfind("DT_", 0) == 0) {
    name = ascii_lower(name.substr(3));
  }
  std::string dtype = canonical_dtype(name); // as the registry reads it: float32 is float
  if (dtype.empty()) {
    throw SpecError(at, fmt::format("unknown dtype '{}'", name));
  }
  return dtype;
}

bool
is_number_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
}

std::string
value(const std::string& type, Cursor& in, bool top);

std::string
list_value(const std::string& element, Cursor& in)
{
  in.expect("[", "a list");
  std::vector<std::string> items;
  if (!in.accept("]")) {
    do {
      items.push_back(value(element, in, false));
    } while (in.accept(","));
    in.expect("]", "the list's end");
  }
  return "[" + join(items, ", ") + "]";
}

std::string
shape_value(Cursor& in)
{
  if (in.accept("<unknown>")) {
    return "<unknown>";
  }
  in.expect("[", "a shape");
  std::vector<std::string> dims;
  if (!in.accept("]")) {
    do {
      if (in.accept("?")) {
        dims.push_back("?");
        continue;
      }
      std::string dim = value("int", in, false);
      dims.push_back(dim == "-1" ? "?" : dim);
    } while (in.accept(","));
    in.expect("]", "the shape's end");
  }
  return "[" + join(dims, ", ") + "]";
}

std::string
value(const std::string& type, Cursor& in, bool top)
{
  if (type.rfind("list(", 0) == 0) {
    return list_value(type.substr(5, type.size() - 6), in);
  }
  in.skip_spaces();
  size_t at = in.position();
  if (type == "string") {
    return quoted_text(in.string_literal());
  }
  if (type == "type") {
    return dtype_name(in);
  }
  if (type == "shape") {
    return shape_value(in);
  }
  if (type == "bool") {
    std::string word = in.token(is_identifier_char);
    if (word != "true" && word != "false") {
      throw SpecError(at, fmt::format("expected true or false, found '{}'", word));
    }
    return word;
  }
  if (type == "int" || type == "float") {
    std::string number = in.token(is_number_char);
    char* end = nullptr;
    errno = 0;
    if (type == "int") {
      long long parsed = std::strtoll(number.c_str(), &end, 10);
      if (number.empty() || *end != '\0' || errno == ERANGE) {
        throw SpecError(at, fmt::format("expected an integer, found '{}'", number));
      }
      return std::to_string(parsed);
    }
    float parsed = std::strtof(number.c_str(), &end);
    if (number.empty() || *end != '\0') {
      throw SpecError(at, fmt::format("expected a number, found '{}'", number));
    }
    return float_text(parsed);
  }
  if (!top) {
    in.fail(fmt::format("a list of {} has no default opkit reads", type));
  }
  return in.rest(); // tensor, func: as written
}

// `{'a', 'b'}` or `{float, int32}`: the strings or the dtypes, and which.
std::pair<std::string, std::vector<std::string>>
enumeration(Cursor& in)
{
  in.expect("{", "an enumeration");
  bool strings = in.peek() == '\'' || in.peek() == '"';
  std::vector<std::string> items;
  do {
    items.push_back(strings ? in.string_literal() : dtype_name(in));
  } while (in.accept(","));
  in.expect("}", "the enumeration's end");
  return {strings ? "string" : "type", items};
}

// The type, after `name:`: a scalar type, an enumeration, or list() of one.
void
attr_type(Cursor& in, OpAttr& attr)
{
  bool list = in.accept("list(");
  if (in.peek() == '{') {
    std::tie(attr.type, attr.allowed) = enumeration(in);
  } else {
    in.skip_spaces();
    size_t at = in.position();
    attr.type = in.identifier("an attr type");
    if (std::find(k_scalar_types.begin(), k_scalar_types.end(), attr.type) == k_scalar_types.end()) {
      throw SpecError(at, fmt::format("unknown attr type '{}' (expected one of: {}, list(...), {{...}})", attr.type,
                                      join(k_scalar_types, ", ")));
    }
  }
  if (list) {
    in.expect(")", "the list's");
    attr.type = "list(" + attr.type + ")";
  }
}

} // namespace

std::string
float_text(float value)
{
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) {
      break;
    }
  }
  return buffer;
}

std::string
quoted_text(std::string_view text)
{
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
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
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20 || byte >= 0x7f) {
          out += fmt::format("\\{:03o}", byte);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string
canonical_value(const std::string& type, std::string_view text)
{
  Cursor in(text);
  std::string out = value(type, in, true);
  if (!in.done()) {
    in.fail(fmt::format("unexpected text after the {} value", type));
  }
  return out;
}

OpAttr
parse_attr_spec(std::string_view spec)
{
  Cursor in(spec);
  OpAttr attr;
  attr.full_spec = true;
  attr.name = in.identifier("an attr name");
  in.expect(":", "a");
  attr_type(in, attr);
  in.skip_spaces();
  size_t minimum_at = in.position();
  if (in.accept(">=")) {
    if (attr.type != "int" && attr.type.rfind("list(", 0) != 0) {
      throw SpecError(minimum_at, fmt::format("a minimum (>=) is for int and list attrs, not {}", attr.type));
    }
    attr.minimum = std::stoll(value("int", in, false));
  }
  if (in.accept("=")) {
    in.skip_spaces();
    size_t at = in.position();
    std::string rest = in.rest();
    try {
      attr.default_value = canonical_value(attr.type, rest);
    } catch (const SpecError& e) {
      throw SpecError(at + e.offset, e.what());
    }
  }
  if (!in.done()) {
    in.fail("unexpected text after the attr's type (expected '>= N' or '= default')");
  }
  return attr;
}

std::string
render_attr_type(const OpAttr& attr)
{
  if (attr.allowed.empty()) {
    return attr.type;
  }
  bool list = attr.type.rfind("list(", 0) == 0;
  std::string element = list ? attr.type.substr(5, attr.type.size() - 6) : attr.type;
  std::vector<std::string> items;
  items.reserve(attr.allowed.size());
  for (const std::string& item : attr.allowed) {
    items.push_back(element == "type" ? item : quoted_text(item));
  }
  std::string enumeration = "{" + join(items, ", ") + "}";
  return list ? "list(" + enumeration + ")" : enumeration;
}

std::string
render_attr_spec(const OpAttr& attr)
{
  std::string out = attr.name + ": " + render_attr_type(attr);
  if (attr.minimum) {
    out += " >= " + std::to_string(*attr.minimum);
  }
  if (attr.default_value) {
    out += " = " + *attr.default_value;
  }
  return out;
}

OpArg
parse_arg_spec(std::string_view spec)
{
  Cursor in(spec);
  OpArg arg;
  arg.name = in.identifier("an argument name");
  in.expect(":", "a");
  arg.is_ref = in.accept("Ref(");
  arg.type = in.identifier("a dtype or type attr");
  if (in.accept("*")) {
    arg.number_attr = arg.type;
    arg.type = in.identifier("a dtype or type attr");
  }
  if (arg.is_ref) {
    in.expect(")", "Ref's closing");
  }
  if (!in.done()) {
    in.fail("unexpected text after the argument's type");
  }
  return arg;
}

std::string
render_arg_spec(const OpArg& arg)
{
  std::string type = (arg.number_attr.empty() ? "" : arg.number_attr + " * ") + arg.type;
  return arg.name + ": " + (arg.is_ref ? "Ref(" + type + ")" : type);
}

std::string
render_arg_specs(const std::vector<OpArg>& args)
{
  std::vector<std::string> parts;
  parts.reserve(args.size());
  for (const OpArg& arg : args) {
    parts.push_back(render_arg_spec(arg));
  }
  return join(parts, ", ");
}

} // namespace opkit::project
