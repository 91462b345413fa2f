#include "opkit/util/suggest.hpp"

#include <algorithm>

namespace opkit {

size_t
edit_distance(std::string_view a, std::string_view b)
{
  // Optimal string alignment: three rows of the classic table.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    previous[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string>
nearest(std::string_view word, const std::vector<std::string>& candidates)
{
  if (word.empty()) {
    return std::nullopt;
  }
  // The word itself is never a suggestion: the caller knows it is not valid where it was given.
  for (const std::string& candidate : candidates) {
    if (candidate.size() > word.size() && candidate.compare(0, word.size(), word) == 0
        && word.find_first_not_of('-') != std::string_view::npos) {
      return candidate;
    }
  }
  // Dashes are not letters the user could have mistyped: "--bogus" is 5 letters.
  size_t first = std::min(word.find_first_not_of('-'), word.size());
  size_t letters = word.size() - first;
  // A third of the letters, as cargo allows: "--force" (5) is 2 from "--torch",
  // another word, not a typo of it.
  size_t allowed = std::max<size_t>(1, letters / 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    // A short word's first letter is what was meant: "--gpu" is not "--cpu".
    if (letters <= 4 && (candidate.size() <= first || candidate[first] != word[first])) {
      continue;
    }
    size_t distance = edit_distance(word, candidate);
    if (distance > 0 && distance < best_distance && distance < letters) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

} // namespace opkit
