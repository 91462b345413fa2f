#pragma once

#include <string>

namespace opkit {

// A link resolved to an absolute URL, its fragment apart ("sha256=..." on a
// package index; empty when there is none).
struct ResolvedUrl
{
  std::string url; // without the fragment
  std::string fragment;
};

// Resolves `href` against the page it is on, as a browser does (RFC 3986,
// through libcurl's URL parser): absolute, "/path", "//host:port/path"
// (scheme-relative: the page's scheme), "x.whl", "../../files/x.whl", a query.
// Error(failed) naming the page when `href` does not make a URL, Error(usage)
// when `base` is not one.
ResolvedUrl
resolve_url(const std::string& base, const std::string& href);

} // namespace opkit
