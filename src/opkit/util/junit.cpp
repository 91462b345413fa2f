#include "opkit/util/junit.hpp"

#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit {

namespace {

// The length of the UTF-8 sequence starting at text[i] when it is a valid one; 0 when not.
size_t
utf8_sequence(std::string_view text, size_t i)
{
  unsigned char lead = static_cast<unsigned char>(text[i]);
  size_t length = lead < 0x80             ? 1
                  : (lead & 0xe0) == 0xc0 ? 2
                  : (lead & 0xf0) == 0xe0 ? 3
                  : (lead & 0xf8) == 0xf0 ? 4
                                          : 0;
  if (length == 0 || i + length > text.size() || !is_utf8(text.substr(i, length))) {
    return 0;
  }
  return length;
}

// `text` as XML character data or an attribute value (`attribute`: newlines
// and tabs as character references, so a reader keeps them).
std::string
xml_escaped(std::string_view text, bool attribute)
{
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    unsigned char byte = static_cast<unsigned char>(c);
    size_t length = utf8_sequence(text, i);
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    ++i;
    if (length == 0 || (byte < 0x20 && c != '\n' && c != '\t' && c != '\r') || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte); // XML 1.0 cannot hold it at all
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (attribute && c == '"') {
      out += "&quot;";
    } else if (attribute && c == '\n') {
      out += "&#10;";
    } else if (attribute && c == '\r') {
      out += "&#13;";
    } else if (attribute && c == '\t') {
      out += "&#9;";
    } else if (c == '\r') {
      out += "&#13;"; // a parser turns a bare \r into \n
    } else {
      out += c;
    }
  }
  return out;
}

std::string
attr(std::string_view name, std::string_view value)
{
  return fmt::format(" {}=\"{}\"", name, xml_escaped(value, true));
}

size_t
count(const JunitSuite& suite, JunitOutcome outcome)
{
  return static_cast<size_t>(std::count_if(suite.cases.begin(), suite.cases.end(),
                                           [outcome](const JunitCase& c) { return c.outcome == outcome; }));
}

void
render_case(std::string& out, const JunitCase& test)
{
  out += "    <testcase" + attr("classname", test.classname) + attr("name", test.name);
  if (test.outcome == JunitOutcome::passed && test.details.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  const char* element = test.outcome == JunitOutcome::failure   ? "failure"
                        : test.outcome == JunitOutcome::error   ? "error"
                        : test.outcome == JunitOutcome::skipped ? "skipped"
                                                                : nullptr;
  if (element == nullptr) {
    out += "      <system-out>" + xml_escaped(test.details, false) + "</system-out>\n";
  } else {
    out += fmt::format("      <{}{}{}>{}</{}>\n", element, attr("message", test.message), attr("type", element),
                       xml_escaped(test.details, false), element);
  }
  out += "    </testcase>\n";
}

} // namespace

std::string
render_junit(const std::string& name, const std::vector<JunitSuite>& suites)
{
  size_t tests = 0;
  size_t failures = 0;
  size_t errors = 0;
  for (const JunitSuite& suite : suites) {
    tests += suite.cases.size();
    failures += count(suite, JunitOutcome::failure);
    errors += count(suite, JunitOutcome::error);
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + attr("name", name) + attr("tests", std::to_string(tests))
         + attr("failures", std::to_string(failures)) + attr("errors", std::to_string(errors)) + ">\n";
  for (const JunitSuite& suite : suites) {
    out += "  <testsuite" + attr("name", suite.name) + attr("tests", std::to_string(suite.cases.size()))
           + attr("failures", std::to_string(count(suite, JunitOutcome::failure)))
           + attr("errors", std::to_string(count(suite, JunitOutcome::error)))
           + attr("skipped", std::to_string(count(suite, JunitOutcome::skipped))) + ">\n";
    for (const JunitCase& test : suite.cases) {
      render_case(out, test);
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

void
write_junit(const std::filesystem::path& path, const std::string& name, const std::vector<JunitSuite>& suites)
{
  if (path.has_parent_path()) {
    fs::create_dirs(path.parent_path()); // reports/opkit-test.xml: CI steps name a folder of reports
  }
  fs::write_file_atomic(path, render_junit(name, suites));
}

} // namespace opkit
