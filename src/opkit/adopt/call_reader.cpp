#include "opkit/adopt/call_reader.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

namespace opkit::adopt {

namespace {

using ValueKind = CallValue::Kind;

constexpr int k_max_depth = 64;

enum class CallTok
{
  name,
  string,
  number,
  punct,
  newline,
  end
};

struct CallToken
{
  CallTok kind;
  std::string text;
  int line;
};

// A string literal's body from `at` (after its prefix), unescaped unless raw.
std::string
read_string(std::string_view text, size_t& at, bool raw, int& line)
{
  char quote = text[at];
  bool triple = text.substr(at, 3) == std::string(3, quote);
  at += triple ? 3 : 1;
  std::string value;
  while (at < text.size()) {
    char c = text[at];
    if (triple ? text.substr(at, 3) == std::string(3, quote) : c == quote) {
      at += triple ? 3 : 1;
      return value;
    }
    if (c == '\n') {
      ++line;
      if (!triple) {
        return value; // unterminated: ends with its line
      }
    }
    if (c == '\\' && at + 1 < text.size()) {
      char next = text[at + 1];
      at += 2;
      if (raw) {
        value += c;
        value += next;
      } else if (next == 'n' || next == 't') {
        value += next == 'n' ? '\n' : '\t';
      } else if (next != '\n') {
        value += next;
      } else {
        ++line;
      }
      continue;
    }
    value += c;
    ++at;
  }
  return value;
}

std::vector<CallToken>
tokenize(std::string_view text)
{
  std::vector<CallToken> tokens;
  int line = 1;
  int depth = 0;
  size_t at = 0;
  while (at < text.size()) {
    char c = text[at];
    if (c == '\n') {
      if (depth == 0 && !tokens.empty() && tokens.back().kind != CallTok::newline) {
        tokens.push_back({CallTok::newline, "", line});
      }
      ++line;
      ++at;
    } else if (c == '\\' && at + 1 < text.size() && text[at + 1] == '\n') {
      at += 2;
      ++line;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++at;
    } else if (c == '#') {
      while (at < text.size() && text[at] != '\n') {
        ++at;
      }
    } else if (is_identifier_start(c)) {
      size_t begin = at;
      while (at < text.size() && is_identifier_char(text[at])) {
        ++at;
      }
      std::string word(text.substr(begin, at - begin));
      bool prefix = word.size() <= 2 && word.find_first_not_of("rRbBuUfF") == std::string::npos;
      if (prefix && at < text.size() && (text[at] == '"' || text[at] == '\'')) {
        int start = line;
        std::string value = read_string(text, at, word.find_first_of("rR") != std::string::npos, line);
        tokens.push_back({CallTok::string, value, start});
      } else {
        tokens.push_back({CallTok::name, word, line});
      }
    } else if (c == '"' || c == '\'') {
      int start = line;
      std::string value = read_string(text, at, false, line);
      tokens.push_back({CallTok::string, value, start});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t begin = at;
      while (at < text.size() && (is_identifier_char(text[at]) || text[at] == '.')) {
        ++at;
      }
      tokens.push_back({CallTok::number, std::string(text.substr(begin, at - begin)), line});
    } else {
      std::string_view two = text.substr(at, 2);
      bool pair = two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "**" || two == "+=";
      depth += (c == '(' || c == '[' || c == '{') ? 1 : 0;
      depth -= (c == ')' || c == ']' || c == '}') && depth > 0 ? 1 : 0;
      tokens.push_back({CallTok::punct, std::string(text.substr(at, pair ? 2 : 1)), line});
      at += pair ? 2 : 1;
    }
  }
  tokens.push_back({CallTok::end, "", line});
  return tokens;
}

// The values in `value`, counting at most to `cap`.
size_t
weight(const CallValue& value, size_t cap)
{
  size_t total = 1;
  for (const CallValue& item : value.items) {
    if (total >= cap) {
      return total;
    }
    total += weight(item, cap - total);
  }
  for (const auto& keyword : value.keywords) {
    if (total >= cap) {
      return total;
    }
    total += weight(keyword.second, cap - total);
  }
  return total;
}

class Parser
{
public:
  Parser(std::vector<CallToken> tokens, const std::set<std::string>& names, const std::string& file, size_t max_values)
    : m_tokens(std::move(tokens))
    , m_names(names)
    , m_file(file)
    , m_left(max_values)
    , m_max(max_values)
  {
  }

