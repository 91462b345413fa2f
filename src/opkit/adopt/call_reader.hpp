#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
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
    call,
    choice // `A if COND else B`: items {A, B}, text COND as written
  };
  Kind kind = Kind::unknown;
  std::string text;             // string: its value; name, number: as written; call: its dotted name; an f-string opkit
                                // cannot fill (unknown): its body as written ("{folder}/_ops.so")
  std::vector<CallValue> items; // list: the items; call: the positional arguments
  std::vector<std::pair<std::string, CallValue>> keywords; // call: the keyword arguments
  int line = 0;
  // unknown: what opkit could not read, where it can say ("an f-string with {version}"); "" otherwise.
  std::string why;
  // A list item `x += [...]` (or x.append, x.extend) added inside `if` blocks:
  // their conditions as written ("use_cuda"), outermost first; null when none.
  std::shared_ptr<const std::vector<std::string>> conditions;
  // A call through a name assigned a class (`extension = CUDAExtension if
  // use_cuda else CppExtension`, then `extension(...)`): `text` is the class
  // called when `condition` holds, `alternative` the one called otherwise
  // ("" when no other of the names asked for), `via` the name as written and
  // `via_line` the line assigning it. `via` alone, with `why`, when the class
  // cannot be read (`text` is then `via`).
  std::string via;
  int via_line = 0;
  std::string alternative;
  std::string condition;

  // A call's keyword argument; nullptr when it has none so named.
  const CallValue* keyword(const std::string& key) const;
  // The last component of a call's dotted name ("tf.load_op_library": load_op_library).
  std::string callee() const;
};

struct ReadCalls
{
  std::vector<CallValue> calls; // the calls of the names asked for, at any depth, inner ones first
};

// What a caller adds to the reading of one file (setup.py: its paths and globs).
struct CallContext
{
  // Names with a value before the text's first line ("__file__").
  std::map<std::string, CallValue> variables;
  // A call's value, where the caller computes one (os.path.join, glob.glob);
  // given the call with its arguments read. Without one, a call is a call.
  std::function<std::optional<CallValue>(const CallValue& call)> evaluate;
};

// Reads Python or Starlark text into the calls whose name's last component
// is one of `names`, each argument evaluated: strings (adjacent ones joined,
// prefixes and escapes read; an f-string's `{name}` placeholders, a string
// `%` a string or tuple of strings by `%s`), lists and tuples, `+` of two
// strings or of lists and calls (one list: the lists' items, each call an
// item, as `[...] + glob([...])`), `A if COND else B` (a choice), names a
// statement assigned before, nested calls. Anything else (a comprehension,
// a dict, ...) is `unknown`, with `why` where opkit can say.
//
// Statements are read in text order, function bodies like the top level
// (an approximation: an assignment in any body is visible after it, the
// later one wins). `x += ...`, `x.append(...)`, `x.extend(...)` add to a
// list; inside `if COND:` blocks (by indentation) what they add carries the
// blocks' conditions, and `if`/`else` bodies assigning one name two values
// make a choice of them (`else`'s condition is `not COND`). A call through a
// name whose value is a name or a choice of names of `names` is a call of
// those (see `via`).
//
// Runs no code, and is bounded for hostile input: nesting deeper than 64 is
// `unknown`; lists and variables that expand to more values than
// configs/adopt/build_files.yaml's max_values (a list doubled again and
// again) are Error(usage) "<file>:<line>: ...".
ReadCalls
read_calls(std::string_view text, const std::set<std::string>& names, const std::string& file,
           const CallContext& context = {});

} // namespace opkit::adopt
