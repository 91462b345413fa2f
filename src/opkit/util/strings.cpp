#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace opkit {

std::vector<std::string>
split(std::string_view text, char separator)
{
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

std::string
join(const std::vector<std::string>& parts, std::string_view separator)
{
  std::string result;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      result += separator;
    }
    result += parts[i];
  }
  return result;
}

std::string
trim(std::string_view text)
{
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) {
    return {};
  }
  size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

bool
starts_with(std::string_view text, std::string_view prefix)
{
  return text.substr(0, prefix.size()) == prefix;
}

bool
ends_with(std::string_view text, std::string_view suffix)
{
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string
tail_lines(std::string_view text, size_t max_lines)
{
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') {
    --pos;
  }
  for (size_t count = 0; count < max_lines && pos > 0; ++count) {
    size_t newline = text.rfind('\n', pos - 1);
    if (newline == std::string_view::npos) {
      return std::string(text);
    }
    pos = newline;
  }
  return std::string(text.substr(pos == 0 ? 0 : pos + 1));
}

} // namespace opkit

namespace opkit {

std::string
shell_quote(std::string_view arg)
{
  if (!arg.empty()
      && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%")
           == std::string_view::npos) {
    return std::string(arg);
  }
  std::string quoted = "'";
  for (char c : arg) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

namespace {

// The length of the valid UTF-8 sequence starting at text[i] (2 to 4 bytes),
// or 0 when there is none (ASCII bytes are not counted here).
size_t
utf8_sequence(std::string_view text, size_t i)
{
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                  : lead >= 0xe0 && lead <= 0xef ? 3
                  : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                 : 0;
  if (length == 0 || i + length > text.size()) {
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      return 0;
    }
  }
  // No overlong three- and four-byte forms, no surrogates, nothing past U+10FFFF.
  unsigned char second = byte(i + 1);
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) || (lead == 0xf0 && second < 0x90)
      || (lead == 0xf4 && second > 0x8f)) {
    return 0;
  }
  return length;
}

} // namespace

std::string
escape_text(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
    } else if (size_t length = c >= 0x80 ? utf8_sequence(text, i) : 0; length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      static const char* k_hex = "0123456789abcdef";
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 0xf];
      ++i;
    }
  }
  return out;
}

std::string
escape_clipped(std::string_view text, size_t max)
{
  return escape_text(text.substr(0, max)) + (text.size() > max ? "..." : "");
}

bool
is_utf8(std::string_view text)
{
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
    } else if (size_t length = utf8_sequence(text, i); length > 0) {
      i += length;
    } else {
      return false;
    }
  }
  return true;
}

bool
parse_positive_number(std::string_view text, double& number)
{
  if (text.empty() || text.size() > 32 || text.find_first_not_of("0123456789.eE+-") != std::string_view::npos) {
    return false;
  }
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end != copy.c_str() + copy.size() || !std::isfinite(value) || value <= 0) {
    return false;
  }
  number = value;
  return true;
}

bool
is_identifier_start(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool
is_identifier_char(char c)
{
  return is_identifier_start(c) || is_ascii_digit(c);
}

bool
is_ascii_digit(char c)
{
  return c >= '0' && c <= '9';
}

std::string
ascii_lower(std::string_view text)
{
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

std::string
value_or_none(const std::optional<std::string>& value)
{
  return value ? *value : "none";
}

bool
has_control(std::string_view text)
{
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

} // namespace opkit
