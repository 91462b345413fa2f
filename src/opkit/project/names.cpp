#include "opkit/project/names.hpp"

#include "opkit/util/error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace opkit::project {

namespace {

bool
is_lower_or_digit(char c)
{
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
}

// Words that would make the generated C++ or Python not compile.
constexpr std::array<std::string_view, 30> k_reserved = {
  "and",   "as",     "assert", "break",  "class",   "continue", "def",    "del",    "delete", "else",
  "except", "false", "for",    "from",   "global",  "if",       "import", "in",     "is",     "lambda",
  "new",   "none",   "not",    "or",     "return",  "struct",   "true",   "try",    "while",  "tensorflow",
};

std::vector<std::string>
split_words(std::string_view name)
{
  std::vector<std::string> words;
  std::string current;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' || c == '-') {
      if (current.empty()) {
        fail(ExitCode::usage, "'{}': invalid op name: separators must sit between words", name);
      }
      words.push_back(current);
      current.clear();
      continue;
    }
    bool upper = std::isupper(static_cast<unsigned char>(c));
    if (upper && !current.empty() && is_lower_or_digit(name[i - 1])) {
      words.push_back(current);
      current.clear();
    }
    current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (current.empty()) {
    fail(ExitCode::usage, "'{}': invalid op name: it must not end with a separator", name);
  }
  words.push_back(current);
  return words;
}

} // namespace

ProjectNames
derive_names(std::string_view name)
{
  if (name.empty()) {
    fail(ExitCode::usage, "invalid op name: the name is empty");
  }
  if (name.size() > 64) {
    fail(ExitCode::usage, "'{}': invalid op name: longer than 64 characters", name);
  }
  if (!std::isalpha(static_cast<unsigned char>(name[0]))) {
    fail(ExitCode::usage, "'{}': invalid op name: it must start with a letter", name);
  }
  auto bad = std::find_if(name.begin(), name.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  });
  if (bad != name.end()) {
    fail(ExitCode::usage, "'{}': invalid op name: character '{}' is not allowed (use letters, digits, '_' or '-')",
         name, *bad);
  }
  ProjectNames names;
  for (const std::string& word : split_words(name)) {
    names.snake += (names.snake.empty() ? "" : "_") + word;
    names.camel += static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    names.camel += word.substr(1);
  }
  if (std::find(k_reserved.begin(), k_reserved.end(), names.snake) != k_reserved.end()) {
    fail(ExitCode::usage, "'{}': invalid op name: '{}' is a reserved word in C++ or Python", name, names.snake);
  }
  return names;
}

bool
is_valid_op_name(std::string_view name)
{
  return !name.empty() && std::isupper(static_cast<unsigned char>(name[0]))
         && std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

bool
is_valid_arg_name(std::string_view name)
{
  return !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]))
         && std::all_of(name.begin(), name.end(),
                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

} // namespace opkit::project
