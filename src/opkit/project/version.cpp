#include "opkit/project/version.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace opkit::project {

std::string
Version::str() const
{
  std::vector<std::string> text;
  for (int part : parts) {
    text.push_back(std::to_string(part));
  }
  return join(text, ".") + suffix;
}

namespace {

constexpr long k_none = -1;                    // no post-release
constexpr long k_no_dev = 1'000'000'000;       // not a development release: after every devN
constexpr int k_unknown = -2, k_dev_only = -1; // pre-release kinds below a (0), b (1), rc (2)
constexpr int k_final = 3;                     // no pre-release

// What orders a suffix (PEP 440's "rc1.post2.dev3+local.4"); `pep440` false
// for a suffix PEP 440 does not know, ordered by its text.
struct SuffixKey
{
  bool pep440 = true;
  int pre_kind = k_final;
  long pre = 0;
  long post = k_none;
  long dev = k_no_dev;
  std::vector<std::string> local;
};

// Reads PEP 440's grammar after the release, in any of its spellings:
// [-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?N?, -N or [-_.]?(post|rev|r)[-_.]?N?,
// [-_.]?dev[-_.]?N?, +local (case-insensitive; a missing N is 0).
class SuffixReader
{
public:
  explicit SuffixReader(std::string_view text)
  {
    for (char c : text) {
      m_text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }

  std::optional<SuffixKey> read()
  {
    SuffixKey key;
    if (std::optional<std::string_view> kind = word({"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"})) {
      key.pre_kind = kind->front() == 'a' ? 0 : kind->front() == 'b' ? 1 : 2;
      key.pre = number().value_or(0);
    }
    key.post = k_none;
    if (m_text.compare(m_at, 1, "-") == 0) { // 1.0-1
      key.post = number().value_or(k_none);
    }
    if (key.post == k_none && word({"post", "rev", "r"})) {
      key.post = number().value_or(0);
    }
    if (word({"dev"})) {
      key.dev = number().value_or(0);
    }
    if (m_at < m_text.size() && m_text[m_at] == '+') {
      key.local = split_local(m_text.substr(m_at + 1));
      if (key.local.empty()) {
        return std::nullopt;
      }
      m_at = m_text.size();
    }
    if (m_at != m_text.size() || m_text.empty()) {
      return std::nullopt;
    }
    if (key.pre_kind == k_final && key.post == k_none && key.dev != k_no_dev) {
      key.pre_kind = k_dev_only; // 1.0.dev1 comes before 1.0a1
    }
    return key;
  }

private:
  void separator()
  {
    if (m_at < m_text.size() && (m_text[m_at] == '-' || m_text[m_at] == '_' || m_text[m_at] == '.')) {
      ++m_at;
    }
  }

  // The first of `words` at an optional separator; the position is kept when none is.
  std::optional<std::string_view> word(std::initializer_list<std::string_view> words)
  {
    size_t before = m_at;
    separator();
    for (std::string_view w : words) {
      if (m_text.compare(m_at, w.size(), w) == 0) {
        m_at += w.size();
        return w;
      }
    }
    m_at = before;
    return std::nullopt;
  }

  // Digits after an optional separator (at most 9); the position is kept when none are.
  std::optional<long> number()
  {
    size_t before = m_at;
    separator();
    size_t digits = m_at;
    while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at])) && m_at - digits < 9) {
      ++m_at;
    }
    if (m_at == digits) {
      m_at = before;
      return std::nullopt;
    }
    return std::stol(m_text.substr(digits, m_at - digits));
  }

  // "ubuntu.1-2": its segments, nothing when one is empty.
  static std::vector<std::string> split_local(const std::string& text)
  {
    std::vector<std::string> segments(1);
    for (char c : text) {
      if (c == '.' || c == '-' || c == '_') {
        segments.emplace_back();
      } else if (std::isalnum(static_cast<unsigned char>(c))) {
        segments.back().push_back(c);
      } else {
        return {};
      }
    }
    bool empty = std::any_of(segments.begin(), segments.end(), [](const std::string& s) { return s.empty(); });
    return empty ? std::vector<std::string>{} : segments;
  }

  std::string m_text;
  size_t m_at = 0;
};

