#include "opkit/util/error.hpp"
#include "opkit/util/ini_file.hpp"

#include <gtest/gtest.h>

#include <string>

using opkit::IniEntry;
using opkit::IniFile;
using opkit::parse_ini;

namespace {

// "name=value@line" for each of a section's items.
std::vector<std::string>
shown(const IniFile& ini, size_t section)
{
  std::vector<std::string> out;
  for (const IniEntry& entry : ini.items(ini.sections.at(section))) {
    out.push_back(entry.name + "=" + entry.value + "@" + std::to_string(entry.line));
  }
  return out;
}

// The message of the Error(usage) parsing `text` throws; "" when it parses.
std::string
refusal(const std::string& text)
{
  try {
    parse_ini(text, "pip.conf");
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    return e.what();
  }
  return "";
}

} // namespace

// As Python's RawConfigParser: '=' or ':' (the first), names lower-cased,
// values stripped and keeping " ; text" and "#" (no inline comments),
// section names keeping their case, comment lines and blank lines skipped.
TEST(UtilIniFile, ReadsAsRawConfigParser)
{
  IniFile ini = parse_ini("# pip\n"
                          "[global]\n"
                          "Index-URL = https://u:p@h/simple ; not a comment\r\n"
                          "\n"
                          "  ; an indented comment\n"
                          "timeout: 60\n"
                          "find-links = a=b:c\n"
                          "[Download]\n"
                          "empty =\n",
                          "pip.conf");
  ASSERT_EQ(ini.sections.size(), 2u);
  EXPECT_EQ(ini.sections[0].name, "global");
  EXPECT_EQ(shown(ini, 0), (std::vector<std::string>{"index-url=https://u:p@h/simple ; not a comment@3", "timeout=60@6",
                                                     "find-links=a=b:c@7"}));
  EXPECT_EQ(ini.sections[1].name, "Download");
  EXPECT_EQ(shown(ini, 1), (std::vector<std::string>{"empty=@9"}));
}

// A line indented deeper than its option continues it; one at the option's
// own indent is an option of its own (inih alone would take it as a continuation).
TEST(UtilIniFile, ContinuationsAsPythonIndentsThem)
{
  IniFile ini = parse_ini("[global]\n"
                          "extra-index-url = https://a/simple\n"
                          "    https://b/simple\n"
                          "  [not-a-section]\n"
                          "[x]\n"
                          "  a = 1\n"
                          "  b = 2\n"
                          "     more\n",
                          "pip.conf");
  ASSERT_EQ(ini.sections.size(), 2u);
  const IniEntry& extra = ini.sections[0].entries.at(0);
  EXPECT_EQ(extra.value, "https://a/simple\nhttps://b/simple\n[not-a-section]");
  EXPECT_TRUE(extra.multiline);
  EXPECT_EQ(shown(ini, 1), (std::vector<std::string>{"a=1@6", "b=2\nmore@7"}));
  EXPECT_FALSE(ini.sections[1].entries[0].multiline);
  // All indented alike: headers and options, no continuation.
  ini = parse_ini("  [global]\n  index-url = x\n  [download]\n  index-url = y\n", "pip.conf");
  ASSERT_EQ(ini.sections.size(), 2u);
  EXPECT_EQ(ini.sections[1].name, "download");
  EXPECT_EQ(shown(ini, 1), (std::vector<std::string>{"index-url=y@4"}));
}

// inih keeps 200 bytes of a line; a token in a URL is longer.
TEST(UtilIniFile, LongLinesWhole)
{
  std::string url = "https://aws:" + std::string(1500, 't') + "@host/simple/";
  IniFile ini = parse_ini("[global]\nindex-url = " + url + "\n[download]\nx = 1\n", "pip.conf");
  ASSERT_EQ(ini.sections.size(), 2u);
  EXPECT_EQ(ini.sections[0].entries.at(0).value, url);
  EXPECT_EQ(shown(ini, 1), (std::vector<std::string>{"x=1@4"}));
}

// [DEFAULT]'s options are every section's, each section's own first.
TEST(UtilIniFile, DefaultSectionLendsItsOptions)
{
  IniFile ini =
    parse_ini("[DEFAULT]\nindex-url = d\ntimeout = 5\n[global]\ntimeout = 9\nx = 1\n[download]\n", "pip.conf");
  ASSERT_EQ(ini.sections.size(), 2u);
  EXPECT_EQ(shown(ini, 0), (std::vector<std::string>{"index-url=d@2", "timeout=9@5", "x=1@6"}));
  EXPECT_EQ(ini.sections[1].name, "download"); // no option of its own: [DEFAULT]'s
  EXPECT_EQ(shown(ini, 1), (std::vector<std::string>{"index-url=d@2", "timeout=5@3"}));
}

// What RawConfigParser refuses, with file:line.
TEST(UtilIniFile, RefusesWhatPythonRefuses)
{
  EXPECT_EQ(refusal("[global]\nindex-url = x\n"), "");
  EXPECT_EQ(refusal("index-url = x\n"), "pip.conf:1: an option before any [section]");
  EXPECT_EQ(refusal("\xef\xbb\xbf[global]\nindex-url = x\n"), "pip.conf:2: an option before any [section]");
  EXPECT_EQ(refusal("[global]\nhttps://x\n"), ""); // Python too: option "https", value "//x"
  EXPECT_EQ(refusal("[global]\nno delimiter\n"), "pip.conf:2: expected 'name = value' or '[section]'");
  EXPECT_EQ(refusal("[global]\n= x\n"), "pip.conf:2: expected 'name = value' or '[section]'");
  EXPECT_EQ(refusal("[global]\na = 1\nA = 2\n"), "pip.conf:3: 'a' appears twice in [global]");
  EXPECT_EQ(refusal("[global]\na = 1\n[x]\nb = 1\n[global]\nc = 1\n"), "pip.conf:5: section [global] appears twice");
  EXPECT_EQ(refusal("[global]\na = 1\n[global]\nb = 1\n"), "pip.conf:3: section [global] appears twice");
  EXPECT_EQ(refusal("[a]\n[b]\n# c\n[a]\n"), "pip.conf:4: section [a] appears twice");
  EXPECT_EQ(refusal("[DEFAULT]\na = 1\n[DEFAULT]\nb = 1\n"), "");
  EXPECT_EQ(refusal("[global]\n  a = 1\n  b = 2\n  garbage\n"), "pip.conf:4: expected 'name = value' or '[section]'");
}

TEST(UtilIniFile, ManyOptionsAreReadInLinearTime)
{
  std::string text = "[global]\n";
  for (int i = 0; i < 100000; ++i) {
    text += "key" + std::to_string(i) + " = value" + std::to_string(i) + "\n";
  }
  text += "index-url = https://mirror.example/simple\n";
  IniFile ini = parse_ini(text, "pip.conf"); // quadratic, this took 46 s (integration.bad_input_round4 times it)
  std::vector<IniEntry> items = ini.items(ini.sections.at(0));
  ASSERT_EQ(items.size(), 100001U);
  EXPECT_EQ(items.back().value, "https://mirror.example/simple");
  EXPECT_EQ(refusal(text + "key7 = again\n"), "pip.conf:100003: 'key7' appears twice in [global]");
}
