#include "opkit/package/easyrec.hpp"

#include "opkit/package/easyrec_abi.hpp"
#include "opkit/package/easyrec_protos.hpp"
#include "opkit/package/package.hpp"
#include "opkit/project/package_rules.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>
#include <set>
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
  // The version EasyRec declares; the same rule as --version applies to it (validate_easyrec_version).
  return project::easyrec_checkout_version(easyrec_dir, "pass --version");
}

bool
is_executable(const stdfs::path& path)
{
  std::error_code ec;
  return (stdfs::status(path, ec).permissions() & stdfs::perms::owner_exec) != stdfs::perms::none;
}

// Refuses `path` when it is a link whose target leaves `inside` (the
// checkout or the project, canonical): the resource is uploaded, and a link
// to /etc/passwd must not take that file along.
void
require_inside(const stdfs::path& path, const stdfs::path& inside)
{
  std::error_code ec;
  if (!stdfs::is_symlink(path, ec)) {
    return;
  }
  stdfs::path target = stdfs::canonical(path, ec);
  std::string text = target.string();
  if (!ec && (target == inside || starts_with(text, inside.string() + "/"))) {
    return;
  }
  fail(ExitCode::usage,
       "{}: a symbolic link to {}, outside {}: refusing to pack it into a resource meant for upload (copy the file "
       "in if it belongs there)",
       path, ec ? stdfs::read_symlink(path, ec) : target, inside);
}

