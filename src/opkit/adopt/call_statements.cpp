// adopt/call_reader's statements: assignments, `+=`, `append`/`extend`,
// `if`/`elif`/`else` blocks by indentation, calls through a name holding a class.

#include "opkit/adopt/call_parser.hpp"

namespace opkit::adopt::call_parser {

using namespace call_lexer;

ReadCalls
Parser::run()
{
  while (peek().kind != CallTok::end) {
    if (peek().kind == CallTok::newline) {
      ++m_at;
      continue;
    }
    statement();
  }
  while (!m_blocks.empty()) {
    Block last = std::move(m_blocks.back());
    m_blocks.pop_back();
    close_block(last);
  }
  return std::move(m_result);
}

void
Parser::statement()
{
  const CallToken& first = peek();
  int indent = first.indent;
  std::optional<Block> closed; // the outermost block this statement ends
  while (indent >= 0 && !m_blocks.empty() && m_blocks.back().indent >= indent) {
    if (closed) {
      close_block(*closed);
    }
    closed = std::move(m_blocks.back());
    m_blocks.pop_back();
  }
  bool follows = is_word("else") && is(1, ":") && closed && closed->indent == indent && !closed->is_else;
  if (closed && !follows) {
    close_block(*closed);
  }
  if (is_word("if") || is_word("elif")) {
    ++m_at;
    open_block(indent, condition(0), false, {});
  } else if (is_word("else") && is(1, ":")) {
    if (follows) {
      open_block(indent, negated(closed->condition), true, std::move(closed->assigned));
    }
    ++m_at;
  } else {
    simple_statement();
    return;
  }
  m_at += is(0, ":") ? 1 : 0;
  if (!at_line_end()) {
    simple_statement(); // `if x: y += z`
  }
}

void
Parser::close_block(Block& block)
{
  for (auto& [variable, before] : block.before) {
    auto found = m_variables.find(variable);
    if (found != m_variables.end() && is_class(found->second)) {
      CallValue choice;
      choice.kind = ValueKind::choice;
      choice.text = block.condition;
      choice.line = found->second.line;
      choice.items.push_back(std::move(found->second));
      choice.items.push_back(std::move(before));
      found->second = std::move(choice);
    }
  }
}

void
Parser::open_block(int indent, std::string condition, bool is_else, std::map<std::string, CallValue> if_assigned)
{
  Block block;
  block.indent = indent < 0 ? (m_blocks.empty() ? 0 : m_blocks.back().indent + 1) : indent;
  block.condition = std::move(condition);
  block.is_else = is_else;
  std::vector<std::string> conditions;
  if (!m_blocks.empty() && m_blocks.back().conditions) {
    conditions = *m_blocks.back().conditions;
  }
  if (conditions.size() < k_max_conditions) {
    conditions.push_back(block.condition);
  }
  block.conditions = std::make_shared<const std::vector<std::string>>(std::move(conditions));
  if (is_else) {
    block.assigned = std::move(if_assigned); // the `if` body's, made choices of when assigned again
  }
  m_blocks.push_back(std::move(block));
}

std::string
Parser::condition(int depth)
{
  size_t begin = m_at;
  while (!at_terminator() && !is_word("else")) {
    size_t before = m_at;
    term(depth + 1);
    m_at += m_at == before ? 1 : 0;
  }
  return tokens_text(m_tokens, begin, m_at);
}

void
Parser::simple_statement()
{
  if (peek().kind == CallTok::name && (is(1, "=") || is(1, "+="))) {
    int line = peek().line;
    std::string variable = next().text;
    bool add = next().text == "+=";
    size_t begin = m_at;
    CallValue value = expression(0);
    if (add) {
      add_to(variable, std::move(value));
    } else {
      assign(variable, std::move(value), line, begin);
    }
  }
  // The rest of the statement: one expression after another (`return f(x)`, `def f(x):`).
  while (!at_line_end()) {
    size_t before = m_at;
    CallValue value = expression(0);
    std::string method = value.kind == ValueKind::call ? value.callee() : "";
    if ((method == "append" || method == "extend") && value.items.size() == 1) {
      std::string variable = value.text.substr(0, value.text.size() - method.size() - 1);
      CallValue added = std::move(value.items[0]);
      if (method == "append") {
        CallValue list;
        list.kind = ValueKind::list;
        list.line = added.line;
        list.items.push_back(std::move(added));
        added = std::move(list);
      }
      add_to(variable, std::move(added));
    }
    m_at += m_at == before ? 1 : 0;
  }
}

bool
Parser::is_class(const CallValue& value) const
{
  size_t dot = value.text.rfind('.');
  return value.kind == ValueKind::name
         && m_names.count(dot == std::string::npos ? value.text : value.text.substr(dot + 1)) != 0;
}

void
Parser::assign(const std::string& variable, CallValue value, int line, size_t begin)
{
  if (!m_blocks.empty()) {
    Block& block = m_blocks.back();
    auto earlier = block.assigned.find(variable);
    if (block.is_else && earlier != block.assigned.end()) { // if C: x = A / else: x = B
      CallValue choice;
      choice.kind = ValueKind::choice;
      choice.text = negated(block.condition);
      choice.line = earlier->second.line;
      choice.items.push_back(std::move(earlier->second));
      choice.items.push_back(std::move(value));
      block.assigned.erase(earlier);
      value = std::move(choice);
    } else if (!block.is_else) {
      spend(weight(value, m_left + 1), value.line); // the copy kept for an `else`
      auto held = m_variables.find(variable);
      if (block.assigned.count(variable) == 0 && held != m_variables.end() && is_class(held->second)
          && is_class(value)) {
        block.before[variable] = held->second;
      }
      block.assigned[variable] = value;
    }
  }
  bool readable =
    is_class(value) || (value.kind == ValueKind::choice && (is_class(value.items[0]) || is_class(value.items[1])));
  bool mentions = false; // a class of `m_names` named, not called
  for (size_t i = begin; !readable && !mentions && i < m_at; ++i) {
    bool called = m_tokens[i + 1].kind == CallTok::punct && m_tokens[i + 1].text == "(";
    mentions = m_tokens[i].kind == CallTok::name && m_names.count(m_tokens[i].text) != 0 && !called;
  }
  if (mentions) {
    m_unread_classes[variable] = {line, tokens_text(m_tokens, begin, m_at)};
  } else {
    m_unread_classes.erase(variable);
  }
  m_variables[variable] = std::move(value);
}

void
Parser::add_to(const std::string& variable, CallValue value)
{
  auto found = m_variables.find(variable);
  if (found != m_variables.end()) {
    add_into(found->second, std::move(value), 0);
  }
}

void
Parser::add_into(CallValue& into, CallValue value, int depth)
{
  if (into.kind == ValueKind::choice && depth <= k_max_depth) {
    spend(weight(value, m_left + 1), value.line); // the copy for the first side
    add_into(into.items[0], value, depth + 1);
    add_into(into.items[1], std::move(value), depth + 1);
  } else if (into.kind == ValueKind::list && (value.kind == ValueKind::list || value.kind == ValueKind::call)) {
    spend(weight(value, m_left + 1), value.line);
    std::vector<CallValue> items;
    if (value.kind == ValueKind::list) {
      items = std::move(value.items);
    } else {
      items.push_back(std::move(value));
    }
    for (CallValue& item : items) {
      if (!item.conditions && !m_blocks.empty()) {
        item.conditions = m_blocks.back().conditions;
      }
      into.items.push_back(std::move(item));
    }
  } else if (into.kind == ValueKind::string && value.kind == ValueKind::string) {
    into = joined(std::move(into), value);
  } else {
    std::string why = why_not(into).empty() ? why_not(value) : why_not(into);
    into = unknown(into.line, why);
  }
}

void
Parser::resolve_callee(CallValue& call) const
{
  auto found = m_variables.find(call.text);
  auto unread = m_unread_classes.find(call.text);
  if (unread != m_unread_classes.end()) {
    call.via = call.text;
    call.via_line = unread->second.first;
    call.why =
      fmt::format("the class {} calls is chosen by `{}`, which opkit cannot read", call.text, unread->second.second);
    return;
  }
  if (found == m_variables.end()) {
    return;
  }
  const CallValue& value = found->second;
  const CallValue* chosen = is_class(value) ? &value : nullptr;
  const CallValue* other = nullptr;
  std::string condition;
  if (value.kind == ValueKind::choice && (is_class(value.items[0]) || is_class(value.items[1]))) {
    bool first = is_class(value.items[0]);
    chosen = &value.items[first ? 0 : 1];
    other = first && is_class(value.items[1]) ? &value.items[1] : nullptr;
    condition = first ? value.text : negated(value.text);
  }
  if (chosen != nullptr) {
    call.via = call.text;
    call.via_line = value.line;
    call.text = chosen->text;
    call.alternative = other != nullptr ? other->text : "";
    call.condition = condition;
  }
}

} // namespace opkit::adopt::call_parser
