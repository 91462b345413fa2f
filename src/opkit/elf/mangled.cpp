#include "opkit/elf/mangled.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::elf {

namespace {

// Where the "lts_YYYYMMDD" of a mangled "4absl12lts_YYYYMMDD" starts after `at`
// (the position of "4absl"), or npos: "12" is its length, so exactly 8 digits.
size_t
lts_at(std::string_view mangled, size_t at)
{
  size_t i = at + 5;
  if (mangled.compare(i, 6, "12lts_") != 0 || i + 14 > mangled.size()) {
    return std::string_view::npos;
  }
  std::string_view digits = mangled.substr(i + 6, 8);
  return std::all_of(digits.begin(), digits.end(), is_ascii_digit) ? i + 2 : std::string_view::npos;
}

} // namespace

bool
has_old_std_string(std::string_view mangled)
{
  if (mangled.substr(0, 5) == "_ZNSs") {
    return true;
  }
  for (size_t at = mangled.find("Ss", 1); at != std::string_view::npos; at = mangled.find("Ss", at + 1)) {
    char before = mangled[at - 1];
    if (before == 'R' || before == 'P' || before == 'E' || before == 'I'
        || (before == 'K' && at >= 2 && (mangled[at - 2] == 'R' || mangled[at - 2] == 'P'))) {
      return true;
    }
  }
  return false;
}

bool
has_absl_string_view(std::string_view mangled)
{
  for (size_t at = mangled.find("N4absl"); at != std::string_view::npos; at = mangled.find("N4absl", at + 1)) {
    size_t i = at + 6;
    if (size_t lts = lts_at(mangled, at + 1); lts != std::string_view::npos) {
      i = lts + 12;
    }
    if (mangled.compare(i, 14, "11string_viewE") == 0) {
      return true;
    }
  }
  return false;
}

std::string
abseil_lts(std::string_view mangled)
{
  for (size_t at = mangled.find("4absl"); at != std::string_view::npos; at = mangled.find("4absl", at + 1)) {
    if (size_t lts = lts_at(mangled, at); lts != std::string_view::npos) {
      return std::string(mangled.substr(lts, 12));
    }
  }
  return {};
}

std::string
without_abseil_lts(std::string_view demangled)
{
  std::string out;
  out.reserve(demangled.size());
  size_t from = 0;
  for (size_t at = demangled.find("absl::lts_"); at != std::string_view::npos;
       at = demangled.find("absl::lts_", at + 1)) {
    size_t digits = at + 10;
    size_t end = digits;
    while (end < demangled.size() && is_ascii_digit(demangled[end])) {
      ++end;
    }
    if (end == digits || demangled.compare(end, 2, "::") != 0) {
      continue;
    }
    out.append(demangled.substr(from, at - from));
    out += "absl::";
    from = end + 2;
    at = end + 1;
  }
  out.append(demangled.substr(from));
  return out;
}

std::string
name_key(std::string_view mangled)
{
  std::string key;
  name_key(mangled, key);
  return key;
}

void
name_key(std::string_view mangled, std::string& key)
{
  // Character tests, not string_view comparisons: this runs on every export
  // of a framework when a check is refused, and those became memcmp calls.
  key.clear();
  const size_t size = mangled.size();
  if (size < 2 || mangled[0] != '_' || mangled[1] != 'Z') {
    return;
  }
  size_t at = 2;
  if (at < size && mangled[at] == 'N') {
    ++at;
    while (at < size && (mangled[at] == 'K' || mangled[at] == 'V' || mangled[at] == 'r')) {
      ++at; // cv-qualifiers of a member function
    }
  }
  if (at + 1 < size && mangled[at] == 'S' && mangled[at + 1] == 't') {
    key = "std";
    at += 2;
  }
  while (at < size && mangled[at] >= '1' && mangled[at] <= '9') {
    size_t length = 0;
    while (at < size && mangled[at] >= '0' && mangled[at] <= '9' && length < 100000) {
      length = length * 10 + static_cast<size_t>(mangled[at] - '0');
      ++at;
    }
    if (length > size - at) {
      break; // a damaged name: what was read so far
    }
    const char* part = mangled.data() + at;
    at += length;
    if (length >= 4 && part[0] == 'l' && part[1] == 't' && part[2] == 's' && part[3] == '_') {
      continue;
    }
    if (!key.empty()) {
      key += "::";
    }
    // TF moved Status and friends between tensorflow::, tsl:: and absl::.
    bool moved = (length == 3 && part[0] == 't' && part[1] == 's' && part[2] == 'l')
                 || (length == 4 && part[0] == 'a' && part[1] == 'b' && part[2] == 's' && part[3] == 'l');
    if (moved) {
      key += "tensorflow";
    } else {
      key.append(part, length);
    }
  }
}

} // namespace opkit::elf
