#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

// Levenshtein distance, with a swap of two neighbours counting as one edit
// ("biuld" is one from "build").
size_t
edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (ties: the first), if it is close enough to
// be what was meant: at most 1 edit for words up to 4 characters, 2 up to 8, 3
// beyond, and fewer edits than characters kept. A candidate that `word` is the
// start of wins outright ("--j" means "--jobs"). Never `word` itself.
std::optional<std::string>
nearest(std::string_view word, const std::vector<std::string>& candidates);

} // namespace opkit
