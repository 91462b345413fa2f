#include "opkit/package/package.hpp"
#include "opkit/project/framework_table.hpp"

#include "opkit/builder/builder.hpp"
#include "opkit/elf/elf_file.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

const int64_t k_zip_epoch = 315532800; // 1980-01-01T00:00:00Z

std::string
member_sha256(const ArchiveMember& member)
{
  return member.source.empty() ? sha256_hex(member.content) : sha256_hex_file(member.source);
}

int64_t
member_size(const ArchiveMember& member)
{
  return member.source.empty() ? static_cast<int64_t>(member.content.size())
                               : static_cast<int64_t>(stdfs::file_size(member.source));
}

// path -> (size, sha256) of everything in a package, the manifest aside.
using Listing = std::map<std::string, std::pair<int64_t, std::string>>;

// How much of an untrusted member path an error line shows.
constexpr size_t k_max_shown_path = 200;

// The manifest's own size limit: it lists files, it does not hold them.
constexpr size_t k_max_manifest = size_t{16} << 20;

// Where a package's one manifest sits: at the top, or (a wheel) in its dist-info folder.
bool
is_manifest_place(const std::string& path)
{
  if (path == k_manifest_name) {
    return true;
  }
  size_t slash = path.find('/');
  return slash != std::string::npos && path.compare(slash + 1, std::string::npos, k_manifest_name) == 0
         && ends_with(path.substr(0, slash), ".dist-info");
}

// Whether a member's path keeps what it names inside the folder the package
// is unpacked in: relative, and no ".." above its top ("./" itself is fine).
bool
member_stays_inside(const std::string& path)
{
  return fs::stays_inside(stdfs::path(path) / "x");
}

// A member no package opkit writes holds, and that an extraction would turn
// against the machine: a path out of the folder, a link, a device.
void
refuse_hostile_member(const stdfs::path& package, const ArchiveEntry& entry)
{
  if (!member_stays_inside(entry.path)) {
    fail(ExitCode::usage, "{}: member '{}': a path out of the folder it is unpacked in; refusing a hostile archive",
         package, escape_clipped(entry.path, k_max_shown_path));
  }
  if (!entry.is_regular && !entry.is_folder) {
    fail(ExitCode::usage,
         "{}: member '{}': a link or a device, which no opkit package holds; refusing a hostile archive", package,
         escape_clipped(entry.path, k_max_shown_path));
  }
}

Listing
list_archive(const stdfs::path& package, std::string& manifest_text)
{
  Listing listing;
  bool have_manifest = false;
  for_each_archive_entry(package, [&](ArchiveEntry& entry) {
    refuse_hostile_member(package, entry);
    if (!entry.is_regular) {
      return;
    }
    if (listing.count(entry.path) != 0 || (have_manifest && is_manifest_place(entry.path))) {
      fail(ExitCode::usage, "{}: {} appears twice in the package", package,
           escape_clipped(entry.path, k_max_shown_path));
    }
    char buffer[1 << 16];
    if (is_manifest_place(entry.path)) {
      have_manifest = true;
      for (size_t n = 0; (n = entry.read(buffer, sizeof buffer)) > 0;) {
        if (manifest_text.size() + n > k_max_manifest) {
          fail(ExitCode::usage, "{}: {}: larger than a manifest can be ({} MiB)", package, escape_text(entry.path),
               k_max_manifest >> 20);
        }
        manifest_text.append(buffer, n);
      }
      return;
    }
    // Hashed as it streams: an entry of any size costs no memory.
    Sha256Hasher hasher;
    int64_t size = 0;
    for (size_t n = 0; (n = entry.read(buffer, sizeof buffer)) > 0;) {
      hasher.update(buffer, n);
      size += static_cast<int64_t>(n);
    }
    listing[entry.path] = {size, to_hex(hasher.finish())};
  });
  return listing;
}

// One manifest entry, its types checked: Error(usage) naming the entry otherwise.
std::pair<std::string, std::pair<int64_t, std::string>>
manifest_file(const Json& file, size_t index, const std::string& where)
{
  auto wrong = [&](const char* what) { fail(ExitCode::usage, "{}: files[{}]: {}", where, index, what); };
  if (!file.is_object()) {
    wrong("not an object with path, size and sha256");
  }
  if (!file.contains("path") || !file["path"].is_string() || file["path"].get<std::string>().empty()) {
    wrong("path is not a non-empty string");
  }
  if (!member_stays_inside(file["path"].get<std::string>())) {
    fail(ExitCode::usage, "{}: files[{}]: path '{}' leaves the package's folder; refusing a hostile manifest", where,
         index, escape_clipped(file["path"].get<std::string>(), k_max_shown_path));
  }
  if (!file.contains("size") || !file["size"].is_number_integer()) {
    wrong("size is not an integer");
  }
  if (!file.contains("sha256") || !file["sha256"].is_string()) {
    wrong("sha256 is not a string");
  }
  return {file["path"].get<std::string>(), {file["size"].get<int64_t>(), file["sha256"].get<std::string>()}};
}

