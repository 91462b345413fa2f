#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

std::vector<std::string>
split(std::string_view text, char separator);
std::string
join(const std::vector<std::string>& parts, std::string_view separator);
std::string
trim(std::string_view text);
bool
starts_with(std::string_view text, std::string_view prefix);
bool
ends_with(std::string_view text, std::string_view suffix);

// The last `max_lines` lines of text, for showing the end of a long log.
std::string
tail_lines(std::string_view text, size_t max_lines);

// Text from an untrusted source made safe to print on one line: valid UTF-8
// is kept, \n \r \t are written as such, other control bytes and bytes that
// are not UTF-8 as \xNN ("a\nb\xff" -> a\nb\xff).
std::string
escape_text(std::string_view text);

// C/C++/Python identifier characters (ASCII): a letter or '_' starts one,
// letters, digits and '_' continue it.
bool
is_identifier_start(char c);
bool
is_identifier_char(char c);
bool
is_ascii_digit(char c);

// `text` with A-Z as a-z and every other byte as it is (no locale).
std::string
ascii_lower(std::string_view text);

// The value, or "none" where there is none.
std::string
value_or_none(const std::optional<std::string>& value);

// A positive, finite decimal number written alone ("30", "0.5", "1e6"), into `number`.
bool
parse_positive_number(std::string_view text, double& number);

// escape_text of at most the first `max` bytes, with "..." when there were
// more: a 65,000-character name from an archive stays a readable line.
std::string
escape_clipped(std::string_view text, size_t max);

// Whether `text` is valid UTF-8 (what JSON strings must hold).
bool
is_utf8(std::string_view text);

// Whether `text` holds a control byte (below 0x20, or 0x7f: a newline, a tab,
// an escape), which a value meant to stay on one line of a file must not.
bool
has_control(std::string_view text);

} // namespace opkit

namespace opkit {

// Quotes one argument for /bin/sh, only when it needs it ("a b" -> 'a b').
std::string
shell_quote(std::string_view arg);

} // namespace opkit
