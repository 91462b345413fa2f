#pragma once

// The C++ preprocessing opkit init needs before reading registrations: tokens,
// comments and line splices, #if 0 and GPU-only #if blocks, #include "...", the
// file's own macros and TF_CALL_*. Internal to adopt/scan.cpp and
// adopt/preprocess.cpp: nothing else includes this file.

#include "opkit/adopt/scan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::adopt::preprocess_detail {

enum class Kind
{
  ident,
  string,
  number,
  punct,
  other
};

struct Token
{
  Kind kind;
  std::string text; // a string literal's value, without quotes or prefix
  int line = 0;
  bool gpu = false;          // inside a GPU-only #if block
  bool space_before = false; // whitespace precedes it (a function-like #define needs none)
};

bool
is_punct(const Token& token, std::string_view text);

// The arguments of a call whose "(" is at `open`: split at top-level commas;
// `close` is set to the ")" (nothing when unbalanced).
std::optional<std::vector<std::vector<Token>>>
call_arguments(const std::vector<Token>& tokens, size_t open, size_t& close);

// The code of one C++ file as tokens, after its directives ran and its macros
// (and TF_CALL_*) expanded; code under #if 0 is dropped. Fills `scan`'s
// includes, identifiers (those of `watched` the code uses) and `registers`.
std::vector<Token>
preprocess(std::string_view text, SourceScan& scan, const std::vector<std::string>& watched);

} // namespace opkit::adopt::preprocess_detail
