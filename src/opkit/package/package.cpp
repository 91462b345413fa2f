#include "opkit/package/package.hpp"

#include "opkit/build/builder.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

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

Listing
list_archive(const stdfs::path& package, std::string& manifest_text)
{
  Listing listing;
  for_each_archive_entry(package, [&](ArchiveEntry& entry) {
    if (!entry.is_regular) {
      return;
    }
    std::string content;
    char buffer[1 << 16];
    for (size_t n = 0; (n = entry.read(buffer, sizeof buffer)) > 0;) {
      content.append(buffer, n);
    }
    if (entry.path == k_manifest_name || ends_with(entry.path, std::string("/") + k_manifest_name)) {
      manifest_text = content;
    } else {
      listing[entry.path] = {static_cast<int64_t>(content.size()), sha256_hex(content)};
    }
  });
  return listing;
}

Listing
list_folder(const stdfs::path& folder, std::string& manifest_text)
{
  Listing listing;
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(folder, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) {
      continue;
    }
    std::string relative = it->path().lexically_relative(folder).generic_string();
    if (relative == k_manifest_name) {
      manifest_text = fs::read_file(it->path());
    } else {
      listing[relative] = {static_cast<int64_t>(it->file_size()), sha256_hex_file(it->path())};
    }
  }
  return listing;
}

} // namespace

std::vector<BuiltLibrary>
collect_built(const project::Manifest& manifest, const std::vector<std::string>& specs, const stdfs::path& build_root)
{
  std::vector<std::string> wanted = specs.empty() ? manifest.tf_versions : specs;
  if (wanted.empty()) {
    fail(ExitCode::usage, "no TensorFlow versions to package: pass --tf or list them under targets.tensorflow");
  }
  std::vector<BuiltLibrary> built;
  for (const build::BuiltTarget& target : build::find_built_libraries(manifest, wanted, build_root)) {
    for (const auto& [spec, path] : target.libraries) {
      stdfs::path info = path.parent_path() / "opkit-build.json";
      std::error_code ec;
      if (!stdfs::is_regular_file(info, ec)) {
        throw Error(ExitCode::missing, fmt::format("{}: not built for {}", path, target.sdk.id),
                    fmt::format("run `opkit build --tf {}` first", target.spec));
      }
      BuiltLibrary library{target.sdk, spec->name, path, Json::parse(fs::read_file(info))};
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
    long long value = std::strtoll(env, &end, 10);
    if (*end != '\0' || value < 0) {
      fail(ExitCode::usage, "SOURCE_DATE_EPOCH='{}': not a number of seconds", env);
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
  std::error_code ec;
  if (!stdfs::exists(package, ec)) {
    fail(ExitCode::usage, "{}: no such package", package);
  }
  std::string manifest_text;
  Listing actual =
    stdfs::is_directory(package, ec) ? list_folder(package, manifest_text) : list_archive(package, manifest_text);
  if (manifest_text.empty()) {
    fail(ExitCode::usage, "{}: carries no {}", package, k_manifest_name);
  }
  Json manifest;
  try {
    manifest = Json::parse(manifest_text);
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}: {} is not JSON: {}", package, k_manifest_name, e.what());
  }
  std::vector<std::string> problems;
  for (const Json& file : manifest.value("files", Json::array())) {
    std::string path = file.value("path", "");
    auto found = actual.find(path);
    if (found == actual.end()) {
      problems.push_back(fmt::format("{}: listed in the manifest, missing from the package", path));
    } else if (found->second.second != file.value("sha256", "") || found->second.first != file.value("size", -1)) {
      problems.push_back(fmt::format("{}: sha256 or size differs from the manifest", path));
    }
    if (found != actual.end()) {
      actual.erase(found);
    }
  }
  for (const auto& [path, info] : actual) {
    // A wheel's RECORD hashes the manifest, so the manifest cannot hash it back.
    if (ends_with(path, ".dist-info/RECORD")) {
      continue;
    }
    problems.push_back(fmt::format("{}: in the package but not in the manifest", path));
  }
  return problems;
}

} // namespace opkit::package
