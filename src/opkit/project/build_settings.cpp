#include "opkit/project/build_settings.hpp"

#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::project {

namespace {

const std::vector<std::string> k_header_suffixes = {".h",   ".hh",  ".hpp", ".hxx", ".h++",
                                                    ".cuh", ".inc", ".inl", ".tcc"};

bool
holds(const VersionRange::Bound& bound, const Version& version)
{
  if (bound.op == "<") {
    return version < bound.version;
  }
  if (bound.op == "<=") {
    return !(bound.version < version);
  }
  if (bound.op == ">") {
    return bound.version < version;
  }
  if (bound.op == ">=") {
    return !(version < bound.version);
  }
  // ==: the bound names the version as `--tf` would ("2.10" is every 2.10.x).
  return version_matches(bound.version, version);
}

bool
applies(const BuildCondition& when, const Version& version, bool gpu)
{
  if (!when.device.empty() && when.device != (gpu ? "gpu" : "cpu")) {
    return false;
  }
  return when.versions.contains(version);
}

void
append(std::vector<std::string>& to, const std::vector<std::string>& more)
{
  for (const std::string& item : more) {
    if (std::find(to.begin(), to.end(), item) == to.end()) {
      to.push_back(item);
    }
  }
}

} // namespace

bool
VersionRange::contains(const Version& version) const
{
  return std::all_of(bounds.begin(), bounds.end(), [&](const Bound& b) { return holds(b, version); });
}

std::optional<VersionRange>
parse_version_range(const std::string& text)
{
  VersionRange range;
  range.text = trim(text);
  if (range.text.empty()) {
    return range;
  }
  for (const std::string& raw : split(range.text, ',')) {
    std::string part = trim(raw);
    std::string op;
    for (const char* candidate : {"<=", ">=", "==", "<", ">"}) {
      if (starts_with(part, candidate)) {
        op = candidate;
        break;
      }
    }
    if (op.empty()) {
      return std::nullopt;
    }
    std::optional<Version> version = parse_version(trim(part.substr(op.size())));
    if (!version || !version->suffix.empty()) {
      return std::nullopt;
    }
    range.bounds.push_back({op, *version});
  }
  return range;
}

bool
is_header(const std::string& path)
{
  return std::any_of(k_header_suffixes.begin(), k_header_suffixes.end(),
                     [&](const std::string& suffix) { return ends_with(path, suffix); });
}

ResolvedSettings
resolve_settings(const std::filesystem::path& root, const std::vector<SettingsBlock>& project,
                 const std::vector<SettingsBlock>& library, const Version& version, bool gpu)
{
  ResolvedSettings result;
  std::vector<std::string> includes;
  for (const std::vector<SettingsBlock>* blocks : {&project, &library}) {
    for (const SettingsBlock& block : *blocks) {
      if (!applies(block.when, version, gpu)) {
        continue;
      }
      for (const std::string& source : block.sources) {
        append(is_header(source) ? result.headers : result.sources, {source});
      }
      append(includes, block.include_dirs);
      append(result.defines, block.defines);
      result.cflags.insert(result.cflags.end(), block.cflags.begin(), block.cflags.end());
      result.ldflags.insert(result.ldflags.end(), block.ldflags.begin(), block.ldflags.end());
      append(result.libs, block.libs);
      append(result.compat, block.compat);
    }
  }
  for (const std::string& dir : includes) {
    std::filesystem::path path = (root / dir).lexically_normal();
    result.include_dirs.push_back(path.filename().empty() ? path.parent_path() : path);
  }
  return result;
}

} // namespace opkit::project
