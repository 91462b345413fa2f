#include "opkit/util/strings.hpp"

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

} // namespace opkit
