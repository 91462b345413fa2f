#include "opkit/check/provenance.hpp"

#include "opkit/sdk/facts.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <system_error>

namespace stdfs = std::filesystem;

namespace opkit::check {

namespace {

constexpr size_t max_version_length = 24;     // "2.10.1" and room for more parts
constexpr size_t max_requirement_length = 80; // ">=1.15,<2" and the like
constexpr uintmax_t max_metadata_bytes = 1 << 20;
constexpr uintmax_t max_record_bytes = 16 << 20;
constexpr int max_parent_levels = 8;         // site-packages/pkg/ops/1.12/lib.so is 4
constexpr int max_entries_per_folder = 4096; // a site-packages folder, read for *.dist-info

char
lower(char c)
{
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// The TF version at text[i], "M.m" or "M.m.p" with M 1 or 2, not followed by
// more of a number; nothing otherwise.
std::optional<std::string>
version_at(std::string_view text, size_t i)
{
  size_t start = i, parts = 0;
  while (i < text.size()) {
    size_t digits = i;
    while (i < text.size() && is_ascii_digit(text[i])) {
      ++i;
    }
    if (i == digits || i - start > max_version_length) {
      return std::nullopt;
    }
    ++parts;
    if (parts < 3 && i + 1 < text.size() && text[i] == '.' && is_ascii_digit(text[i + 1])) {
      ++i;
      continue;
    }
    break;
  }
  bool ends = i == text.size()
              || !(is_ascii_digit(text[i]) || (text[i] == '.' && i + 1 < text.size() && is_ascii_digit(text[i + 1])));
  if (parts < 2 || !ends || (text[start] != '1' && text[start] != '2') || text[start + 1] != '.') {
    return std::nullopt;
  }
  return std::string(text.substr(start, i - start));
}

// "tf" or "tensorflow" at text[i], not inside a longer word, then an optional
// '-' or '_', then a version.
std::optional<std::string>
tagged_version_at(std::string_view text, size_t i)
{
  if (i > 0 && std::isalpha(static_cast<unsigned char>(text[i - 1]))) {
    return std::nullopt;
  }
  for (std::string_view tag : {std::string_view("tensorflow"), std::string_view("tf")}) {
    if (text.size() - i < tag.size()) {
      continue;
    }
    bool same = true;
    for (size_t k = 0; k < tag.size(); ++k) {
      same = same && lower(text[i + k]) == tag[k];
    }
    if (!same) {
      continue;
    }
    size_t at = i + tag.size();
    if (at < text.size() && (text[at] == '-' || text[at] == '_')) {
      ++at;
    }
    if (at < text.size()) {
      return version_at(text, at);
    }
  }
  return std::nullopt;
}

std::string
version_in_part(std::string_view part)
{
  if (std::optional<std::string> whole = version_at(part, 0); whole && whole->size() == part.size()) {
    return *whole;
  }
  for (size_t i = 0; i < part.size(); ++i) {
    if (std::optional<std::string> found = tagged_version_at(part, i)) {
      return *found;
    }
  }
  return {};
}

// The file's text when it is a regular file of at most `limit` bytes.
std::optional<std::string>
read_small_file(const stdfs::path& path, uintmax_t limit)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(path, ec) || stdfs::file_size(path, ec) > limit || ec) {
    return std::nullopt;
  }
  try {
    return fs::read_file(path);
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool
record_lists(std::string_view record, const std::string& relative)
{
  for (size_t at = 0; at < record.size();) {
    size_t end = std::min(record.find('\n', at), record.size());
    std::string_view line = record.substr(at, end - at);
    if (line.size() > relative.size() && line.substr(0, relative.size()) == relative && line[relative.size()] == ',') {
      return true;
    }
    at = end + 1;
  }
  return false;
}

// The clue of the installed wheel whose RECORD lists the library.
void
add_wheel_clue(const stdfs::path& library, Provenance& provenance)
{
  std::error_code ec;
  stdfs::path file = stdfs::absolute(library, ec).lexically_normal();
  if (ec) {
    return;
  }
  stdfs::path folder = file.parent_path();
  for (int level = 0; level < max_parent_levels && folder.has_relative_path(); ++level, folder = folder.parent_path()) {
    stdfs::directory_iterator it(folder, ec), end;
    for (int seen = 0; !ec && it != end && seen < max_entries_per_folder; it.increment(ec), ++seen) {
      const stdfs::path& info = it->path();
      if (!ends_with(info.filename().native(), ".dist-info")) {
        continue;
      }
      std::optional<std::string> record = read_small_file(info / "RECORD", max_record_bytes);
      if (!record || !record_lists(*record, file.lexically_relative(folder).generic_string())) {
        continue;
      }
      std::optional<std::string> metadata = read_small_file(info / "METADATA", max_metadata_bytes);
      if (!metadata) {
        return;
      }
      std::string wheel;
      try {
        sdk::WheelMetadata named = sdk::parse_metadata(*metadata);
        wheel = trim(named.name + " " + named.version);
      } catch (const Error&) {
        wheel = "(unnamed)";
      }
      std::string requirement = tensorflow_requirement(*metadata);
      if (requirement.empty()) {
        provenance.evidence.push_back(fmt::format("its wheel {} names no TensorFlow requirement", wheel));
        return;
      }
      provenance.evidence.push_back(fmt::format("its wheel {} requires tensorflow{}", wheel, requirement));
      if (starts_with(requirement, "==")) {
        std::string pinned = requirement.substr(2);
        if (std::optional<std::string> exact = version_at(pinned, 0); exact && *exact == pinned) {
          provenance.version = pinned;
        }
      }
      return;
    }
  }
}

} // namespace

std::string
version_named_by_path(const stdfs::path& library)
{
  std::vector<std::string> parts;
  for (const stdfs::path& part : library.lexically_normal()) {
    parts.push_back(part.native());
  }
  if (parts.empty()) {
    return {};
  }
  std::string& name = parts.back();
  if (size_t so = name.find(".so"); so != std::string::npos) {
    name.resize(so);
  }
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (std::string version = version_in_part(*part); !version.empty()) {
      return version;
    }
  }
  return {};
}

std::string
tensorflow_requirement(std::string_view metadata)
{
  constexpr std::string_view key = "requires-dist:";
  for (size_t at = 0; at < metadata.size();) {
    size_t end = std::min(metadata.find('\n', at), metadata.size());
    std::string_view line = metadata.substr(at, end - at);
    at = end + 1;
    if (trim(line).empty()) {
      break; // the headers end; the description follows
    }
    if (line.size() <= key.size()
        || !std::equal(key.begin(), key.end(), line.begin(), [](char k, char c) { return k == lower(c); })) {
      continue;
    }
    std::string_view rest = line.substr(key.size());
    size_t i = 0;
    while (i < rest.size() && rest[i] == ' ') {
      ++i;
    }
    std::string name;
    while (
      i < rest.size()
      && (std::isalnum(static_cast<unsigned char>(rest[i])) || rest[i] == '-' || rest[i] == '_' || rest[i] == '.')) {
      name += rest[i] == '_' || rest[i] == '.' ? '-' : lower(rest[i]);
      ++i;
    }
    if (name != "tensorflow" && name != "tensorflow-cpu" && name != "tensorflow-gpu") {
      continue;
    }
    std::string spec;
    for (; i < rest.size() && rest[i] != ';'; ++i) {
      char c = rest[i];
      if (c == '=' || c == '<' || c == '>' || c == '!' || c == '~' || c == ',' || c == '.' || c == '*'
          || std::isalnum(static_cast<unsigned char>(c))) {
        spec += c;
      }
      if (spec.size() > max_requirement_length) {
        return {};
      }
    }
    return spec;
  }
  return {};
}

Provenance
read_provenance(const stdfs::path& library, const std::string& framework_needed, const std::string& framework_range)
{
  Provenance provenance;
  add_wheel_clue(library, provenance);
  if (std::string named = version_named_by_path(library); !named.empty()) {
    provenance.evidence.push_back(fmt::format("its path names TF {}", named));
    if (provenance.version.empty()) {
      provenance.version = named;
    }
  }
  if (!framework_needed.empty()) {
    provenance.evidence.push_back(framework_range.empty() ? fmt::format("it needs {}", framework_needed)
                                                          : fmt::format("it needs {}, the framework library of TF {}",
                                                                        framework_needed, framework_range));
  }
  return provenance;
}

} // namespace opkit::check
