#include "opkit/adopt/call_lexer.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cctype>

namespace opkit::adopt::call_lexer {

namespace {

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

} // namespace

std::vector<CallToken>
tokenize(std::string_view text)
{
  std::vector<CallToken> tokens;
  int line = 1;
  int depth = 0;
  size_t at = 0;
  bool line_start = true; // the next token begins a statement
  while (at < text.size()) {
    char c = text[at];
    size_t begin = at;
    size_t count = tokens.size();
    if (c == '\n') {
      if (depth == 0 && !tokens.empty() && tokens.back().kind != CallTok::newline) {
        tokens.push_back({CallTok::newline, "", line});
      }
      line_start = line_start || depth == 0;
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
      while (at < text.size() && is_identifier_char(text[at])) {
        ++at;
      }
      std::string word(text.substr(begin, at - begin));
      bool prefix = word.size() <= 2 && word.find_first_not_of("rRbBuUfF") == std::string::npos;
      if (prefix && at < text.size() && (text[at] == '"' || text[at] == '\'')) {
        int start = line;
        std::string value = read_string(text, at, word.find_first_of("rR") != std::string::npos, line);
        bool formatted = word.find_first_of("fF") != std::string::npos;
        tokens.push_back({formatted ? CallTok::fstring : CallTok::string, value, start});
      } else {
        tokens.push_back({CallTok::name, word, line});
      }
    } else if (c == '"' || c == '\'') {
      int start = line;
      std::string value = read_string(text, at, false, line);
      tokens.push_back({CallTok::string, value, start});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
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
    if (line_start && tokens.size() > count && tokens.back().kind != CallTok::newline) {
      size_t line_begin = text.rfind('\n', begin);
      tokens.back().indent = static_cast<int>(begin - (line_begin == std::string_view::npos ? 0 : line_begin + 1));
      line_start = false;
    }
  }
  tokens.push_back({CallTok::end, "", line});
  return tokens;
}

std::string
quoted(std::string text)
{
  return text.size() <= k_max_quoted ? text : text.substr(0, k_max_quoted) + "...";
}

std::string
negated(const std::string& condition)
{
  return starts_with(condition, "not ") ? condition.substr(4) : "not " + condition;
}

std::string
tokens_text(const std::vector<CallToken>& tokens, size_t begin, size_t end)
{
  std::string text;
  for (size_t i = begin; i < end && i < tokens.size() && text.size() <= k_max_quoted; ++i) {
    const CallToken& token = tokens[i];
    bool punct = token.kind == CallTok::punct;
    bool tight = punct && std::string_view(".)]},:").find(token.text) != std::string_view::npos;
    const CallToken* before = i > begin ? &tokens[i - 1] : nullptr;
    bool after_value =
      before != nullptr
      && (before->kind != CallTok::punct || before->text == ")" || before->text == "]" || before->text == "}");
    bool called = punct && (token.text == "(" || token.text == "[") && after_value; // f(x), a[1]
    bool after_open = !text.empty() && std::string_view(".([{").find(text.back()) != std::string_view::npos;
    text += text.empty() || tight || called || after_open ? "" : " ";
    text += token.kind == CallTok::string    ? "\"" + token.text + "\""
            : token.kind == CallTok::fstring ? "f\"" + token.text + "\""
                                             : token.text;
  }
  return quoted(text);
}

std::string
why_not(const CallValue& value)
{
  return value.kind == CallValue::Kind::unknown ? value.why
         : value.kind == CallValue::Kind::name  ? fmt::format("{} is no name opkit read", quoted(value.text))
                                                : "";
}

CallValue
percent_format(const CallValue& format, const CallValue& right)
{
  CallValue failed;
  failed.line = format.line;
  failed.why = "a %-format opkit cannot read";
  if (format.kind != CallValue::Kind::string) {
    return failed;
  }
  std::vector<const CallValue*> arguments;
  if (right.kind == CallValue::Kind::list) {
    for (const CallValue& item : right.items) {
      arguments.push_back(&item);
    }
  } else {
    arguments.push_back(&right);
  }
  CallValue value = format;
  value.text.clear();
  size_t used = 0;
  for (size_t i = 0; i < format.text.size() && value.text.size() <= k_max_string; ++i) {
    char c = format.text[i];
    char spec = i + 1 < format.text.size() ? format.text[i + 1] : '\0';
    if (c != '%') {
      value.text += c;
      continue;
    }
    ++i;
    if (spec == '%') {
      value.text += '%';
      continue;
    }
    const CallValue* argument = used < arguments.size() ? arguments[used++] : nullptr;
    bool plain =
      argument != nullptr && (argument->kind == CallValue::Kind::string || argument->kind == CallValue::Kind::number);
    if ((spec != 's' && spec != 'd') || !plain) {
      failed.why = argument != nullptr && !why_not(*argument).empty() ? why_not(*argument) : failed.why;
      return failed;
    }
    value.text += argument->text;
  }
  return used == arguments.size() && value.text.size() <= k_max_string ? value : failed;
}

CallValue
format_fstring(const std::string& body, int line,
               const std::function<std::optional<std::string>(const std::string& name)>& lookup)
{
  CallValue value;
  value.kind = CallValue::Kind::string;
  value.line = line;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
      value.text += c; // {{ and }}
      ++i;
      continue;
    }
    if (c != '{') {
      value.text += c;
      continue;
    }
    size_t close = body.find('}', i);
    std::string placeholder = body.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
    std::optional<std::string> text = close == std::string::npos ? std::nullopt : lookup(trim(placeholder));
    if (!text || value.text.size() + text->size() > k_max_string) {
      CallValue failed;
      failed.line = line;
      failed.text = body; // as written: a loader's "{folder}/_ops.so" still names its file
      failed.why = fmt::format("an f-string with {{{}}}", quoted(placeholder));
      return failed;
    }
    value.text += *text;
    i = close;
  }
  return value;
}

} // namespace opkit::adopt::call_lexer
