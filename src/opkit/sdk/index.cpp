#include "opkit/sdk/index.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/html.hpp"
#include "opkit/util/http_url.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <tuple>

namespace opkit::sdk {

std::vector<IndexFile>
parse_simple_html(const std::string& html, const std::string& page_url)
{
  std::vector<IndexFile> files;
  for (const HtmlLink& link : html_links(html)) {
    ResolvedUrl url;
    try {
      url = resolve_url(page_url, link.href);
    } catch (const Error& e) {
      log_debug("skipping a link: {}", e.what());
      continue;
    }
    IndexFile file;
    file.url = url.url;
    if (starts_with(url.fragment, "sha256=")) {
      file.sha256 = url.fragment.substr(7);
    }
    file.filename = trim(link.text);
    if (file.filename.empty()) {
      file.filename = split(url.url, '/').back();
    }
    std::optional<std::string> yanked = link.attribute("data-yanked");
    file.yanked = yanked.has_value();
    file.yanked_reason = yanked.value_or("");
    file.requires_python = link.attribute("data-requires-python").value_or("");
    std::optional<std::string> metadata = link.attribute("data-core-metadata");
    if (!metadata) {
      metadata = link.attribute("data-dist-info-metadata"); // PEP 658's first name
    }
    file.core_metadata = metadata.has_value() && *metadata != "false";
    files.push_back(file);
  }
  return files;
}

std::vector<IndexFile>
parse_simple_json(const std::string& text, const std::string& page_url)
{
  try {
    Json json = Json::parse(text);
    std::vector<IndexFile> files;
    for (const Json& entry : json.at("files")) {
      IndexFile file;
      file.filename = entry.at("filename").get<std::string>();
      file.url = resolve_url(page_url, entry.at("url").get<std::string>()).url;
      file.sha256 = entry.value("hashes", Json::object()).value("sha256", "");
      Json yanked = entry.value("yanked", Json(false));
      file.yanked = yanked.is_string() || (yanked.is_boolean() && yanked.get<bool>());
      file.yanked_reason = yanked.is_string() ? yanked.get<std::string>() : "";
      Json requires = entry.value("requires-python", Json());
      file.requires_python = requires.is_string() ? requires.get<std::string>() : "";
      Json metadata =
        entry.contains("core-metadata") ? entry["core-metadata"] : entry.value("dist-info-metadata", Json());
      file.core_metadata = metadata.is_object() || (metadata.is_boolean() && metadata.get<bool>());
      files.push_back(file);
    }
    return files;
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}: not a PEP 691 index page: {}", page_url, e.what());
  }
}

