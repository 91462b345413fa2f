#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opkit {

// One <a> element of an HTML page.
struct HtmlLink
{
  std::string href;                              // as written, entities decoded ("a&amp;b" is "a&b"), not resolved
  std::string text;                              // the element's text, entities decoded, untrimmed
  std::map<std::string, std::string> attributes; // every attribute, names lower case; one without a value is ""

  // The attribute's value; nothing when the element lacks it.
  std::optional<std::string> attribute(const std::string& name) const;
};

// Every <a> with an href, in document order, as a browser's parser sees the
// page (libxml2's HTML parser: quoted or unquoted values, entities, unclosed
// and misnested tags). Never throws for malformed HTML: what cannot be parsed
// yields fewer links. util/html.cpp is the one place libxml2 is used.
std::vector<HtmlLink>
html_links(const std::string& html);

} // namespace opkit