  ReadCalls run()
  {
    while (peek().kind != CallTok::end) {
      if (peek().kind == CallTok::newline) {
        ++m_at;
        continue;
      }
      if (peek().kind == CallTok::name && is(1, "=")) {
        std::string variable = next().text;
        ++m_at;
        m_variables[variable] = expression(0);
      }
      // The rest of the statement: one expression after another (`return f(x)`, `def f(x):`).
      while (peek().kind != CallTok::newline && peek().kind != CallTok::end) {
        size_t before = m_at;
        expression(0);
        m_at += m_at == before ? 1 : 0;
      }
    }
    return std::move(m_result);
  }

private:
  std::vector<CallToken> m_tokens;
  const std::set<std::string>& m_names;
  size_t m_at = 0;
  std::map<std::string, CallValue> m_variables;
  ReadCalls m_result;
  const std::string& m_file;
  // Values this file may still copy: each use of a variable copies its value,
  // each `+` of lists its items (what the text itself holds is bounded by its size).
  size_t m_left;
  size_t m_max;

  // Counts `n` values made at `line`; past the budget, the one error naming it.
  void spend(size_t n, int line)
  {
    if (n > m_left) {
      throw Error(ExitCode::usage,
                  fmt::format("{}:{}: the lists here expand to more than {} values (a list doubled again and "
                              "again?): opkit init reads no further",
                              m_file, line, m_max),
                  "simplify the build file, or write opkit.yaml by hand");
    }
    m_left -= n;
  }

  const CallToken& peek(size_t ahead = 0) const { return m_tokens[std::min(m_at + ahead, m_tokens.size() - 1)]; }
  const CallToken& next()
  {
    const CallToken& token = peek();
    m_at += token.kind == CallTok::end ? 0 : 1;
    return token;
  }
  bool is(size_t ahead, const char* punct) const
  {
    return peek(ahead).kind == CallTok::punct && peek(ahead).text == punct;
  }
  bool at_terminator() const
  {
    const CallToken& token = peek();
    return token.kind == CallTok::newline || token.kind == CallTok::end
           || (token.kind == CallTok::punct
               && (token.text == "," || token.text == ")" || token.text == "]" || token.text == "}" || token.text == ":"
                   || token.text == "="));
  }

  static CallValue unknown(int line)
  {
    CallValue value;
    value.line = line;
    return value;
  }

  // Skips a bracketed region without reading it (too deep).
  void skip_nested()
  {
    int depth = 0;
    do {
      const CallToken& token = next();
      if (token.kind == CallTok::end) {
        return;
      }
      if (token.kind == CallTok::punct) {
        depth += (token.text == "(" || token.text == "[" || token.text == "{") ? 1 : 0;
        depth -= (token.text == ")" || token.text == "]" || token.text == "}") ? 1 : 0;
      }
    } while (depth > 0);
  }

  // `a + b + ...`; anything else after a term makes the whole unknown (its calls still read).
  CallValue expression(int depth)
  {
    CallValue value = term(depth);
    while (!at_terminator()) {
      if (is(0, "+")) {
        int plus_line = peek().line;
        ++m_at;
        CallValue right = term(depth);
        auto listish = [](const CallValue& v) { return v.kind == ValueKind::list || v.kind == ValueKind::call; };
        if (listish(value) && listish(right)) { // a call (glob, select) is an item the reader evaluates or notes
          spend(weight(value, m_left + 1) + weight(right, m_left + 1), plus_line);
          CallValue sum;
          sum.kind = ValueKind::list;
          sum.line = value.line;
          for (CallValue* part : {&value, &right}) {
            if (part->kind == ValueKind::list) {
              sum.items.insert(sum.items.end(), part->items.begin(), part->items.end());
            } else {
              sum.items.push_back(std::move(*part));
            }
          }
          value = std::move(sum);
        } else if (value.kind == CallValue::Kind::string && right.kind == CallValue::Kind::string) {
          value.text += right.text;
        } else {
          value = unknown(value.line);
        }
        continue;
      }
      size_t before = m_at;
      term(depth);
      m_at += m_at == before ? 1 : 0;
      value = unknown(value.line);
    }
    return value;
  }