Listing
list_folder(const stdfs::path& folder, std::string& manifest_text)
{
  Listing listing;
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(folder, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string relative = it->path().lexically_relative(folder).generic_string();
    std::error_code type_ec;
    if (it->is_symlink(type_ec) || (!it->is_regular_file(type_ec) && !it->is_directory(type_ec))) {
      // As a tar.gz with such a member is refused: a package holds files, and
      // a link would make verify hash whatever it points at.
      fail(ExitCode::usage, "{}: member '{}': a link or a device, which no opkit package holds; refusing it", folder,
           escape_clipped(relative, k_max_shown_path));
    }
    if (!it->is_regular_file(type_ec)) {
      continue;
    }
    if (relative == k_manifest_name) {
      manifest_text = fs::read_file(it->path());
    } else {
      listing[relative] = {static_cast<int64_t>(it->file_size()), sha256_hex_file(it->path())};
    }
  }
  return listing;
}

// The record opkit build wrote beside `library`, once the library is known to
// be what that build made: a complete shared object whose sha256 is the
// recorded one. A library cut short by a killed build, or changed since, is
// never packed.
Json
read_build_record(const stdfs::path& info, const stdfs::path& library)
{
  const std::string rerun = "rerun `opkit build`";
  Json record = Json::parse(fs::read_file(info), nullptr, false);
  if (!record.is_object() || !record.contains("libraries") || !record["libraries"].is_array()) {
    throw Error(ExitCode::usage, fmt::format("{}: not a record opkit build wrote (damaged?)", info), rerun);
  }
  const Json* entry = nullptr;
  for (const Json& item : record["libraries"]) {
    if (item.is_object() && item.value("file", "") == library.filename().string()) {
      entry = &item;
    }
  }
  if (entry == nullptr) {
    throw Error(ExitCode::usage, fmt::format("{}: {} does not list {}", library, info, library.filename()), rerun);
  }
  try {
    elf::read_elf(library, elf::SymbolScope::undefined);
  } catch (const Error& e) {
    throw Error(ExitCode::usage, fmt::format("{}: not a complete library ({})", library, e.what()), rerun);
  }
  std::string recorded =
    entry->contains("sha256") && (*entry)["sha256"].is_string() ? (*entry)["sha256"].get<std::string>() : "";
  if (!recorded.empty() && recorded != sha256_hex_file(library)) {
    throw Error(ExitCode::usage,
                fmt::format("{}: differs from the library {} records (changed since the build?)", library, info),
                rerun);
  }
  return record;
}

} // namespace

std::vector<BuiltLibrary>
collect_built(const project::Manifest& manifest, const std::vector<std::string>& specs, const stdfs::path& build_root)
{
  std::vector<std::string> wanted = specs.empty() ? manifest.target_versions : specs;
  if (wanted.empty()) {
    const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
    fail(ExitCode::usage, "no {} versions to package: pass --{} or list them under targets.{}", table.display_name(),
         table.short_name(), manifest.framework);
  }
  std::vector<BuiltLibrary> built;
  for (const builder::BuiltTarget& target : builder::find_built_libraries(manifest, wanted, build_root)) {
    if (target.nothing_built()) {
      log_info("{}", target.skip_line("package"));
    }
    for (const auto& [spec, path] : target.libraries) {
      stdfs::path info = path.parent_path() / "opkit-build.json";
      std::error_code ec;
      if (!stdfs::is_regular_file(info, ec)) {
        throw Error(ExitCode::missing, fmt::format("{}: not built for {}", path, target.sdk.id),
                    fmt::format("run `opkit build --{} {}` first",
                                project::FrameworkTable::get(manifest.framework).short_name(), target.spec));
      }
      BuiltLibrary library{target.sdk, spec->name, path, read_build_record(info, path), target.python_of(path)};
      library.facts["library"] = path.filename().string();
      built.push_back(library);
    }
  }
  return built;
}

