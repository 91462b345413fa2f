#pragma once

// The lexical layer of adopt/call_reader: Python and Starlark tokens, the
// text of a stretch of them, and the string formats it reads (f-strings,
// `%`). Internal to call_reader and its tests.

#include "opkit/adopt/call_reader.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::adopt::call_lexer {

// At most this many characters of a condition or placeholder are kept (a note quotes them).
constexpr size_t k_max_quoted = 100;
// A string made longer than this (by `+`, `%`, an f-string) is unknown: no name or path is so long.
constexpr size_t k_max_string = 65536;

enum class CallTok
{
  name,
  string,
  fstring, // an f-string's body, its placeholders unread
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
  int indent = -1; // a statement's first token: the columns before it
};

// Tokens of Python or Starlark text: newlines only where a statement ends
// (outside brackets), a statement's first token with its indentation; ends with `end`.
std::vector<CallToken>
tokenize(std::string_view text);

// `text`, cut to k_max_quoted characters ("..." after a cut).
std::string
quoted(std::string text);

// "not X" for "X", and "X" for "not X".
std::string
negated(const std::string& condition);

// The tokens [begin, end) as written, roughly ("torch.cuda.is_available() and x"), quoted().
std::string
tokens_text(const std::vector<CallToken>& tokens, size_t begin, size_t end);

// Why a value is no string or list: its own `why`, or the name opkit did not read ("" when neither).
std::string
why_not(const CallValue& value);

// `format % right`: %s and %d of strings and numbers (one, or a tuple's), %%;
// anything else unknown, with why.
CallValue
percent_format(const CallValue& format, const CallValue& right);

// An f-string's body with its `{name}` placeholders replaced by `lookup`'s
// strings, `{{` and `}}` read; unknown naming the first placeholder it cannot
// (its `text` the body as written).
CallValue
format_fstring(const std::string& body, int line,
               const std::function<std::optional<std::string>(const std::string& name)>& lookup);

} // namespace opkit::adopt::call_lexer
