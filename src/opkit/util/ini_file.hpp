#pragma once

// INI files as Python's configparser.RawConfigParser reads them (pip.conf is
// one): libinih finds the sections, options and continuation lines; the
// values are taken from the line as Python takes them.
#include <string>
#include <vector>

namespace opkit {

struct IniEntry
{
  std::string name;  // lower-cased, as RawConfigParser's optionxform does
  std::string value; // stripped; continuation lines joined with '\n'
  int line = 0;      // where the option is named
  bool multiline = false;
};

struct IniSection
{
  std::string name; // as written: section names keep their case
  std::vector<IniEntry> entries;
};

struct IniFile
{
  std::vector<IniSection> sections; // in file order, [DEFAULT] apart
  IniSection defaults;              // [DEFAULT]: RawConfigParser lends its options to every section

  // RawConfigParser's items(section): [DEFAULT]'s options, each replaced by
  // the section's own of that name, then the section's others.
  std::vector<IniEntry> items(const IniSection& section) const;
};

// Reads `text` as RawConfigParser does (strict, no interpolation): `=` or `:`
// after the name, whichever comes first; `#` and `;` start a comment only at
// the start of a line (a value keeps " ; text"); a line indented more than its
// option continues the value; no line-length limit. What RawConfigParser
// refuses is an Error(usage) "file:line: ...": an option before any section,
// a line that is neither, an option or a section given twice.
IniFile
parse_ini(const std::string& text, const std::string& file);

} // namespace opkit