int64_t
source_date_epoch(const stdfs::path& project_root)
{
  if (const char* env = std::getenv("SOURCE_DATE_EPOCH"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(env, &end, 10);
    // The latest time a zip member can carry (DOS time, 2107-12-31); tar holds more.
    const long long k_latest = 4354819198LL;
    if (*end != '\0' || value < 0 || value > k_latest || errno == ERANGE) {
      fail(ExitCode::usage,
           "SOURCE_DATE_EPOCH='{}': not a number of seconds between 0 and {} (2107-12-31, the last a zip can hold)",
           escape_text(env), k_latest);
    }
    return std::max<int64_t>(value, k_zip_epoch);
  }
  if (!find_program("git").empty()) {
    ProcessResult git = run_process({"git", "-C", project_root.string(), "log", "-1", "--format=%ct"});
    std::string text = trim(git.out);
    if (git.exit_code == 0 && !text.empty()) {
      return std::max<int64_t>(std::stoll(text), k_zip_epoch);
    }
  }
  return k_zip_epoch;
}

Json
make_manifest(const std::string& kind, const std::string& name, const std::vector<ArchiveMember>& members,
              const std::vector<std::pair<std::string, Json>>& libraries)
{
  std::vector<ArchiveMember> sorted = members;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  Json files = Json::array();
  for (const ArchiveMember& member : sorted) {
    files.push_back({{"path", member.path}, {"size", member_size(member)}, {"sha256", member_sha256(member)}});
  }
  Json libs = Json::array();
  for (const auto& [path, facts] : libraries) {
    libs.push_back({{"path", path},
                    {"tf_version", facts.value("tf_version", "")},
                    {"cxx11_abi", facts.value("cxx11_abi", -1)},
                    {"cxx_standard", facts.value("cxx_standard", 0)},
                    {"compiler", facts.value("compiler", "")},
                    {"opkit_version", facts.value("opkit_version", "")}});
  }
  return {{"schema", "opkit.manifest/1"},   {"kind", kind},   {"name", name},
          {"opkit_version", OPKIT_VERSION}, {"files", files}, {"libraries", libs}};
}

std::vector<PackedFile>
packed_files(const std::vector<ArchiveMember>& members)
{
  std::vector<PackedFile> files;
  files.reserve(members.size());
  for (const ArchiveMember& member : members) {
    files.push_back({member.path, member_size(member), member_sha256(member)});
  }
  return files;
}

std::vector<PackedFile>
folder_files(const stdfs::path& folder)
{
  std::string ignored;
  Listing listing = list_folder(folder, ignored);
  std::vector<PackedFile> files;
  for (const auto& [path, info] : listing) {
    files.push_back({path, info.first, info.second});
  }
  if (!ignored.empty()) {
    files.push_back({k_manifest_name, static_cast<int64_t>(ignored.size()), sha256_hex(ignored)});
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  }
  return files;
}

std::vector<std::string>
verify_package(const stdfs::path& package)
{
  bool folder = fs::require_input(package, "package") == fs::InputKind::folder;
  std::string manifest_text;
  Listing actual = folder ? list_folder(package, manifest_text) : list_archive(package, manifest_text);
  if (manifest_text.empty()) {
    fail(ExitCode::usage, "{}: carries no {}", package, k_manifest_name);
  }
  std::string where = fmt::format("{}: {}", package, k_manifest_name);
  Json manifest = Json::parse(manifest_text, nullptr, false);
  if (manifest.is_discarded()) {
    fail(ExitCode::usage, "{}: not JSON", where);
  }
  if (!manifest.is_object() || !manifest.contains("files") || !manifest["files"].is_array()) {
    fail(ExitCode::usage, "{}: not an opkit manifest (an object whose files is a list)", where);
  }
  std::vector<std::string> problems;
  size_t index = 0;
  std::set<std::string> listed;
  for (const Json& file : manifest["files"]) {
    auto [path, want] = manifest_file(file, index++, where);
    if (!listed.insert(path).second) {
      fail(ExitCode::usage, "{}: {} is listed twice", where, escape_clipped(path, k_max_shown_path));
    }
    auto found = actual.find(path);
    if (found == actual.end()) {
      problems.push_back(fmt::format("{}: listed in the manifest, missing from the package", escape_text(path)));
      continue;
    }
    if (found->second != want) {
      problems.push_back(fmt::format("{}: sha256 or size differs from the manifest", escape_text(path)));
    }
    actual.erase(found);
  }
  for (const auto& [path, info] : actual) {
    // A wheel's RECORD hashes the manifest, so the manifest cannot hash it back.
    if (ends_with(path, ".dist-info/RECORD")) {
      continue;
    }
    problems.push_back(fmt::format("{}: in the package but not in the manifest", escape_text(path)));
  }
  return problems;
}

stdfs::path
output_folder(const project::Manifest& manifest, const stdfs::path& given, const std::string& sub)
{
  if (!given.empty()) {
    return given; // the user's own choice
  }
  stdfs::path path = manifest.root;
  for (const std::string& part : {std::string("dist"), sub}) {
    if (part.empty()) {
      continue;
    }
    path /= part;
    std::error_code ec;
    if (stdfs::is_symlink(path, ec)) {
      fs::refuse_link(path, "packages", "remove it, or give -o a folder of your own");
    }
  }
  return path;
}

} // namespace opkit::package
