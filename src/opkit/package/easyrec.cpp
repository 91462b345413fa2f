#include "opkit/package/easyrec.hpp"

#include "opkit/package/package.hpp"
#include "opkit/project/package_rules.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>
#include <regex>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

std::string
default_version(const stdfs::path& easyrec_dir)
{
  if (easyrec_dir.empty()) {
    fail(ExitCode::usage, "easyrec package: --version is required without --easyrec-dir");
  }
  // As deploy_ext.sh does: the first x.y.z in easy_rec/version.py.
  std::smatch match;
  std::string text = fs::read_file(easyrec_dir / "easy_rec" / "version.py");
  if (!std::regex_search(text, match, std::regex("[0-9]\\.[0-9]\\.[0-9]"))) {
    fail(ExitCode::usage, "{}: no version found; pass --version", easyrec_dir / "easy_rec" / "version.py");
  }
  return match.str();
}

bool
is_executable(const stdfs::path& path)
{
  std::error_code ec;
  return (stdfs::status(path, ec).permissions() & stdfs::perms::owner_exec) != stdfs::perms::none;
}

// A folder as `tar -h` packs it: links followed, *.pyc left out (deploy_ext.sh deletes them).
void
add_tree(const stdfs::path& root, const std::string& prefix, std::map<std::string, ArchiveMember>& members)
{
  std::error_code ec;
  auto options = stdfs::directory_options::follow_directory_symlink;
  for (auto it = stdfs::recursive_directory_iterator(root, options, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() == ".pyc") {
      continue;
    }
    std::string path = prefix + "/" + it->path().lexically_relative(root).generic_string();
    members[path] = {path, it->path(), {}, is_executable(it->path())};
  }
}

void
add_easyrec_checkout(const stdfs::path& dir, std::map<std::string, ArchiveMember>& members, EasyRecResult& result)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(dir / "easy_rec" / "__init__.py", ec)) {
    fail(ExitCode::usage, "{}: not an EasyRec checkout (no easy_rec/__init__.py)", dir);
  }
  add_tree(dir / "easy_rec", "easy_rec", members);
  if (stdfs::is_regular_file(dir / "pai_jobs" / "run.py", ec)) {
    members["run.py"] = {"run.py", dir / "pai_jobs" / "run.py", {}, false};
  } else {
    result.notes.push_back("no pai_jobs/run.py in the EasyRec checkout: the package has no entry point");
  }
  std::vector<std::string> absent;
  for (const std::string& name : project::easyrec_rules().third_party) {
    if (stdfs::is_directory(dir / "pai_jobs" / name, ec)) {
      add_tree(dir / "pai_jobs" / name, name, members);
    } else {
      absent.push_back(name);
    }
  }
  if (!absent.empty()) {
    result.notes.push_back(
      fmt::format("not in pai_jobs/, so not packed: {} (deploy_ext.sh downloads them)", join(absent, ", ")));
  }
}

// The project's own easy_rec/ files (an EasyRec layer, say) go in at the same
// paths. A file.add lists lines to append to EasyRec's file (e.g. an import
// in layers/keras/__init__.py): done inside the package, when that file is there.
void
add_project_overlay(const stdfs::path& project_root, std::map<std::string, ArchiveMember>& members,
                    EasyRecResult& result)
{
  std::error_code ec;
  if (!stdfs::is_directory(project_root / "easy_rec", ec)) {
    return;
  }
  std::map<std::string, ArchiveMember> overlay;
  add_tree(project_root / "easy_rec", "easy_rec", overlay);
  for (auto& [path, member] : overlay) {
    if (!ends_with(path, ".add")) {
      members[path] = member;
    }
  }
  for (auto& [path, member] : overlay) {
    if (!ends_with(path, ".add")) {
      continue;
    }
    std::string target = path.substr(0, path.size() - 4);
    auto found = members.find(target);
    if (found == members.end()) {
      result.notes.push_back(
        fmt::format("add the lines of {} to EasyRec's {} (pass --easyrec-dir to have it done)", path, target));
      continue;
    }
    std::string text = found->second.source.empty() ? found->second.content : fs::read_file(found->second.source);
    for (const std::string& line : split(fs::read_file(member.source), '\n')) {
      if (!trim(line).empty() && text.find(line) == std::string::npos) {
        text += (text.empty() || text.back() == '\n' ? "" : "\n") + line + "\n";
      }
    }
    found->second = {target, {}, text, found->second.executable};
  }
}

} // namespace

void
validate_easyrec_version(const std::string& version)
{
  static const std::regex k_allowed("[0-9A-Za-z_-]+");
  if (!std::regex_match(version, k_allowed)) {
    fail(ExitCode::usage, "'{}': invalid EasyRec resource version (deploy_ext.sh allows only [0-9A-Za-z_-])", version);
  }
}

EasyRecResult
package_easyrec(const project::Manifest& manifest, const EasyRecOptions& options)
{
  EasyRecResult result;
  if (!options.version.empty()) {
    validate_easyrec_version(options.version);
  }
  result.version = options.version.empty() ? default_version(options.easyrec_dir) : options.version;
  const auto& reserved = project::easyrec_rules().reserved_libraries;
  for (const project::LibrarySpec& spec : manifest.libraries) {
    if (std::find(reserved.begin(), reserved.end(), spec.output) != reserved.end()) {
      fail(ExitCode::usage, "{}: EasyRec ships a library of that name; rename the library so it cannot replace it",
           spec.output);
    }
  }
  std::vector<BuiltLibrary> built = collect_built(manifest, options.tf_specs, options.build_root);

  std::map<std::string, ArchiveMember> members;
  if (options.easyrec_dir.empty()) {
    result.notes.push_back("ops overlay only (no --easyrec-dir): extract it over an EasyRec resource, or pass "
                           "--easyrec-dir to pack a whole one");
  } else {
    add_easyrec_checkout(options.easyrec_dir, members, result);
  }
  add_project_overlay(manifest.root, members, result);
  std::vector<std::pair<std::string, Json>> libraries;
  std::map<std::string, std::string> dir_owner;
  for (const BuiltLibrary& lib : built) {
    std::string dir = project::easyrec_ops_dir(project::easyrec_rules(), lib.sdk.version, options.flavor);
    if (!dir_owner.emplace(dir, lib.version()).second && dir_owner[dir] != lib.version()) {
      fail(ExitCode::usage, "tensorflow {} and {} both map to easy_rec/python/ops/{}; package one of them",
           dir_owner[dir], lib.version(), dir);
    }
    std::string path = "easy_rec/python/ops/" + dir + "/" + lib.path.filename().string();
    members[path] = {path, lib.path, {}, true};
    libraries.emplace_back(path, lib.facts);
    result.libraries.push_back(path);
  }
  std::vector<ArchiveMember> list;
  for (auto& [path, member] : members) {
    list.push_back(std::move(member));
  }
  Json manifest_json = make_manifest("easyrec", manifest.name, list, libraries);
  list.push_back({k_manifest_name, {}, manifest_json.dump(2) + "\n", false});
  result.files = list.size();

  stdfs::path out_dir = options.output_dir.empty() ? manifest.root / "dist" : options.output_dir;
  fs::create_dirs(out_dir);
  result.file = out_dir / ("easy_rec_ext_" + result.version + "_res.tar.gz");
  write_archive(result.file, ArchiveFormat::tar_gz, std::move(list), source_date_epoch(manifest.root));
  return result;
}

} // namespace opkit::package
