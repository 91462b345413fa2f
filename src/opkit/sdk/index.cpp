#include "opkit/sdk/index.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/html.hpp"
#include "opkit/util/http_url.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

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

std::optional<IndexFile>
pick_wheel(const std::vector<IndexFile>& files, const std::string& project, const std::string& version,
           const std::vector<std::string>& pythons, const std::vector<std::string>& platforms)
{
  auto rank = [&](const IndexFile& file) -> std::optional<size_t> {
    std::optional<WheelName> name = parse_wheel_name(file.filename);
    if (!name || name->project != normalize_project(project) || name->version != version) {
      return std::nullopt;
    }
    for (size_t p = 0; p < pythons.size(); ++p) {
      for (size_t q = 0; q < platforms.size(); ++q) {
        bool python = std::find(name->pythons.begin(), name->pythons.end(), pythons[p]) != name->pythons.end();
        bool platform =
          std::find(name->platforms.begin(), name->platforms.end(), platforms[q]) != name->platforms.end();
        if (python && platform) {
          return (file.yanked ? 1000000 : 0) + p * platforms.size() + q;
        }
      }
    }
    return std::nullopt;
  };
  std::optional<IndexFile> best;
  size_t best_rank = 0;
  for (const IndexFile& file : files) {
    std::optional<size_t> r = rank(file);
    if (r && (!best || *r < best_rank)) {
      best = file;
      best_rank = *r;
    }
  }
  return best;
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