std::string
normalize_project(const std::string& name)
{
  std::string result;
  for (char c : name) {
    bool separator = c == '-' || c == '_' || c == '.';
    if (separator) {
      if (result.empty() || result.back() != '-') {
        result += '-';
      }
    } else {
      result += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return result;
}

std::optional<WheelName>
parse_wheel_name(const std::string& filename)
{
  if (!ends_with(filename, ".whl")) {
    return std::nullopt;
  }
  std::vector<std::string> parts = split(filename.substr(0, filename.size() - 4), '-');
  if (parts.size() != 5 && parts.size() != 6) {
    return std::nullopt;
  }
  size_t n = parts.size();
  return WheelName{normalize_project(parts[0]), parts[1], split(parts[n - 3], '.'), split(parts[n - 2], '.'),
                   split(parts[n - 1], '.')};
}

std::optional<int>
linux_x86_64_glibc(const std::string& platform)
{
  static const std::vector<std::pair<std::string, int>> legacy = {
    {"manylinux1_x86_64", 2005}, {"manylinux2010_x86_64", 2012}, {"manylinux2014_x86_64", 2017}};
  for (const auto& [tag, glibc] : legacy) {
    if (platform == tag) {
      return glibc;
    }
  }
  if (platform == "linux_x86_64") {
    return k_unstated_glibc;
  }
  const std::string prefix = "manylinux_";
  const std::string suffix = "_x86_64";
  if (!starts_with(platform, prefix) || !ends_with(platform, suffix)
      || platform.size() <= prefix.size() + suffix.size()) {
    return std::nullopt;
  }
  std::vector<std::string> numbers =
    split(platform.substr(prefix.size(), platform.size() - prefix.size() - suffix.size()), '_');
  auto number = [](const std::string& text) -> std::optional<int> {
    if (text.empty() || text.size() > 3 || !std::all_of(text.begin(), text.end(), is_ascii_digit)) {
      return std::nullopt;
    }
    return std::stoi(text);
  };
  if (numbers.size() != 2) {
    return std::nullopt;
  }
  std::optional<int> major = number(numbers[0]);
  std::optional<int> minor = number(numbers[1]);
  if (!major || !minor || *major != 2) {
    return std::nullopt;
  }
  return 1000 * *major + *minor;
}

std::string
WheelPlatform::glibc_text() const
{
  return glibc == k_unstated_glibc || glibc == 0 ? std::string() : fmt::format("{}.{}", glibc / 1000, glibc % 1000);
}

std::optional<WheelPlatform>
wheel_platform(const WheelName& name)
{
  std::optional<WheelPlatform> oldest;
  for (const std::string& tag : name.platforms) {
    std::optional<int> glibc = linux_x86_64_glibc(tag);
    if (glibc && (!oldest || *glibc < oldest->glibc)) {
      oldest = WheelPlatform{tag, *glibc};
    }
  }
  return oldest;
}

namespace {

// A CPython 3 tag's minor version ("cp310" is 10); nothing for another tag.
std::optional<int>
cpython3_minor(const std::string& tag)
{
  if (!starts_with(tag, "cp3") || tag.size() < 4 || tag.size() > 6
      || !std::all_of(tag.begin() + 3, tag.end(), is_ascii_digit)) {
    return std::nullopt;
  }
  return std::stoi(tag.substr(3));
}

// Whether an ABI tag is one a CPython build of the usual kind loads:
// cpXY(m), abi3 or none; not a free-threaded "cp313t".
bool
usual_abi(const std::string& abi)
{
  return abi == "abi3" || abi == "none" || (starts_with(abi, "cp") && !ends_with(abi, "t"));
}

} // namespace

std::optional<IndexFile>
pick_wheel(const std::vector<IndexFile>& files, const std::string& project, const std::string& version,
           const std::vector<std::string>& pythons)
{
  using Rank = std::tuple<bool, int, size_t, int>; // yanked, glibc, listed python's place, python minor
  auto rank = [&](const IndexFile& file) -> std::optional<Rank> {
    std::optional<WheelName> name = parse_wheel_name(file.filename);
    if (!name || name->project != normalize_project(project) || name->version != version
        || !std::any_of(name->abis.begin(), name->abis.end(), usual_abi)) {
      return std::nullopt;
    }
    std::optional<WheelPlatform> platform = wheel_platform(*name);
    if (!platform) {
      return std::nullopt;
    }
    std::optional<Rank> best;
    for (const std::string& python : name->pythons) {
      std::optional<int> minor = cpython3_minor(python);
      if (!minor) {
        continue;
      }
      auto listed = static_cast<size_t>(std::find(pythons.begin(), pythons.end(), python) - pythons.begin());
      Rank r{file.yanked, platform->glibc, listed, *minor};
      best = best ? std::min(*best, r) : r;
    }
    return best;
  };
  std::optional<IndexFile> best;
  Rank best_rank{};
  for (const IndexFile& file : files) {
    std::optional<Rank> r = rank(file);
    if (r && (!best || *r < best_rank)) {
      best = file;
      best_rank = *r;
    }
  }
  return best;
}

std::vector<std::string>
pip_platform_tags()
{
  std::vector<std::string> tags = {"manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64"};
  for (int minor = 17; minor <= 50; ++minor) { // PEP 600 is open-ended: glibc 2.50 is far past any release
    tags.push_back(fmt::format("manylinux_2_{}_x86_64", minor));
  }
  tags.emplace_back("linux_x86_64");
  return tags;
}

std::vector<project::Version>
listed_versions(const std::vector<IndexFile>& files, const std::string& project)
{
  std::vector<project::Version> versions;
  for (const IndexFile& file : files) {
    std::optional<WheelName> name = parse_wheel_name(file.filename);
    std::optional<project::Version> version = name ? project::parse_version(name->version) : std::nullopt;
    if (version && name->project == normalize_project(project)
        && std::find(versions.begin(), versions.end(), *version) == versions.end()) {
      versions.push_back(*version);
    }
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

bool
requirement_names(const project::Version& spec, const project::Version& version)
{
  if (!project::version_matches(spec, version)) {
    return false;
  }
  if (!spec.suffix.empty()) {
    return true; // version_matches compared the suffixes
  }
  // "2.10.1" is that release, as pip's ==2.10.1; "2.10" its releases and post-releases, as ==2.10.*.
  return spec.parts.size() >= version.parts.size() ? version.suffix.empty() : !version.prerelease();
}

std::vector<std::string>
nearest_versions(const std::vector<project::Version>& versions, const project::Version& spec, size_t count)
{
  std::vector<project::Version> shown;
  std::copy_if(versions.begin(), versions.end(), std::back_inserter(shown),
               [&](const project::Version& v) { return !v.prerelease() || !spec.suffix.empty(); });
  size_t first = 0;
  size_t end = shown.size();
  if (shown.size() > count) {
    auto where = static_cast<size_t>(std::lower_bound(shown.begin(), shown.end(), spec) - shown.begin());
    first = std::min(where - std::min(where, count / 2), shown.size() - count);
    end = first + count;
  }
  std::vector<std::string> text;
  if (first > 0) {
    text.emplace_back("...");
  }
  for (size_t i = first; i < end; ++i) {
    text.push_back(shown[i].str());
  }
  if (end < shown.size()) {
    text.emplace_back("...");
  }
  return text;
}

} // namespace opkit::sdk
