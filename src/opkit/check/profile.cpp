#include "opkit/check/profile.hpp"

#include "opkit/check/ld_cache.hpp"

#include "opkit/check/indexed_library.hpp"
#include "opkit/elf/symbol_index.hpp"
#include "opkit/project/version.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace opkit::check {

namespace stdfs = std::filesystem;

namespace {

// The system libraries every TF process has; a policy lists these too.
const std::vector<std::string> k_system_sonames = {
  "libc.so.6",  "libm.so.6",      "libpthread.so.0", "libdl.so.2",
  "librt.so.1", "libstdc++.so.6", "libgcc_s.so.1",   "ld-linux-x86-64.so.2",
};

// The first file named `soname` in the folders; empty when none has it.
stdfs::path
find_in(const std::string& soname, const std::vector<std::string>& dirs)
{
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (stdfs::exists(stdfs::path(dir) / soname, ec)) {
      return stdfs::path(dir) / soname;
    }
  }
  return {};
}

// Where this machine's system libraries are, in k_system_sonames' order.
std::vector<stdfs::path>
system_library_paths(const std::vector<std::string>& search_paths)
{
  std::vector<stdfs::path> paths;
  for (const std::string& soname : k_system_sonames) {
    stdfs::path found = find_in(soname, search_paths);
    if (!found.empty()) {
      paths.push_back(found);
    }
  }
  return paths;
}

bool
version_at_most(const std::string& number, const std::string& ceiling)
{
  std::optional<project::Version> have = project::parse_version(number);
  std::optional<project::Version> max = project::parse_version(ceiling);
  return have && max && have->suffix.empty() && !(*max < *have);
}

Json
library_json(const ProfileLibrary& library)
{
  Json symbols = Json::array();
  library.symbols.for_each([&symbols](std::string_view name, const elf::SymbolDefinition& definition) {
    symbols.push_back(Json::array({name, definition.version, definition.hidden}));
  });
  return {{"soname", library.soname},
          {"path", library.path},
          {"framework", library.framework},
          {"symbols_known", library.symbols_known},
          {"versions", library.versions},
          {"ceilings", library.ceilings},
          {"extra_versions", library.extra_versions},
          {"symbols", symbols}};
}

ProfileLibrary
library_from_json(const Json& json)
{
  ProfileLibrary library;
  library.soname = json.at("soname").get<std::string>();
  library.path = json.value("path", std::string());
  library.framework = json.value("framework", false);
  library.symbols_known = json.value("symbols_known", false);
  library.versions = json.value("versions", std::vector<std::string>());
  library.ceilings = json.value("ceilings", std::map<std::string, std::string>());
  library.extra_versions = json.value("extra_versions", std::vector<std::string>());
  std::vector<elf::ExportedSymbol> symbols;
  for (const Json& symbol : json.value("symbols", Json::array())) {
    symbols.push_back({symbol.at(0).get<std::string>(), symbol.at(1).get<std::string>(), symbol.at(2).get<bool>()});
  }
  library.symbols = std::move(symbols);
  return library;
}

} // namespace

ProfileCpu
cpu_from_cpuinfo(std::string_view text)
{
  ProfileCpu cpu;
  for (const std::string& line : split(std::string(text), '\n')) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    std::string key = trim(line.substr(0, colon));
    std::string value = trim(line.substr(colon + 1));
    if (key == "flags" && cpu.flags.empty()) {
      for (const std::string& flag : split(value, ' ')) {
        if (!flag.empty()) {
          cpu.flags.push_back(flag);
        }
      }
    } else if (key == "model name" && cpu.model.empty()) {
      cpu.model = value;
    }
  }
  return cpu;
}

ProfileCpu
host_cpu()
{
  // /proc files have no size to read up to: read to the end.
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return in ? cpu_from_cpuinfo(text.str()) : ProfileCpu{};
}

const ProfileLibrary*
Profile::find(const std::string& soname) const
{
  for (const ProfileLibrary& library : libraries) {
    if (library.soname == soname) {
      return &library;
    }
  }
  return nullptr;
}

std::string
newest_version(const std::vector<std::string>& versions, const std::string& family)
{
  std::string newest;
  std::optional<project::Version> newest_number;
  for (const std::string& version : versions) {
    if (!starts_with(version, family + "_")) {
      continue;
    }
    std::optional<project::Version> number = project::parse_version(version.substr(family.size() + 1));
    if (number && (!newest_number || *newest_number < *number)) {
      newest = version;
      newest_number = number;
    }
  }
  return newest;
}

