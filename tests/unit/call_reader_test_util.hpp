#pragma once

// Helpers of the call_reader and call_statements tests: read_calls with the
// names they use, a list's strings with the `if` conditions they were added under.

#include "opkit/adopt/call_reader.hpp"

#include <set>
#include <string>
#include <vector>

namespace opkit::test {

inline std::vector<adopt::CallValue>
calls(const std::string& text, const std::set<std::string>& names = {"Ext", "CudaExt", "f"},
      const adopt::CallContext& context = {})
{
  return adopt::read_calls(text, names, "setup.py", context).calls;
}

// The strings of a list, each with its conditions ("a.cc", "b.cc@c&d"); "?" for an item no string.
inline std::vector<std::string>
strings(const adopt::CallValue& list)
{
  std::vector<std::string> out;
  for (const adopt::CallValue& item : list.items) {
    std::string conditions;
    for (const std::string& condition : item.conditions ? *item.conditions : std::vector<std::string>{}) {
      conditions += (conditions.empty() ? "@" : "&") + condition;
    }
    out.push_back((item.kind == adopt::CallValue::Kind::string ? item.text : "?") + conditions);
  }
  return out;
}

} // namespace opkit::test
