#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// A file a PEP 503/691 "simple" index lists for a project.
struct IndexFile
{
  std::string filename;
  std::string url;    // absolute
  std::string sha256; // from the JSON hashes or the #sha256= fragment; empty when the index gives none
  bool yanked = false;
};

// PEP 503 HTML: every <a href="...">name</a>, hrefs resolved against `page_url`.
std::vector<IndexFile>
parse_simple_html(const std::string& html, const std::string& page_url);

// PEP 691 JSON (application/vnd.pypi.simple.v1+json). Malformed is Error(usage).
std::vector<IndexFile>
parse_simple_json(const std::string& json, const std::string& page_url);

// PEP 503's normalised project name: lower case, runs of -_. as one '-'.
std::string
normalize_project(const std::string& name);

// A wheel file name's parts (PEP 427): name-version(-build)?-python-abi-platform.whl.
struct WheelName
{
  std::string project; // normalised
  std::string version;
  std::vector<std::string> pythons; // "cp36" (a tag may hold several, joined by '.')
  std::vector<std::string> abis;
  std::vector<std::string> platforms;
};
std::optional<WheelName>
parse_wheel_name(const std::string& filename);

// The best file for a project version: the first python tag (in preference
// order) any file has, then the first platform tag; yanked files last. Nothing
// when no file fits.
std::optional<IndexFile>
pick_wheel(const std::vector<IndexFile>& files, const std::string& project, const std::string& version,
           const std::vector<std::string>& pythons, const std::vector<std::string>& platforms);

// Resolves a (possibly relative) href against a page URL.
std::string
resolve_url(const std::string& base, const std::string& href);

} // namespace opkit::sdk