std::optional<ProfileLibrary>
host_library(const std::string& soname)
{
  stdfs::path path = find_in(soname, host_search_paths());
  if (path.empty()) {
    return std::nullopt;
  }
  // Indexed under the path it was found at, links and all: the index's stamp
  // is the linked file's size and time, so a link moved to another file
  // (another release) makes it stale.
  return indexed_library(path, cache_place(path));
}

bool
provides_version(const ProfileLibrary& library, const std::string& version)
{
  if (version.empty() || version == library.soname) {
    return true;
  }
  if (std::find(library.versions.begin(), library.versions.end(), version) != library.versions.end()
      || std::find(library.extra_versions.begin(), library.extra_versions.end(), version)
           != library.extra_versions.end()) {
    return true;
  }
  size_t underscore = version.find('_');
  if (underscore == std::string::npos) {
    return false;
  }
  auto ceiling = library.ceilings.find(version.substr(0, underscore));
  return ceiling != library.ceilings.end() && version_at_most(version.substr(underscore + 1), ceiling->second);
}

ProfileLibrary
known_library(std::string soname, const stdfs::path& path, std::vector<std::string> versions,
              elf::ExportedSymbols symbols)
{
  ProfileLibrary library;
  library.soname = std::move(soname);
  library.path = path.string();
  library.framework = starts_with(library.soname, "libtensorflow_framework");
  library.symbols_known = true;
  library.versions = std::move(versions);
  library.symbols = std::move(symbols);
  return library;
}

ProfileLibrary
library_from_elf(const elf::ElfInfo& elf, const stdfs::path& path)
{
  elf::LibraryExports exports = elf::library_exports(elf, path);
  return known_library(std::move(exports.soname), path, std::move(exports.versions), std::move(exports.symbols));
}

Profile
profile_from_policy(const project::RuntimePolicy& policy)
{
  Profile profile;
  profile.name = policy.name;
  profile.description = policy.description;
  profile.search_paths = policy.search_paths;
  profile.cpu.baseline = policy.cpu;
  for (const project::PolicyLibrary& entry : policy.libraries) {
    ProfileLibrary library;
    library.soname = entry.soname;
    library.ceilings = entry.ceilings;
    library.extra_versions = entry.extra_versions;
    library.optional_package = entry.optional_package;
    if (stdfs::path host = find_in(entry.soname, host_search_paths()); !host.empty()) {
      library.symbols = host_symbols_on_first_use(host);
      library.symbols_up_to_ceilings = true;
    }
    profile.libraries.push_back(std::move(library));
  }
  return profile;
}

std::vector<std::string>
host_search_paths()
{
  return {"/lib/x86_64-linux-gnu",
          "/usr/lib/x86_64-linux-gnu",
          "/lib/aarch64-linux-gnu",
          "/usr/lib/aarch64-linux-gnu",
          "/lib64",
          "/usr/lib64",
          "/lib",
          "/usr/lib"};
}

namespace {

// `path` as seen from inside `root`, component by component: each symlink is
// resolved there (an absolute target under the root, never on this machine).
// The file on disk; empty when it is missing or the links loop.
stdfs::path
resolve_in_root(const stdfs::path& root, const stdfs::path& path)
{
  std::vector<stdfs::path> pending(path.begin(), path.end());
  std::reverse(pending.begin(), pending.end());
  stdfs::path inside = "/";
  int links = 0;
  while (!pending.empty()) {
    stdfs::path part = pending.back();
    pending.pop_back();
    if (part == "/" || part == "." || part.empty()) {
      continue;
    }
    if (part == "..") {
      inside = inside.parent_path();
      continue;
    }
    std::error_code ec;
    stdfs::path on_disk = root / (inside / part).relative_path();
    if (!stdfs::is_symlink(on_disk, ec)) {
      inside /= part;
      continue;
    }
    stdfs::path target = stdfs::read_symlink(on_disk, ec);
    if (ec || ++links > 40) {
      return {};
    }
    if (target.is_absolute()) {
      inside = "/";
    }
    std::vector<stdfs::path> parts(target.begin(), target.end());
    pending.insert(pending.end(), parts.rbegin(), parts.rend());
  }
  std::error_code ec;
  stdfs::path file = root / inside.relative_path();
  return stdfs::is_regular_file(file, ec) ? file : stdfs::path();
}

} // namespace