// A folder as `tar -h` packs it: links followed, *.pyc left out (deploy_ext.sh
// deletes them), but only links that stay inside `inside` (see require_inside).
void
add_tree(const stdfs::path& root, const std::string& prefix, const stdfs::path& inside,
         std::map<std::string, ArchiveMember>& members)
{
  std::error_code ec;
  stdfs::path boundary = stdfs::canonical(inside, ec);
  require_inside(root, boundary);
  auto options = stdfs::directory_options::follow_directory_symlink;
  for (auto it = stdfs::recursive_directory_iterator(root, options, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    if (it->is_symlink(entry_ec) && stdfs::exists(it->path(), entry_ec)) {
      require_inside(it->path(), boundary);
    }
    if (!it->is_regular_file(entry_ec) || it->path().extension() == ".pyc") {
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
  add_tree(dir / "easy_rec", "easy_rec", dir, members);
  if (stdfs::is_regular_file(dir / "pai_jobs" / "run.py", ec)) {
    require_inside(dir / "pai_jobs" / "run.py", stdfs::canonical(dir, ec));
    members["run.py"] = {"run.py", dir / "pai_jobs" / "run.py", {}, false};
  } else {
    result.notes.push_back("no pai_jobs/run.py in the EasyRec checkout: the package has no entry point");
  }
  std::vector<std::string> absent;
  for (const std::string& name : project::easyrec_rules().third_party) {
    if (stdfs::is_directory(dir / "pai_jobs" / name, ec)) {
      add_tree(dir / "pai_jobs" / name, name, dir, members);
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
  add_tree(project_root / "easy_rec", "easy_rec", project_root, overlay);
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

// Each library's folder: --flavor where it has a rule for the library's
// version, else the version's default. A flavor that fits none of them is refused.
std::vector<EasyRecLibrary>
choose_folders(const std::vector<BuiltLibrary>& built, const std::string& flavor)
{
  const project::EasyRecRules& rules = project::easyrec_rules();
  std::vector<EasyRecLibrary> chosen;
  std::vector<std::string> unfit;
  std::map<std::string, std::string> dir_owner;
  for (const BuiltLibrary& lib : built) {
    std::optional<project::OpsDirChoice> choice = project::easyrec_ops_dir(rules, lib.sdk.version, flavor);
    if (!choice) {
      unfit.push_back(lib.version());
      choice = project::easyrec_ops_dir(rules, lib.sdk.version, "");
    }
    if (!dir_owner.emplace(choice->dir, lib.version()).second && dir_owner[choice->dir] != lib.version()) {
      fail(ExitCode::usage, "tensorflow {} and {} both map to easy_rec/python/ops/{}; package one of them",
           dir_owner[choice->dir], lib.version(), choice->dir);
    }
    std::string path = "easy_rec/python/ops/" + choice->dir + "/" + lib.path.filename().string();
    chosen.push_back({path, lib.version(), choice->dir, choice->flavor, choice->why});
  }
  if (!flavor.empty() && unfit.size() == built.size()) {
    std::sort(unfit.begin(), unfit.end());
    unfit.erase(std::unique(unfit.begin(), unfit.end()), unfit.end());
    fail(ExitCode::usage, "flavor '{}' does not apply to TensorFlow {}", flavor, join(unfit, ", "));
  }
  return chosen;
}

// EasyRec's own libraries in the op's folder must agree with it; a finding is
// refused (exit 1) unless --force, which packs it with a warning.
void
check_abi(const EasyRecOptions& options, const std::vector<BuiltLibrary>& built,
          const std::vector<EasyRecLibrary>& chosen, EasyRecResult& result)
{
  std::vector<PackedOp> ops;
  for (size_t i = 0; i < built.size(); ++i) {
    int abi = built[i].facts.value("cxx11_abi", -1);
    ops.push_back({chosen[i].path, built[i].path, abi < 0 ? std::nullopt : std::optional<int>(abi), chosen[i].tf});
  }
  AbiCheck check = check_against_shipped(options.easyrec_dir, ops);
  result.notes.insert(result.notes.end(), check.notes.begin(), check.notes.end());
  if (check.findings.empty()) {
    return;
  }
  if (!options.force) {
    std::string more = check.findings.size() == 1 ? ""
                                                  : fmt::format(" (and {} more finding{})", check.findings.size() - 1,
                                                                check.findings.size() == 2 ? "" : "s");
    throw Error(ExitCode::failed, check.findings.front() + more, check.remedy);
  }
  result.warnings.insert(result.warnings.end(), check.findings.begin(), check.findings.end());
}

} // namespace

void
validate_easyrec_version(const std::string& version)
{
  static const std::regex k_allowed(project::easyrec_rules().version_pattern);
  // The pattern (configs/packages/easyrec.yaml) allows at most 100 characters:
  // longer text is refused before std::regex, whose recursion it could overflow.
  if (version.size() > 100 || !std::regex_match(version, k_allowed)) {
    fail(ExitCode::usage,
         "'{}': invalid EasyRec resource version (letters, digits, '.', '_' and '-', starting with a letter or "
         "digit, at most 100: it names the file and MaxCompute resource easy_rec_ext_<V>_res.tar.gz)",
         escape_clipped(version, 120));
  }
}

EasyRecResult
package_easyrec(const project::Manifest& manifest, const EasyRecOptions& options)
{
  EasyRecResult result;
  result.version = options.version.empty() ? default_version(options.easyrec_dir) : options.version;
  validate_easyrec_version(result.version);
  result.overlay = options.easyrec_dir.empty();
  const auto& reserved = project::easyrec_rules().reserved_libraries;
  for (const project::LibrarySpec& spec : manifest.libraries) {
    if (std::find(reserved.begin(), reserved.end(), spec.output) != reserved.end()) {
      fail(ExitCode::usage, "{}: EasyRec ships a library of that name; rename the library so it cannot replace it",
           spec.output);
    }
  }
  std::vector<BuiltLibrary> built = collect_built(manifest, options.tf_specs, options.build_root);
  result.libraries = choose_folders(built, options.flavor);

  std::map<std::string, ArchiveMember> members;
  if (result.overlay) {
    result.notes.push_back("ops overlay only (no --easyrec-dir): extract it over a complete EasyRec resource; "
                           "uploaded alone it would replace the whole resource");
  } else {
    add_easyrec_checkout(options.easyrec_dir, members, result);
    std::vector<project::Version> versions;
    versions.reserve(built.size());
    for (const BuiltLibrary& lib : built) {
      versions.push_back(lib.sdk.version);
    }
    ProtoFiles protos = easyrec_proto_files(options.easyrec_dir, versions, options.protoc);
    for (ArchiveMember& member : protos.members) {
      members[member.path] = std::move(member);
    }
    result.notes.push_back(protos.note);
    check_abi(options, built, result.libraries, result);
  }
  add_project_overlay(manifest.root, members, result);
  std::vector<std::pair<std::string, Json>> libraries;
  for (size_t i = 0; i < built.size(); ++i) {
    const std::string& path = result.libraries[i].path;
    members[path] = {path, built[i].path, {}, true};
    libraries.emplace_back(path, built[i].facts);
  }
  std::vector<ArchiveMember> list;
  list.reserve(members.size());
  for (auto& [path, member] : members) {
    list.push_back(std::move(member));
  }
  Json manifest_json = make_manifest("easyrec", manifest.name, list, libraries);
  list.push_back({k_manifest_name, {}, json_text(manifest_json, 2) + "\n", false});
  result.files = list.size();

  stdfs::path out_dir = output_folder(manifest, options.output_dir);
  result.file = out_dir / ("easy_rec_ext_" + result.version + (result.overlay ? "_overlay.tar.gz" : "_res.tar.gz"));
  result.members = packed_files(list);
  if (options.dry_run) {
    return result;
  }
  fs::create_dirs(out_dir);
  result.written = true;
  write_archive(result.file, ArchiveFormat::tar_gz, std::move(list), source_date_epoch(manifest.root));
  return result;
}

} // namespace opkit::package
