#include "opkit/adopt/call_reader.hpp"

#include "opkit/adopt/call_lexer.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>

namespace opkit::adopt {

namespace {

using namespace call_lexer;
using ValueKind = CallValue::Kind;

constexpr int k_max_depth = 64;
// A string counts as one value more per this many characters (a copy of a long one is no free copy).
constexpr size_t k_chars_per_value = 256;

// The values in `value`, counting at most to `cap`.
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

// At most this many enclosing `if` conditions are carried by what a block adds.
constexpr size_t k_max_conditions = 16;

// An `if` block, `if COND:` or `else:`, by the indentation of its header.
struct Block
{
  int indent = 0;
  std::string condition;                                      // as written; `not COND` for an `else:`
  std::shared_ptr<const std::vector<std::string>> conditions; // this block's and those around it
  bool is_else = false;
  std::map<std::string, CallValue> assigned; // an `if` body: the names it assigns (an `else` makes choices of them)
};

class Parser
{
public:
  Parser(std::vector<CallToken> tokens, const std::set<std::string>& names, const std::string& file, size_t max_values,
         const CallContext& context)
    : m_tokens(std::move(tokens))
    , m_names(names)
    , m_context(context)
    , m_variables(context.variables)
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
      statement();
    }
    return std::move(m_result);
  }

private:
  std::vector<CallToken> m_tokens;
  const std::set<std::string>& m_names;
  const CallContext& m_context;
  size_t m_at = 0;
  std::map<std::string, CallValue> m_variables;
  // Names assigned a value that mentions a class of `m_names` opkit cannot
  // read (`ext = {...}[key]`): the line and the value as written.
  std::map<std::string, std::pair<int, std::string>> m_unread_classes;
  std::vector<Block> m_blocks;
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
  bool is_word(const char* word) const { return peek().kind == CallTok::name && peek().text == word; }
  bool at_line_end() const { return peek().kind == CallTok::newline || peek().kind == CallTok::end; }
  bool at_terminator() const
  {
    const CallToken& token = peek();
    return token.kind == CallTok::newline || token.kind == CallTok::end
           || (token.kind == CallTok::punct
               && (token.text == "," || token.text == ")" || token.text == "]" || token.text == "}" || token.text == ":"
                   || token.text == "="));
  }

  static CallValue unknown(int line, std::string why = "")
  {
    CallValue value;
    value.line = line;
    value.why = std::move(why);
    return value;
  }

  // One statement: an `if`/`elif`/`else` header (its block opened) with any
  // body on its line, or a simple statement.
  void statement()
  {
    const CallToken& first = peek();
    std::optional<Block> closed;
    while (first.indent >= 0 && !m_blocks.empty() && m_blocks.back().indent >= first.indent) {
      closed = std::move(m_blocks.back());
      m_blocks.pop_back();
    }
    int indent = first.indent;
    if (is_word("if") || is_word("elif")) {
      ++m_at;
      open_block(indent, condition(0), false, {});
    } else if (is_word("else") && is(1, ":")) {
      bool follows = closed && closed->indent == indent && !closed->is_else;
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

  void open_block(int indent, std::string condition, bool is_else, std::map<std::string, CallValue> if_assigned)
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

  // A condition up to `:` or `else`, its calls read; its text as written.
  std::string condition(int depth)
  {
    size_t begin = m_at;
    while (!at_terminator() && !is_word("else")) {
      size_t before = m_at;
      term(depth + 1);
      m_at += m_at == before ? 1 : 0;
    }
    return tokens_text(m_tokens, begin, m_at);
  }

  void simple_statement()
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

  bool is_class(const CallValue& value) const
  {
    size_t dot = value.text.rfind('.');
    return value.kind == ValueKind::name
           && m_names.count(dot == std::string::npos ? value.text : value.text.substr(dot + 1)) != 0;
  }

  // `variable = value` on `line`, the value's tokens from `begin` to here.
  void assign(const std::string& variable, CallValue value, int line, size_t begin)
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

  // `variable += value`: a list's items (carrying the `if` blocks' conditions), a string.
  void add_to(const std::string& variable, CallValue value)
  {
    auto found = m_variables.find(variable);
    if (found != m_variables.end()) {
      add_into(found->second, std::move(value), 0);
    }
  }

  // Adds to a list or string, or to each side of a choice (`if c: s = [...] / else: s = []`, then `s += [...]`).
  void add_into(CallValue& into, CallValue value, int depth)
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

  // Two strings as one; unknown past k_max_string.
  CallValue joined(CallValue left, const CallValue& right)
  {
    if (left.text.size() + right.text.size() > k_max_string) {
      return unknown(left.line, fmt::format("a string longer than {} characters", k_max_string));
    }
    left.text += right.text;
    charge(left);
    return left;
  }

  // Counts a string made here (by `+`, `%`, an f-string) by its length.
  void charge(const CallValue& made) { spend(made.text.size() / k_chars_per_value, made.line); }

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

  // `A if COND else B`, or a sum.
  CallValue expression(int depth)
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

  // `a % b % ...`: a %-format.
  CallValue product(int depth)
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

  // `a + b + ...`; anything else after a term makes the whole unknown (its calls still read).
  CallValue sum(int depth)
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

  // A call through a variable holding a class of `m_names`, or a choice of them.
  void resolve_callee(CallValue& call) const
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
read_calls(std::string_view text, const std::set<std::string>& names, const std::string& file,
           const CallContext& context)
{
  return Parser(tokenize(text), names, file, project::build_file_rules().max_values, context).run();
}

} // namespace opkit::adopt
