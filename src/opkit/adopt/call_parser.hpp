#pragma once

// The parser of adopt/call_reader: its statements and blocks
// (call_statements.cpp), its expressions (call_reader.cpp). Internal to them.

#include "opkit/adopt/call_lexer.hpp"
#include "opkit/adopt/call_reader.hpp"
#include "opkit/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace opkit::adopt::call_parser {

using call_lexer::CallTok;
using call_lexer::CallToken;
using ValueKind = CallValue::Kind;

constexpr int k_max_depth = 64;
// A string counts as one value more per this many characters (a copy of a long one is no free copy).
constexpr size_t k_chars_per_value = 256;
// At most this many enclosing `if` conditions are carried by what a block adds.
constexpr size_t k_max_conditions = 16;

// The values in `value`, counting at most to `cap`.
size_t
weight(const CallValue& value, size_t cap);

// An `if` block, `if COND:` or `else:`, by the indentation of its header.
struct Block
{
  int indent = 0;
  std::string condition;                                      // as written; `not COND` for an `else:`
  std::shared_ptr<const std::vector<std::string>> conditions; // this block's and those around it
  bool is_else = false;
  std::map<std::string, CallValue> assigned; // an `if` body: the names it assigns (an `else` makes choices of them)
  std::map<std::string, CallValue> before;   // an `if` body: the classes the names it assigns a class held before
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

  // Reads the whole text: each statement, then the blocks left open.
  ReadCalls run();

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

  // call_statements.cpp
  // One statement: an `if`/`elif`/`else` header (its block opened) with any
  // body on its line, or a simple statement.
  void statement();
  // An `if` body without an `else` that assigned a class to a name holding
  // another before it (`ext = CppExtension` / `if c: ext = CUDAExtension`):
  // the name is a choice of them.
  void close_block(Block& block);
  void open_block(int indent, std::string condition, bool is_else, std::map<std::string, CallValue> if_assigned);
  // A condition up to `:` or `else`, its calls read; its text as written.
  std::string condition(int depth);
  // An assignment, `+=`, `x.append(...)`/`x.extend(...)`, or expressions (`return f(x)`, `def f(x):`).
  void simple_statement();
  // A name whose last component is one of `m_names` (`cpp_extension.CUDAExtension`).
  bool is_class(const CallValue& value) const;
  // `variable = value` on `line`, the value's tokens from `begin` to here.
  void assign(const std::string& variable, CallValue value, int line, size_t begin);
  // `variable += value`: a list's items (carrying the `if` blocks' conditions), a string.
  void add_to(const std::string& variable, CallValue value);
  // Adds to a list or string, or to each side of a choice (`if c: s = [...] / else: s = []`, then `s += [...]`).
  void add_into(CallValue& into, CallValue value, int depth);
  // A call through a variable holding a class of `m_names`, or a choice of them.
  void resolve_callee(CallValue& call) const;

  // call_reader.cpp
  // Two strings as one; unknown past k_max_string.
  CallValue joined(CallValue left, const CallValue& right);
  // Counts a string made here (by `+`, `%`, an f-string) by its length.
  void charge(const CallValue& made);
  // Skips a bracketed region without reading it (too deep).
  void skip_nested();
  // `A if COND else B`, or a sum.
  CallValue expression(int depth);
  // `a % b % ...`: a %-format.
  CallValue product(int depth);
  // `a + b + ...`; anything else after a term makes the whole unknown (its calls still read).
  CallValue sum(int depth);
  // Items up to `closer`; `keywords` for a call's arguments.
  void sequence(const char* closer, int depth, CallValue& into, bool keywords);
  // A string (f-strings read), number, name (a variable's value), call (evaluated by the context when it can), list.
  CallValue term(int depth);
};

} // namespace opkit::adopt::call_parser
