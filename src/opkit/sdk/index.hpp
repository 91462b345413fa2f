#pragma once

#include "opkit/project/version.hpp"

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
  std::string yanked_reason;   // the reason the index gives, when yanked ("" when none)
  std::string requires_python; // ">=3.7" (PEP 503's data-requires-python, PEP 691's requires-python)
  bool core_metadata = false;  // the index serves the METADATA file beside it (PEP 658/714)
};

// PEP 503 HTML: every <a href=...>name</a> (util/html), hrefs resolved
// against `page_url` (util/http_url: relative, "/path", "//host/path"), the
// #sha256= fragment taken as the hash, the data- attributes read. A link
// whose href makes no URL is skipped.
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

// The glibc a Linux x86-64 platform tag asks for (PEP 513, 571, 599, 600),
// as 1000 * major + minor: manylinux1 is 2.5, manylinux2010 2.12,
// manylinux2014 2.17, manylinux_X_Y X.Y; linux_x86_64 states none
// (k_unstated_glibc, after every manylinux). Nothing for another platform.
constexpr int k_unstated_glibc = 1000000;
std::optional<int>
linux_x86_64_glibc(const std::string& platform);

// The oldest glibc a wheel's platform tags ask for, and that tag; nothing
// when none of its tags is a Linux x86-64 one.
struct WheelPlatform
{
  std::string tag;                // "manylinux_2_27_x86_64"
  int glibc = 0;                  // as linux_x86_64_glibc
  std::string glibc_text() const; // "2.27", "" when unstated
};
std::optional<WheelPlatform>
wheel_platform(const WheelName& name);

// The best file for a project version among the Linux x86-64 CPython wheels
// (any manylinux tag, or linux_x86_64; a free-threaded "cp313t" ABI is not
// one): the oldest glibc the release offers, then the first python tag of
// `pythons` (preference order; a CPython the list lacks comes after, oldest
// first); yanked files last. Nothing when no file fits.
std::optional<IndexFile>
pick_wheel(const std::vector<IndexFile>& files, const std::string& project, const std::string& version,
           const std::vector<std::string>& pythons);

// The platform tags `pip download --platform` is given for a Linux x86-64
// wheel, the oldest glibc first (pip prefers the tags in the order given and
// does not widen manylinux_X_Y to older ones itself).
std::vector<std::string>
pip_platform_tags();

// The versions of `project` the index has wheels of, oldest first, each
// once (names whose version does not parse are skipped).
std::vector<project::Version>
listed_versions(const std::vector<IndexFile>& files, const std::string& project);

// Whether a requirement's version `spec` names `version`: "2.10" names 2.10.x
// and its post-releases (2.10.1.post1), "2.10.1" names 2.10.1 alone; a
// pre-release or development release is named only exactly ("2.11.0rc1").
bool
requirement_names(const project::Version& spec, const project::Version& version);

// The listed versions worth showing when `spec` names none of them: all of
// them when there are at most `count`, else the `count` nearest to where
// `spec` would sort, with "..." for those left out. Releases and
// post-releases only, unless `spec` has a suffix.
std::vector<std::string>
nearest_versions(const std::vector<project::Version>& versions, const project::Version& spec, size_t count = 8);

} // namespace opkit::sdk
