#include "opkit/sdk/index.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace opkit::sdk {

namespace {

std::string
html_unescape(std::string text)
{
  const std::pair<const char*, const char*> entities[] = {
    {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
  for (const auto& [from, to] : entities) {
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + 1)) {
      text.replace(pos, std::string_view(from).size(), to);
    }
  }
  return text;
}

IndexFile
file_from_href(const std::string& href, const std::string& text, const std::string& page_url)
{
  IndexFile file;
  std::string url = html_unescape(href);
  size_t hash = url.find('#');
  if (hash != std::string::npos) {
    std::string fragment = url.substr(hash + 1);
    if (starts_with(fragment, "sha256=")) {
      file.sha256 = fragment.substr(7);
    }
    url = url.substr(0, hash);
  }
  file.url = resolve_url(page_url, url);
  file.filename = trim(html_unescape(text));
  if (file.filename.empty()) {
    file.filename = split(url, '/').back();
  }
  return file;
}

} // namespace

std::string
resolve_url(const std::string& base, const std::string& href)
{
  static const std::regex k_absolute("^[A-Za-z][A-Za-z0-9+.-]*://");
  if (std::regex_search(href, k_absolute)) {
    return href;
  }
  size_t scheme = base.find("://");
  size_t host_end = base.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  std::string origin = host_end == std::string::npos ? base : base.substr(0, host_end);
  if (starts_with(href, "/")) {
    return origin + href;
  }
  std::string path = host_end == std::string::npos ? "/" : base.substr(host_end);
  path = path.substr(0, path.rfind('/') + 1) + href;
  // Apply "." and ".." as a browser would.
  std::vector<std::string> parts;
  for (const std::string& part : split(path, '/')) {
    if (part == "..") {
      if (!parts.empty()) {
        parts.pop_back();
      }
    } else if (part != "." && !part.empty()) {
      parts.push_back(part);
    }
  }
  return origin + "/" + join(parts, "/") + (ends_with(path, "/") ? "/" : "");
}

std::vector<IndexFile>
parse_simple_html(const std::string& html, const std::string& page_url)
{
  static const std::regex k_anchor(R"re(<a\s[^>]*href\s*=\s*"([^"]*)"[^>]*>([^<]*)</a>)re", std::regex::icase);
  std::vector<IndexFile> files;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), k_anchor); it != std::sregex_iterator(); ++it) {
    IndexFile file = file_from_href((*it)[1].str(), (*it)[2].str(), page_url);
    file.yanked = (*it)[0].str().find("data-yanked") != std::string::npos;
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
      file.url = resolve_url(page_url, entry.at("url").get<std::string>());
      file.sha256 = entry.value("hashes", Json::object()).value("sha256", "");
      Json yanked = entry.value("yanked", Json(false));
      file.yanked = yanked.is_string() || (yanked.is_boolean() && yanked.get<bool>());
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

} // namespace opkit::sdk