Profile
capture_profile(const std::vector<stdfs::path>& libraries, const std::string& name, const stdfs::path& root)
{
  Profile profile;
  profile.name = name;
  profile.search_paths = host_search_paths();
  // The libraries named first (the framework's), then the system's, less
  // those whose soname a named one has.
  auto add = [&profile](ProfileLibrary library, bool named) {
    bool known = std::any_of(profile.libraries.begin(), profile.libraries.end(),
                             [&](const ProfileLibrary& other) { return other.soname == library.soname; });
    if (named || !known) {
      profile.libraries.push_back(std::move(library));
    }
  };
  if (root.empty()) {
    for (const stdfs::path& path : libraries) {
      add(library_from_elf(elf::read_elf(stdfs::weakly_canonical(path)), path), true);
    }
    for (const stdfs::path& path : system_library_paths(profile.search_paths)) {
      add(library_from_elf(elf::read_elf(stdfs::weakly_canonical(path)), path), false);
    }
    profile.description = fmt::format("{} libraries captured", profile.libraries.size());
    profile.cpu = host_cpu(); // a root is files: its CPU is not this one
    return profile;
  }
  std::vector<std::pair<stdfs::path, bool>> wanted;
  for (const stdfs::path& path : libraries) {
    wanted.emplace_back(path, true);
  }
  for (const std::string& soname : k_system_sonames) {
    for (const std::string& dir : profile.search_paths) {
      if (!resolve_in_root(root, stdfs::path(dir) / soname).empty()) {
        wanted.emplace_back(stdfs::path(dir) / soname, false);
        break;
      }
    }
  }
  for (const auto& [path, named] : wanted) {
    stdfs::path inside = stdfs::path("/") / path.relative_path();
    stdfs::path file = resolve_in_root(root, inside);
    if (file.empty()) {
      fail(ExitCode::usage, "{}: no such library in the root {}", inside, root);
    }
    add(library_from_elf(elf::read_elf(file), inside), named);
  }
  bool has_libc = std::any_of(profile.libraries.begin(), profile.libraries.end(),
                              [](const ProfileLibrary& library) { return library.soname == "libc.so.6"; });
  if (!has_libc) {
    fail(ExitCode::usage, "{}: not a system root: no libc.so.6 in {}", root, join(profile.search_paths, ", "));
  }
  profile.description = fmt::format("{} libraries captured from {}", profile.libraries.size(), root.string());
  return profile;
}

Profile
host_profile()
{
  Profile profile;
  profile.name = "host";
  profile.description = "this machine's system libraries";
  profile.search_paths = host_search_paths();
  profile.search_disk = true;
  try {
    fs::MappedFile cache("/etc/ld.so.cache");
    profile.ld_cache = read_ld_cache(cache.bytes());
  } catch (const Error&) {
    // No cache (a minimal container): the loader uses the default folders only.
  }
  profile.ld_conf_dirs = read_ld_conf("/etc/ld.so.conf");
  profile.cpu = host_cpu();
  for (const stdfs::path& path : system_library_paths(profile.search_paths)) {
    stdfs::path real = stdfs::weakly_canonical(path);
    ProfileLibrary library = indexed_library(real, cache_place(real));
    library.path = path.string();
    profile.libraries.push_back(std::move(library));
  }
  return profile;
}

Json
to_json(const Profile& profile)
{
  Json libraries = Json::array();
  for (const ProfileLibrary& library : profile.libraries) {
    libraries.push_back(library_json(library));
  }
  Json json = {{"schema", "opkit.profile/1"},
               {"name", profile.name},
               {"description", profile.description},
               {"search_paths", profile.search_paths},
               {"libraries", libraries}};
  if (profile.cpu.known()) {
    json["cpu"] = {{"baseline", profile.cpu.baseline}, {"model", profile.cpu.model}, {"flags", profile.cpu.flags}};
  }
  return json;
}

Profile
profile_from_json(const Json& json, const std::string& name)
{
  try {
    if (json.value("schema", std::string()) != "opkit.profile/1") {
      fail(ExitCode::usage, "{}: not an opkit profile (expected \"schema\": \"opkit.profile/1\")", name);
    }
    Profile profile;
    profile.name = json.at("name").get<std::string>();
    profile.description = json.value("description", std::string());
    profile.search_paths = json.value("search_paths", std::vector<std::string>());
    for (const Json& library : json.at("libraries")) {
      profile.libraries.push_back(library_from_json(library));
    }
    if (json.contains("cpu")) {
      const Json& cpu = json.at("cpu");
      profile.cpu.baseline = cpu.value("baseline", std::string());
      profile.cpu.model = cpu.value("model", std::string());
      profile.cpu.flags = cpu.value("flags", std::vector<std::string>());
    }
    return profile;
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}: malformed profile: {}", name, e.what());
  }
}

Profile
load_profile_file(const stdfs::path& path)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(path, ec)) {
    fail(ExitCode::usage, "{}: no such profile file", path);
  }
  Json json;
  try {
    json = Json::parse(fs::read_file(path));
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}: invalid JSON: {}", path, e.what());
  }
  return profile_from_json(json, path.string());
}

} // namespace opkit::check