  // Items up to `closer`; `keywords` for a call's arguments.
  void sequence(const char* closer, int depth, CallValue& into, bool keywords)
  {
    while (true) {
      const CallToken& token = peek();
      if (token.kind == CallTok::end || token.kind == CallTok::newline) {
        return;
      }
      if (token.kind == CallTok::punct && token.text == closer) {
        ++m_at;
        return;
      }
      if (token.kind == CallTok::punct && (token.text == ")" || token.text == "]" || token.text == "}")) {
        into.kind = keywords ? into.kind : CallValue::Kind::unknown;
        return; // a mismatched bracket: left to the caller
      }
      if (token.kind == CallTok::punct && token.text == ",") {
        ++m_at;
        continue;
      }
      if (keywords && token.kind == CallTok::name && is(1, "=")) {
        std::string key = token.text;
        m_at += 2;
        into.keywords.emplace_back(key, expression(depth + 1));
        continue;
      }
      if (token.kind == CallTok::punct && (token.text == "*" || token.text == "**")) {
        ++m_at;
        expression(depth + 1);
        continue;
      }
      size_t before = m_at;
      CallValue item = expression(depth + 1);
      if (m_at == before) {
        ++m_at; // a stray ':' or '='
        into.kind = keywords ? into.kind : CallValue::Kind::unknown;
        continue;
      }
      into.items.push_back(std::move(item));
    }
  }

  CallValue term(int depth)
  {
    const CallToken& token = peek();
    int line = token.line;
    bool opens = token.kind == CallTok::punct && (token.text == "(" || token.text == "[" || token.text == "{");
    if (depth > k_max_depth && (opens || (token.kind == CallTok::name && is(1, "(")))) {
      m_at += opens ? 0 : 1;
      skip_nested();
      return unknown(line);
    }
    if (token.kind == CallTok::string) {
      CallValue value;
      value.kind = CallValue::Kind::string;
      value.line = line;
      while (peek().kind == CallTok::string) {
        value.text += next().text;
      }
      return value;
    }
    if (token.kind == CallTok::number) {
      CallValue value;
      value.kind = CallValue::Kind::number;
      value.text = next().text;
      value.line = line;
      return value;
    }
    if (token.kind == CallTok::name) {
      std::string name = next().text;
      while (is(0, ".") && peek(1).kind == CallTok::name) {
        name += "." + peek(1).text;
        m_at += 2;
      }
      if (is(0, "(")) {
        ++m_at;
        CallValue call;
        call.kind = CallValue::Kind::call;
        call.text = name;
        call.line = line;
        sequence(")", depth, call, true);
        if (m_names.count(call.callee()) != 0) {
          m_result.calls.push_back(call);
        }
        return call;
      }
      auto found = m_variables.find(name);
      if (found != m_variables.end()) {
        spend(weight(found->second, m_left + 1), line); // a copy of the whole value
        return found->second;
      }
      CallValue value;
      value.kind = CallValue::Kind::name;
      value.text = name;
      value.line = line;
      return value;
    }
    if (opens) {
      std::string open = next().text;
      CallValue list;
      list.kind = open == "{" ? CallValue::Kind::unknown : CallValue::Kind::list;
      list.line = line;
      sequence(open == "(" ? ")" : open == "[" ? "]" : "}", depth, list, false);
      return list;
    }
    return unknown(line); // an operator or keyword: the caller moves on
  }
};

} // namespace

const CallValue*
CallValue::keyword(const std::string& key) const
{
  for (const auto& [name, value] : keywords) {
    if (name == key) {
      return &value;
    }
  }
  return nullptr;
}

std::string
CallValue::callee() const
{
  size_t dot = text.rfind('.');
  return dot == std::string::npos ? text : text.substr(dot + 1);
}

ReadCalls
read_calls(std::string_view text, const std::set<std::string>& names, const std::string& file)
{
  return Parser(tokenize(text), names, file, project::build_file_rules().max_values).run();
}

} // namespace opkit::adopt
