// The libxml2 functions util/html.cpp calls, forwarding to libxml2 opened on
// first use (util/lazy_library.hpp says why). opkit is not linked with it.

#include "opkit/util/lazy_library.hpp"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

namespace {

constexpr opkit::LazyLibrary k_xml(OPKIT_XML2_SONAME, "libxml2");

} // namespace

extern "C"
{

  OPKIT_LAZY_FORWARD(k_xml, htmlDocPtr, htmlReadMemory,
                     (const char* buffer, int size, const char* url, const char* encoding, int options),
                     (buffer, size, url, encoding, options))
  OPKIT_LAZY_FORWARD(k_xml, void, xmlFreeDoc, (xmlDocPtr doc), (doc))

} // extern "C"
