#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opkit::adopt {

// A Python or Starlark expression, as far as `opkit init` reads one: strings,
// lists, calls; anything else is `unknown`.
struct CallValue
{
  enum class Kind
  {
    unknown,
    string,
    number,
    name,
    list,
    call
  };
  Kind kind = Kind::unknown;
  std::string text;             // string: its value; name, number: as written; call: its dotted name
  std::vector<CallValue> items; // list: the items; call: the positional arguments
  std::vector<std::pair<std::string, CallValue>> keywords; // call: the keyword arguments
  int line = 0;

  // A call's keyword argument; nullptr when it has none so named.
  const CallValue* keyword(const std::string& key) const;
  // The last component of a call's dotted name ("tf.load_op_library": load_op_library).
  std::string callee() const;
};

struct ReadCalls
{
  std::vector<CallValue> calls; // the calls of the names asked for, at any depth, inner ones first
};

// Reads Python or Starlark text into the calls whose name's last component
// is one of `names`, each argument evaluated: strings (adjacent ones joined,
// prefixes and escapes read), lists and tuples, `+` of two strings or of
// lists and calls (one list: the lists' items, each call an item, as
// `[...] + glob([...])`), names a top-level statement assigned before
// (`SRCS = [...]`), nested calls. Anything else (a comprehension, `%`, a
// dict, ...) is `unknown`. Runs no code, and is bounded for hostile input:
// nesting deeper than 64 is `unknown`; lists and variables that expand to
// more values than configs/adopt/build_files.yaml's max_values (a list
// doubled again and again) are Error(usage) "<file>:<line>: ...".
ReadCalls
read_calls(std::string_view text, const std::set<std::string>& names, const std::string& file);

} // namespace opkit::adopt
