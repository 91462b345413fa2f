// The one user of libinih. inih (Debian's build) keeps 200 bytes of a line,
// strips " ; comments" from values and takes any indented line after an
// option as a continuation; Python's RawConfigParser does none of that, and
// pip.conf lines with a token in the URL run to a kilobyte. So inih reads the
// file a line at a time through our reader, which hands it each line whole
// (cut to inih's buffer: only the start of a line decides its kind), and the
// handler takes the name and value from the line itself, as Python does.
#include "opkit/util/ini_file.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>
#include <ini.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <optional>
#include <set>
#include <string_view>

namespace opkit {

namespace {

constexpr std::string_view k_space = " \t\n\r\f\v";

std::string_view
strip(std::string_view text)
{
  size_t first = text.find_first_not_of(k_space);
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(k_space) - first + 1);
}

struct Parse
{
  std::vector<std::string_view> lines;
  size_t next = 0;    // lines handed to inih: the handler's line is lines[next - 1]
  size_t scanned = 0; // lines before this one were looked at for section headers
  IniFile ini;
  std::string section;                          // the current section's name
  IniSection* target = nullptr;                 // where its options go
  IniEntry* option = nullptr;                   // the last option: a deeper-indented line continues it
  size_t option_indent = 0;                     // that option's line's indent
  std::set<std::string> sections_seen;          // duplicates are refused, as RawConfigParser's strict mode does
  std::unordered_set<std::string> options_seen; // likewise options: "<section's address> <name>"
  bool any_section = false;                     // a header was seen ([DEFAULT] too)
  int error_line = 0;
  std::string error;

  void refuse(int line, std::string why)
  {
    if (error_line == 0 || line < error_line) {
      error_line = line;
      error = std::move(why);
    }
  }
};

char*
read_line(char* buffer, int size, void* stream)
{
  Parse& parse = *static_cast<Parse*>(stream);
  if (parse.next >= parse.lines.size() || size < 2) {
    return nullptr;
  }
  std::string_view line = parse.lines[parse.next++];
  size_t length = std::min(line.size(), static_cast<size_t>(size) - 2);
  std::memcpy(buffer, line.data(), length);
  buffer[length] = '\n';
  buffer[length + 1] = '\0';
  return buffer;
}

IniSection*
enter_section(Parse& parse, const std::string& name, int line)
{
  parse.section = name;
  parse.option = nullptr;
  parse.any_section = true;
  if (name == "DEFAULT") {
    return &parse.ini.defaults;
  }
  if (!parse.sections_seen.insert(name).second) {
    parse.refuse(line, "section [" + name + "] appears twice");
    return nullptr;
  }
  parse.ini.sections.push_back(IniSection{name, {}});
  return &parse.ini.sections.back();
}

// The section headers among lines [scanned, end): inih reports options, not
// headers, and the lines between two options it skips are blank lines,
// comments and headers (a line starting with '[' that it rejects is its error).
// Each but the last is entered here (sections with no option of their own);
// the last is returned, with its line, for the caller to enter.
std::optional<std::pair<std::string, int>>
headers_up_to(Parse& parse, size_t end)
{
  std::optional<std::pair<std::string, int>> last;
  for (; parse.scanned < end; ++parse.scanned) {
    std::string_view text = strip(parse.lines[parse.scanned]);
    size_t close = text.find(']');
    if (!text.empty() && text[0] == '[' && close != std::string_view::npos) {
      if (last) {
        parse.target = enter_section(parse, last->first, last->second);
      }
      last.emplace(std::string(text.substr(1, close - 1)), static_cast<int>(parse.scanned) + 1);
    }
  }
  return last;
}

int
on_option(void* user, const char* section, const char* /*name*/, const char* /*value*/)
{
  Parse& parse = *static_cast<Parse*>(user);
  int line = static_cast<int>(parse.next);
  std::string_view raw = parse.lines[parse.next - 1];
  std::string_view text = strip(raw);
  size_t indent = raw.find_first_not_of(k_space);
  std::optional<std::pair<std::string, int>> header = headers_up_to(parse, parse.next - 1);
  parse.scanned = parse.next;
  if (*section == '\0' || (!header && !parse.any_section)) { // inih skips a byte-order mark; Python does not
    parse.refuse(line, "an option before any [section]");
    return 1;
  }
  if (header) {
    parse.target = enter_section(parse, header->first, header->second);
  } else if (parse.option != nullptr && indent > parse.option_indent) {
    parse.option->value += "\n" + std::string(text); // continues the value, as Python joins it
    parse.option->multiline = true;
    return 1;
  } else if (!text.empty() && text[0] == '[' && text.find(']') != std::string_view::npos) {
    // A header indented no deeper than the option before it: inih takes it for a
    // continuation, Python for a header (from here on inih's section name is stale).
    parse.target = enter_section(parse, std::string(text.substr(1, text.find(']') - 1)), line);
    return 1;
  }
  if (parse.target == nullptr) {
    return 1; // a section refused
  }
  size_t delimiter = text.find_first_of("=:");
  std::string name = delimiter == std::string_view::npos ? "" : ascii_lower(strip(text.substr(0, delimiter)));
  if (name.empty()) {
    parse.refuse(line, "expected 'name = value' or '[section]'");
    return 1;
  }
  std::vector<IniEntry>& entries = parse.target->entries;
  if (!parse.options_seen.insert(fmt::format("{} {}", static_cast<const void*>(parse.target), name)).second) {
    parse.refuse(line, "'" + name + "' appears twice in [" + parse.section + "]");
    return 1;
  }
  entries.push_back(IniEntry{name, std::string(strip(text.substr(delimiter + 1))), line, false});
  parse.option = &entries.back();
  parse.option_indent = indent;
  return 1;
}

} // namespace

std::vector<IniEntry>
IniFile::items(const IniSection& section) const
{
  std::vector<IniEntry> out = defaults.entries;
  std::unordered_map<std::string, size_t> at; // name -> its place in `out`: linear in the options, not quadratic
  at.reserve(out.size() + section.entries.size());
  out.reserve(out.size() + section.entries.size());
  for (size_t i = 0; i < out.size(); ++i) {
    at.emplace(out[i].name, i);
  }
  for (const IniEntry& entry : section.entries) {
    auto [it, added] = at.emplace(entry.name, out.size());
    if (added) {
      out.push_back(entry);
    } else {
      out[it->second] = entry;
    }
  }
  return out;
}

IniFile
parse_ini(const std::string& text, const std::string& file)
{
  Parse parse;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    parse.lines.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  parse.ini.sections.reserve(parse.lines.size()); // entries and sections are pointed at while parsing
  parse.options_seen.reserve(parse.lines.size());
  int inih_error = ini_parse_stream(read_line, &parse, on_option, &parse);
  if (std::optional<std::pair<std::string, int>> header = headers_up_to(parse, parse.lines.size())) {
    enter_section(parse, header->first, header->second); // sections after the last option
  }
  if (inih_error > 0) {
    parse.refuse(inih_error, "expected 'name = value' or '[section]'");
  }
  if (parse.error_line > 0) {
    fail(ExitCode::usage, "{}:{}: {}", file, parse.error_line, parse.error);
  }
  return std::move(parse.ini);
}

} // namespace opkit
