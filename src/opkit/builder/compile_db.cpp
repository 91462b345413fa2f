#include "opkit/builder/compile_db.hpp"

#include "opkit/project/version.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace opkit::builder {

namespace stdfs = std::filesystem;

std::string
merge_compile_commands(const std::vector<std::string>& texts)
{
  Json merged = Json::array();
  std::set<std::string> files;
  for (const std::string& text : texts) {
    Json entries = Json::parse(text, nullptr, false);
    if (!entries.is_array()) {
      continue;
    }
    for (const Json& entry : entries) {
      if (entry.is_object() && entry.contains("file") && entry["file"].is_string()
          && files.insert(entry["file"].get<std::string>()).second) {
        merged.push_back(entry);
      }
    }
  }
  return json_text(merged, 2) + "\n";
}

stdfs::path
write_root_compile_commands(const stdfs::path& build_root)
{
  // (version, CUDA build, text): the newest version first, its CUDA build (device sources too) before its CPU one.
  std::vector<std::tuple<project::Version, bool, std::string>> found;
  std::error_code ec;
  for (const stdfs::directory_entry& entry : stdfs::directory_iterator(build_root, ec)) {
    std::string name = entry.path().filename().string();
    stdfs::path commands = entry.path() / "compile_commands.json";
    if (!starts_with(name, "tf-") || !stdfs::is_regular_file(commands, ec)) {
      continue;
    }
    bool cuda = ends_with(name, "-cuda");
    std::string version = name.substr(3, name.size() - 3 - (cuda ? 5 : 0));
    if (std::optional<project::Version> parsed = project::parse_version(version)) {
      found.emplace_back(*parsed, cuda, fs::read_file(commands));
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(b), std::get<1>(b)) < std::tie(std::get<0>(a), std::get<1>(a));
  });
  std::vector<std::string> texts;
  texts.reserve(found.size());
  for (const auto& item : found) {
    texts.push_back(std::get<2>(item));
  }
  stdfs::path path = build_root / "compile_commands.json";
  fs::write_file_if_changed(path, merge_compile_commands(texts));
  return path;
}

} // namespace opkit::builder
