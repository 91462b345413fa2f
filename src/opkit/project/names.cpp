#include "opkit/project/names.hpp"

#include "opkit/util/error.hpp"

#include <fmt/format.h>

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

// Words that would make the generated C++ or Python not compile: every C++20
// keyword and alternative token, every Python 3 keyword (lower-cased, as names
// are), the Python names TensorFlow makes no function for (k_tf_skipped), a
// C macro that breaks `namespace NAME`, and the framework's own package name.
constexpr std::array<std::string_view, 119> k_reserved = {
  // C++
  "alignas",
  "alignof",
  "and",
  "and_eq",
  "asm",
  "auto",
  "bitand",
  "bitor",
  "bool",
  "break",
  "case",
  "catch",
  "char",
  "char8_t",
  "char16_t",
  "char32_t",
  "class",
  "compl",
  "concept",
  "const",
  "consteval",
  "constexpr",
  "constinit",
  "const_cast",
  "continue",
  "co_await",
  "co_return",
  "co_yield",
  "decltype",
  "default",
  "delete",
  "do",
  "double",
  "dynamic_cast",
  "else",
  "enum",
  "explicit",
  "export",
  "extern",
  "false",
  "float",
  "for",
  "friend",
  "goto",
  "if",
  "inline",
  "int",
  "long",
  "mutable",
  "namespace",
  "new",
  "noexcept",
  "not",
  "not_eq",
  "nullptr",
  "operator",
  "or",
  "or_eq",
  "private",
  "protected",
  "public",
  "register",
  "reinterpret_cast",
  "requires",
  "return",
  "short",
  "signed",
  "sizeof",
  "static",
  "static_assert",
  "static_cast",
  "struct",
  "switch",
  "template",
  "this",
  "thread_local",
  "throw",
  "true",
  "try",
  "typedef",
  "typeid",
  "typename",
  "union",
  "unsigned",
  "using",
  "virtual",
  "void",
  "volatile",
  "wchar_t",
  "while",
  "xor",
  "xor_eq",
  // Python (those C++ lacks)
  "as",
  "assert",
  "async",
  "await",
  "def",
  "del",
  "elif",
  "except",
  "finally",
  "from",
  "global",
  "import",
  "in",
  "is",
  "lambda",
  "none",
  "nonlocal",
  "pass",
  "raise",
  "with",
  "yield",
  // Python 2 keywords: TensorFlow makes no Python function for an op of this name
  "exec",
  "print",
  // C macros
  "errno",
  // Names the generated code needs for itself
  "tensorflow",
  "tf",
  "std",
};

// The Python function names an op library's generated module cannot have.
// Python 3 keywords: TensorFlow (1.12 and 2.10 alike) writes `def async(...)`
// and the module raises SyntaxError, so no op of the library loads. Its own
// reserved list (Python 2's keywords): it skips the op, so the module has no
// function for it. The C++ names come from the CamelCase op name, which no
// C++ keyword is.
constexpr std::array<std::string_view, 32> k_python_keywords = {
  "and",      "as",     "assert",  "async", "await", "break",  "class", "continue", "def",  "del",   "elif",
  "else",     "except", "finally", "for",   "from",  "global", "if",    "import",   "in",   "is",    "lambda",
  "nonlocal", "not",    "or",      "pass",  "raise", "return", "try",   "while",    "with", "yield",
};
constexpr std::array<std::string_view, 2> k_tf_skipped = {"exec", "print"};

// Splits a name into lower-case words; a misplaced separator is the cause in `problem`.
std::vector<std::string>
split_words(std::string_view name, std::string& problem)
{
  std::vector<std::string> words;
  std::string current;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' || c == '-') {
      if (current.empty()) {
        problem = "separators must sit between words";
        return {};
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
    problem = "it must not end with a separator";
    return {};
  }
  words.push_back(current);
  return words;
}

} // namespace

std::string
name_problem(std::string_view name, ProjectNames* names)
{
  if (name.empty()) {
    return "the name is empty";
  }
  if (name.size() > 64) {
    return "longer than 64 characters";
  }
  if (!std::isalpha(static_cast<unsigned char>(name[0]))) {
    return "it must start with a letter";
  }
  auto bad = std::find_if(name.begin(), name.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  });
  if (bad != name.end()) {
    return fmt::format("character '{}' is not allowed (use letters, digits, '_' or '-')", *bad);
  }
  std::string problem;
  ProjectNames derived;
  for (const std::string& word : split_words(name, problem)) {
    derived.snake += (derived.snake.empty() ? "" : "_") + word;
    derived.camel += static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    derived.camel += word.substr(1);
  }
  if (!problem.empty()) {
    return problem;
  }
  if (std::find(k_reserved.begin(), k_reserved.end(), derived.snake) != k_reserved.end()) {
    return fmt::format("'{}' is a reserved word in C++ or Python", derived.snake);
  }
  if (names != nullptr) {
    *names = derived;
  }
  return "";
}

ProjectNames
derive_names(std::string_view name, std::string_view what)
{
  ProjectNames names;
  std::string problem = name_problem(name, &names);
  if (!problem.empty()) {
    if (name.empty()) {
      fail(ExitCode::usage, "invalid {}: {}", what, problem);
    }
    fail(ExitCode::usage, "'{}': invalid {}: {}", name, what, problem);
  }
  return names;
}

bool
is_valid_op_name(std::string_view name)
{
  // TensorFlow's own rule (op_def_util.cc): [A-Z][a-zA-Z0-9>]*, where '>'
  // separates a namespace (Vendor>OpName); names starting with '_' are TF's internal ones.
  if (name.empty() || (name[0] == '_' && name.size() > 1)) {
    return !name.empty();
  }
  return std::isupper(static_cast<unsigned char>(name[0])) && name.back() != '>'
         && std::all_of(name.begin(), name.end(),
                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '>'; });
}

std::string
tf_python_name(std::string_view op_name)
{
  // TensorFlow's GenerateLowerCaseOpName (python_op_gen_internal.cc): a '>'
  // becomes '_'; an upper-case letter after a lower-case one, or before one,
  // starts a word (but not right after a '>').
  std::string result;
  for (size_t i = 0; i < op_name.size(); ++i) {
    char c = op_name[i];
    if (c == '>') {
      result += '_';
      continue;
    }
    auto lower = [&](size_t at) { return std::islower(static_cast<unsigned char>(op_name[at])) != 0; };
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0
        && (lower(i - 1) || (i + 1 < op_name.size() && lower(i + 1))) && op_name[i - 1] != '>') {
      result += '_';
    }
    result += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return result;
}

std::string
op_name_problem(std::string_view op_name)
{
  std::string python = tf_python_name(op_name);
  if (std::find(k_python_keywords.begin(), k_python_keywords.end(), python) != k_python_keywords.end()) {
    return fmt::format("TensorFlow names its Python function '{}', a Python keyword, and the library's "
                       "generated module would not load",
                       python);
  }
  if (std::find(k_tf_skipped.begin(), k_tf_skipped.end(), python) != k_tf_skipped.end()) {
    return fmt::format("TensorFlow makes no Python function for it ('{}' is on its reserved list)", python);
  }
  return "";
}

bool
is_valid_arg_name(std::string_view name)
{
  return !name.empty() && std::isalpha(static_cast<unsigned char>(name[0]))
         && std::all_of(name.begin(), name.end(),
                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

} // namespace opkit::project
