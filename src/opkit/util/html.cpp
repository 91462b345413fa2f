#include "opkit/util/html.hpp"

#include "opkit/util/error.hpp"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include <climits>
#include <cstring>
#include <memory>

namespace opkit {

namespace {

struct DocFreer
{
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};

// The text of a node's children and their descendants (an attribute's value,
// an element's text), read from the tree in place: nothing to free.
std::string
text_of(const xmlNode* first)
{
  std::string text;
  for (const xmlNode* node = first; node != nullptr; node = node->next) {
    if ((node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) && node->content != nullptr) {
      text += reinterpret_cast<const char*>(node->content);
    } else if (node->type == XML_ELEMENT_NODE) {
      text += text_of(node->children);
    }
  }
  return text;
}

HtmlLink
link_of(const xmlNode* anchor)
{
  HtmlLink link;
  for (const xmlAttr* attr = anchor->properties; attr != nullptr; attr = attr->next) {
    link.attributes[reinterpret_cast<const char*>(attr->name)] = text_of(attr->children);
  }
  link.text = text_of(anchor->children);
  return link;
}

} // namespace

std::optional<std::string>
HtmlLink::attribute(const std::string& name) const
{
  auto it = attributes.find(name);
  return it == attributes.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::vector<HtmlLink>
html_links(const std::string& html)
{
  std::vector<HtmlLink> links;
  if (html.empty() || html.size() > INT_MAX) {
    return links;
  }
  // UTF-8 unless the page says otherwise (the parser's own default is Latin-1);
  // no network, no messages on stderr, and whatever the page's state, a tree.
  const int options = HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_RECOVER;
  std::unique_ptr<xmlDoc, DocFreer> doc(
    htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr, "UTF-8", options));
  if (!doc) {
    return links;
  }
  // Depth first, in document order, without recursion (a page may nest deeply).
  const xmlNode* node = doc->children;
  while (node != nullptr) {
    if (node->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<const char*>(node->name), "a") == 0) {
      HtmlLink link = link_of(node);
      if (std::optional<std::string> href = link.attribute("href")) {
        link.href = *href;
        links.push_back(std::move(link));
      }
    }
    if (node->type == XML_ELEMENT_NODE && node->children != nullptr) {
      node = node->children;
      continue;
    }
    while (node != nullptr && node->next == nullptr) {
      node = node->parent;
      if (node != nullptr && node->type == XML_HTML_DOCUMENT_NODE) {
        node = nullptr;
      }
    }
    if (node != nullptr) {
      node = node->next;
    }
  }
  return links;
}

} // namespace opkit