SuffixKey
suffix_key(const std::string& suffix)
{
  if (suffix.empty()) {
    return SuffixKey{};
  }
  std::optional<SuffixKey> key = SuffixReader(suffix).read();
  if (!key) {
    key = SuffixKey{};
    key->pep440 = false;
    key->pre_kind = k_unknown;
  }
  return *key;
}

bool
all_digits(const std::string& text)
{
  return !text.empty() && std::all_of(text.begin(), text.end(), is_ascii_digit);
}

std::string_view
trim_zeros(std::string_view digits)
{
  return digits.substr(std::min(digits.find_first_not_of('0'), digits.size()));
}

// A local version's segments: numbers as numbers, after any letters.
bool
local_less(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](const std::string& x, const std::string& y) {
                                        if (all_digits(x) != all_digits(y)) {
                                          return all_digits(y);
                                        }
                                        if (all_digits(x)) {
                                          std::string_view xs = trim_zeros(x), ys = trim_zeros(y);
                                          return xs.size() != ys.size() ? xs.size() < ys.size() : xs < ys;
                                        }
                                        return x < y;
                                      });
}

// The release without its trailing zeros: 1.0 and 1.0.0 are one release.
std::vector<int>
significant(const std::vector<int>& parts)
{
  std::vector<int> result = parts;
  while (!result.empty() && result.back() == 0) {
    result.pop_back();
  }
  return result;
}

} // namespace

bool
Version::prerelease() const
{
  SuffixKey key = suffix_key(suffix);
  return key.pre_kind != k_final || key.dev != k_no_dev;
}

bool
operator<(const Version& a, const Version& b)
{
  std::vector<int> release_a = significant(a.parts), release_b = significant(b.parts);
  if (release_a != release_b) {
    return release_a < release_b;
  }
  SuffixKey x = suffix_key(a.suffix), y = suffix_key(b.suffix);
  if (!x.pep440 && !y.pep440) {
    return std::tie(a.suffix, a.parts) < std::tie(b.suffix, b.parts);
  }
  if (std::tie(x.pre_kind, x.pre, x.post, x.dev) != std::tie(y.pre_kind, y.pre, y.post, y.dev)) {
    return std::tie(x.pre_kind, x.pre, x.post, x.dev) < std::tie(y.pre_kind, y.pre, y.post, y.dev);
  }
  if (local_less(x.local, y.local) || local_less(y.local, x.local)) {
    return local_less(x.local, y.local);
  }
  // Equal as PEP 440 has it (2.11.0rc1 and 2.11.0-rc1): still two spellings, in a fixed order.
  return std::tie(a.parts, a.suffix) < std::tie(b.parts, b.suffix);
}

bool
operator==(const Version& a, const Version& b)
{
  return a.parts == b.parts && a.suffix == b.suffix;
}

std::optional<Version>
parse_version(std::string_view text)
{
  // The release: digits, with a dot only before more digits ("1.0.post1": the
  // dot is the suffix's).
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
    ++end;
    if (end + 1 < text.size() && text[end] == '.' && std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
      ++end;
    }
  }
  Version version;
  if (end < text.size()) {
    version.suffix = std::string(text.substr(end));
    // A pre-release, post-release, development or build suffix ("-rc0", "rc1",
    // ".post1", ".dev2", "-cuda"): short, and only characters that are safe in
    // a path, a YAML scalar and a file name.
    bool safe = version.suffix.size() <= 32 && version.suffix.find("..") == std::string::npos
                && std::all_of(version.suffix.begin(), version.suffix.end(), [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == '_';
                   });
    bool known = version.suffix.find_first_of("-abr") == 0 || SuffixReader(version.suffix).read();
    if (!safe || !known) {
      return std::nullopt;
    }
  }
  for (const std::string& part : split(text.substr(0, end), '.')) {
    if (part.empty() || part.size() > 6 || !all_digits(part)) {
      return std::nullopt;
    }
    version.parts.push_back(std::stoi(part));
  }
  if (version.parts.empty() || version.parts.size() > 4) {
    return std::nullopt;
  }
  return version;
}

bool
version_matches(const Version& spec, const Version& version)
{
  if (spec.parts.size() > version.parts.size()) {
    return false;
  }
  if (!std::equal(spec.parts.begin(), spec.parts.end(), version.parts.begin())) {
    return false;
  }
  return spec.suffix.empty() || spec.suffix == version.suffix;
}

} // namespace opkit::project
