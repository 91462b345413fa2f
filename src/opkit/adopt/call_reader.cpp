// adopt/call_reader: its expressions (strings and formats, `+`, `%`, `A if C else B`,
// lists, calls) and read_calls.

#include "opkit/adopt/call_reader.hpp"

#include "opkit/adopt/call_parser.hpp"
#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::adopt {

namespace call_parser {

using namespace call_lexer;

size_t
weight(const CallValue& value, size_t cap)
{
  size_t total = 1 + value.text.size() / k_chars_per_value;
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

CallValue
Parser::joined(CallValue left, const CallValue& right)
{
  if (left.text.size() + right.text.size() > k_max_string) {
    return unknown(left.line, fmt::format("a string longer than {} characters", k_max_string));
  }
  left.text += right.text;
  charge(left);
  return left;
}

void
Parser::charge(const CallValue& made)
{
  spend(made.text.size() / k_chars_per_value, made.line);
}

void
Parser::skip_nested()
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

CallValue
Parser::expression(int depth)
{
  CallValue value = sum(depth);
  if (!is_word("if")) {
    return value;
  }
  int line = value.line;
  ++m_at;
  std::string written = condition(depth);
  if (!is_word("else")) {
    return unknown(line); // a comprehension's filter
  }
  ++m_at;
  if (depth > k_max_depth) {
    while (!at_terminator()) {
      size_t before = m_at;
      term(depth);
      m_at += m_at == before ? 1 : 0;
    }
    return unknown(line);
  }
  CallValue choice;
  choice.kind = ValueKind::choice;
  choice.text = written;
  choice.line = line;
  choice.items.push_back(std::move(value));
  choice.items.push_back(expression(depth + 1));
  return choice;
}

CallValue
Parser::product(int depth)
{
  CallValue value = term(depth);
  while (is(0, "%")) {
    ++m_at;
    CallValue right = term(depth);
    value = percent_format(value, right);
    charge(value);
  }
  return value;
}

CallValue
Parser::sum(int depth)
{
  CallValue value = product(depth);
  while (!at_terminator() && !is_word("if")) {
    if (is(0, "+")) {
      int plus_line = peek().line;
      ++m_at;
      CallValue right = product(depth);
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
      } else if (value.kind == ValueKind::string && right.kind == ValueKind::string) {
        value = joined(std::move(value), right);
      } else {
        value = unknown(value.line, why_not(value).empty() ? why_not(right) : why_not(value));
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

void
Parser::sequence(const char* closer, int depth, CallValue& into, bool keywords)
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
      into.kind = keywords ? into.kind : ValueKind::unknown;
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
      into.kind = keywords ? into.kind : ValueKind::unknown;
      continue;
    }
    into.items.push_back(std::move(item));
  }
}

CallValue
Parser::term(int depth)
{
  const CallToken& token = peek();
  int line = token.line;
  bool opens = token.kind == CallTok::punct && (token.text == "(" || token.text == "[" || token.text == "{");
  if (depth > k_max_depth && (opens || (token.kind == CallTok::name && is(1, "(")))) {
    m_at += opens ? 0 : 1;
    skip_nested();
    return unknown(line);
  }
  if (token.kind == CallTok::string || token.kind == CallTok::fstring) {
    CallValue value;
    value.kind = ValueKind::string;
    value.line = line;
    while (peek().kind == CallTok::string || peek().kind == CallTok::fstring) {
      const CallToken& part = next();
      CallValue read;
      read.kind = ValueKind::string;
      read.text = part.text;
      if (part.kind == CallTok::fstring) {
        read = format_fstring(part.text, line, [&](const std::string& name) -> std::optional<std::string> {
          auto found = m_variables.find(name);
          bool plain = found != m_variables.end()
                       && (found->second.kind == ValueKind::string || found->second.kind == ValueKind::number);
          return plain ? std::optional<std::string>(found->second.text) : std::nullopt;
        });
        charge(read);
      }
      if (value.kind == ValueKind::string) {
        value = read.kind == ValueKind::string ? joined(std::move(value), read) : std::move(read);
      }
    }
    return value;
  }
  if (token.kind == CallTok::number) {
    CallValue value;
    value.kind = ValueKind::number;
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
      call.kind = ValueKind::call;
      call.text = name;
      call.line = line;
      resolve_callee(call);
      sequence(")", depth, call, true);
      if (m_names.count(call.callee()) != 0 || !call.why.empty()) {
        m_result.calls.push_back(call);
      }
      std::optional<CallValue> value = m_context.evaluate ? m_context.evaluate(call) : std::nullopt;
      if (value) {
        spend(weight(*value, m_left + 1), line);
        return std::move(*value);
      }
      return call;
    }
    auto found = m_variables.find(name);
    if (found != m_variables.end()) {
      spend(weight(found->second, m_left + 1), line); // a copy of the whole value
      return found->second;
    }
    CallValue value;
    value.kind = ValueKind::name;
    value.text = name;
    value.line = line;
    return value;
  }
  if (opens) {
    std::string open = next().text;
    CallValue list;
    list.kind = open == "{" ? ValueKind::unknown : ValueKind::list;
    list.line = line;
    sequence(open == "(" ? ")" : open == "[" ? "]" : "}", depth, list, false);
    return list;
  }
  return unknown(line); // an operator or keyword: the caller moves on
}

} // namespace call_parser

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
read_calls(std::string_view text, const std::set<std::string>& names, const std::string& file,
           const CallContext& context)
{
  return call_parser::Parser(call_lexer::tokenize(text), names, file, project::build_file_rules().max_values, context)
    .run();
}

} // namespace opkit::adopt
