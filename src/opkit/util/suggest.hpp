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
// be what was meant: at most a third of its letters edited (dashes not
// counted; at least 1), fewer edits than letters, and for a word of up to 4
// letters the same first letter ("--gpu" is not "--cpu"). A candidate that
// `word` is the start of wins outright ("--j" means "--jobs"). Never `word` itself.
std::optional<std::string>
nearest(std::string_view word, const std::vector<std::string>& candidates);

} // namespace opkit
