// libFuzzer target for opkit's symbol index reader (elf/symbol_index).
//
// An index file is untrusted input: SymbolIndex::parse must refuse what it
// cannot use and every lookup or walk of what it accepts must stay inside the
// bytes, reporting a corrupt part instead of reading it. Nothing is swallowed
// here: the reader reports through return values, so any exception, sanitizer
// report or crash is a finding. Seeds: corpus-index/ (corpus-src/index_seeds.py).

#include "opkit/elf/symbol_index.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string bytes(reinterpret_cast<const char*>(data), size);
  opkit::elf::SymbolIndex::Opened opened = opkit::elf::SymbolIndex::parse(bytes);
  if (!opened.index) {
    return 0;
  }
  const opkit::elf::SymbolIndex& index = *opened.index;
  std::vector<std::string> walked_names;
  bool walked = index.for_each(
    [&walked_names](std::string_view name, const opkit::elf::SymbolDefinition&) { walked_names.emplace_back(name); });
  // A walk is refused exactly when the index does not verify, and a sound
  // index finds again every name it walked.
  if (walked != index.verify()) {
    __builtin_trap();
  }
  for (const std::string& name : walked_names) {
    std::vector<opkit::elf::SymbolDefinition> found;
    if (!index.find(name, found) || found.empty()) {
      __builtin_trap();
    }
  }
  // A search visits what it accepts, each checked: on a sound index exactly
  // the walk's names it accepts, in the same order.
  std::vector<std::string> matched;
  auto wanted = [](std::string_view name) { return !name.empty() && name.size() % 2 == 0; };
  bool searched = index.for_each_matching(
    wanted, [&matched](std::string_view name, const opkit::elf::SymbolDefinition&) { matched.emplace_back(name); });
  if (walked) {
    std::vector<std::string> expected;
    for (const std::string& name : walked_names) {
      if (wanted(name)) {
        expected.push_back(name);
      }
    }
    if (!searched || matched != expected) {
      __builtin_trap();
    }
  }
  for (const std::string& name : {std::string(), std::string("f"), std::string("_Znwm"), std::string(300, 'x')}) {
    std::vector<opkit::elf::SymbolDefinition> found;
    index.find(name, found);
  }
  return 0;
}
