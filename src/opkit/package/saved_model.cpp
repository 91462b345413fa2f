#include "opkit/package/saved_model.hpp"

#include "opkit/check/target.hpp"
#include "opkit/package/package.hpp"
#include "opkit/package/saved_model_proto.hpp"
#include "opkit/project/version.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/protobuf_wire.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

// The manifest key listing the assets opkit put into assets/ (top-level
// names), so that a later run can take back those it no longer adds.
const char* k_added_key = "added_by_opkit";

std::string
describe_model(const SavedModelSummary& summary)
{
  std::vector<std::string> tags;
  for (const auto& graph_tags : summary.meta_graph_tags) {
    tags.push_back(graph_tags.empty() ? "untagged" : join(graph_tags, ","));
  }
  size_t count = summary.meta_graph_tags.size();
  return fmt::format("saved_model.pb: schema version {}, {} meta graph{} ({})", summary.schema_version, count,
                     count == 1 ? "" : "s", join(tags, "; "));
}

// Where each value of a text-format field starts: the positions just past
// `key` (a whole word) and the blanks and colon after it.
std::vector<size_t>
text_field_values(std::string_view text, std::string_view key)
{
  std::vector<size_t> values;
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    bool starts_word = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    size_t i = at + key.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == ':')) {
      ++i;
    }
    if (starts_word && i < text.size()) {
      values.push_back(i);
    }
  }
  return values;
}

// A text-format SavedModel is not parsed; it must at least hold a
// `meta_graphs { ... }` (or `meta_graphs: <...>`) message.
bool
has_meta_graphs_message(std::string_view text)
{
  for (size_t i : text_field_values(text, "meta_graphs")) {
    if (text[i] == '{' || text[i] == '<') {
      return true;
    }
  }
  return false;
}

// The TF version a text-format SavedModel's meta_info_def names
// (`tensorflow_version: "1.12.0"`), or "".
std::string
text_tensorflow_version(std::string_view text)
{
  for (size_t i : text_field_values(text, "tensorflow_version")) {
    if (text[i] != '"' && text[i] != '\'') {
      continue;
    }
    size_t end = text.find(text[i], i + 1);
    if (end != std::string_view::npos && end - i - 1 <= 64) {
      return std::string(text.substr(i + 1, end - i - 1));
    }
  }
  return "";
}

// What an export holds: in one line, and the TF version that wrote it.
struct ExportInfo
{
  std::string description;
  std::string tensorflow_version; // "" when the model does not say
};

// The first TF version the meta graphs name.
std::string
first_version(const SavedModelSummary& summary)
{
  for (const std::string& version : summary.tensorflow_versions) {
    if (!version.empty()) {
      return version;
    }
  }
  return "";
}

// Refuses a folder that is not a SavedModel TensorFlow could load; returns
// what it holds.
ExportInfo
check_export_dir(const stdfs::path& dir)
{
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec)) {
    fail(ExitCode::usage, "{}: no such SavedModel folder", dir);
  }
  // TensorFlow's loader reads saved_model.pb when it is there, else saved_model.pbtxt.
  stdfs::path binary = dir / "saved_model.pb";
  stdfs::path text = dir / "saved_model.pbtxt";
  if (stdfs::is_regular_file(binary, ec)) {
    fs::MappedFile file(binary);
    if (file.size() == 0) {
      fail(ExitCode::usage, "{}: not a SavedModel: the file is empty", binary);
    }
    try {
      SavedModelSummary summary = read_saved_model(file.bytes());
      return {describe_model(summary), first_version(summary)};
    } catch (const protobuf::WireError& e) {
      fail(ExitCode::usage, "{}: not a SavedModel protobuf: {}", binary, e.what());
    }
  }
  if (stdfs::is_regular_file(text, ec)) {
    std::string content = fs::read_file(text);
    if (trim(content).empty()) {
      fail(ExitCode::usage, "{}: not a SavedModel: the file is empty", text);
    }
    if (!has_meta_graphs_message(content)) {
      fail(ExitCode::usage, "{}: not a text-format SavedModel: no `meta_graphs {{ ... }}` message", text);
    }
    return {"saved_model.pbtxt: text format, holds meta_graphs (not parsed further)", text_tensorflow_version(content)};
  }
  fail(ExitCode::usage, "{}: not a SavedModel (no saved_model.pb or saved_model.pbtxt)", dir);
}

std::string
newest_target(const project::Manifest& manifest)
{
  if (manifest.target_versions.empty()) {
    fail(ExitCode::usage, "saved-model: pass --tf (the serving runtime's TensorFlow version)");
  }
  return *std::max_element(
    manifest.target_versions.begin(), manifest.target_versions.end(),
    [](const std::string& a, const std::string& b) { return *project::parse_version(a) < *project::parse_version(b); });
}

// (major, minor): what decides whether one TF loads another's SavedModel.
std::pair<int, int>
major_minor(const project::Version& version)
{
  return {version.parts.empty() ? 0 : version.parts[0], version.parts.size() > 1 ? version.parts[1] : 0};
}

// What the manifest of the assets/ an earlier run made says.
struct Previous
{
  std::set<std::string> added;               // top-level names opkit put there
  std::map<std::string, std::string> sha256; // path -> sha256, as it wrote them
};

Previous
read_previous(const stdfs::path& assets_dir)
{
  Previous previous;
  stdfs::path path = assets_dir / k_manifest_name;
  std::error_code ec;
  if (!stdfs::exists(stdfs::symlink_status(path, ec))) {
    return previous; // opkit never wrote here: every file is the user's
  }
  Json manifest;
  try {
    manifest = Json::parse(fs::read_file(path));
  } catch (const Json::exception& e) {
    fail(ExitCode::usage,
         "{}: not JSON ({}), so which assets opkit added is unknown: remove it and the files opkit added", path,
         e.what());
  }
  if (!manifest.is_object() || manifest.value("kind", Json()) != "saved-model-assets") {
    fail(ExitCode::usage, "{}: not the manifest of a saved-model package, so which assets opkit added is unknown",
         path);
  }
  auto strings = [&](const Json& list, const char* key) {
    std::vector<std::string> found;
    if (!list.is_array()) {
      return found;
    }
    for (const Json& item : list) {
      const Json* value = key == nullptr ? &item : (item.is_object() && item.contains(key) ? &item[key] : nullptr);
      if (value != nullptr && value->is_string()) {
        found.push_back(value->get<std::string>());
      }
    }
    return found;
  };
  // Manifests from before `added_by_opkit` list only the libraries as surely opkit's.
  for (const std::string& name : manifest.contains(k_added_key)
                                   ? strings(manifest[k_added_key], nullptr)
                                   : strings(manifest.value("libraries", Json()), "path")) {
    previous.added.insert(name);
  }
  for (const Json& file : manifest.value("files", Json::array())) {
    if (file.is_object() && file.value("path", Json()).is_string() && file.value("sha256", Json()).is_string()) {
      previous.sha256[file["path"].get<std::string>()] = file["sha256"].get<std::string>();
    }
  }
  return previous;
}

// Carries a user's file, folder or link from the old assets/ into the staged
// one unchanged: files are hard-linked (the same inode), or copied with their
// mode and mtime where a link cannot be made.
void
carry_over(const stdfs::path& source, const stdfs::path& dest)
{
  std::error_code ec;
  stdfs::file_status status = stdfs::symlink_status(source, ec);
  if (stdfs::is_symlink(status)) {
    stdfs::copy_symlink(source, dest, ec);
  } else if (stdfs::is_directory(status)) {
    stdfs::create_directory(dest, source, ec);
    for (auto it = stdfs::directory_iterator(source, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
      carry_over(it->path(), dest / it->path().filename());
    }
  } else if (stdfs::is_regular_file(status)) {
    stdfs::create_hard_link(source, dest, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(source, dest);
      stdfs::last_write_time(dest, stdfs::last_write_time(source, ec), ec);
    }
  } else {
    fail(ExitCode::usage, "{}: neither a file, a folder nor a link, so it cannot be kept in the new assets/", source);
  }
  if (ec) {
    fail(ExitCode::system, "{}: cannot carry into the new assets/: {}", source, ec.message());
  }
}

// The manifest lists everything in assets/, so `opkit package verify EXPORT_DIR/assets` checks it all.
std::string
assets_manifest_text(const std::vector<ArchiveMember>& members, const std::string& name,
                     const std::vector<std::pair<std::string, Json>>& libraries, const std::set<std::string>& added)
{
  Json manifest = make_manifest("saved-model-assets", name, members, libraries);
  manifest[k_added_key] = Json(std::vector<std::string>(added.begin(), added.end()));
  return json_text(manifest, 2) + "\n";
}

// The regular files under `folder` (links followed, as the manifest lists
// them), as members named by their paths relative to `root`.
void
add_folder_members(const stdfs::path& folder, const stdfs::path& root, std::vector<ArchiveMember>& members)
{
  for (const auto& entry : stdfs::recursive_directory_iterator(folder)) {
    std::string relative = entry.path().lexically_relative(root).generic_string();
    if (entry.is_regular_file() && relative != k_manifest_name) {
      members.push_back({relative, entry.path(), {}, false});
    }
  }
}

void
write_assets_manifest(const stdfs::path& staged, const std::string& name,
                      const std::vector<std::pair<std::string, Json>>& libraries, const std::set<std::string>& added,
                      SavedModelResult& result)
{
  std::vector<ArchiveMember> members;
  add_folder_members(staged, staged, members);
  for (const ArchiveMember& member : members) {
    result.assets.push_back(member.path);
  }
  std::sort(result.assets.begin(), result.assets.end());
  fs::write_file_atomic(staged / k_manifest_name, assets_manifest_text(members, name, libraries, added));
  result.assets.push_back(k_manifest_name);
}

// --dry-run: what assets/ would hold, computed from the files that would go in.
std::vector<PackedFile>
planned_assets(const std::vector<stdfs::path>& keep, const std::set<std::string>& added,
               const std::map<std::string, stdfs::path>& wanted, const stdfs::path& assets_dir, const std::string& name,
               const std::vector<std::pair<std::string, Json>>& libraries)
{
  std::vector<ArchiveMember> members;
  for (const stdfs::path& path : keep) {
    std::error_code ec;
    if (stdfs::is_directory(path, ec)) {
      add_folder_members(path, assets_dir, members);
    } else if (stdfs::is_regular_file(path, ec)) {
      members.push_back({path.filename().string(), path, {}, false});
    }
  }
  for (const std::string& file : added) {
    members.push_back({file, wanted.at(file), {}, false});
  }
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  std::string manifest = assets_manifest_text(members, name, libraries, added);
  std::vector<PackedFile> files = packed_files(members);
  files.push_back({k_manifest_name, static_cast<int64_t>(manifest.size()), sha256_hex(manifest)});
  return files;
}

} // namespace

SavedModelTarget
saved_model_target(const project::Manifest& manifest, const SavedModelOptions& options)
{
  ExportInfo info = check_export_dir(options.export_dir);
  SavedModelTarget target{options.tf_spec, info.tensorflow_version, info.description};
  std::optional<project::Version> model = project::parse_version(info.tensorflow_version);
  if (target.spec.empty()) {
    if (!model) {
      target.spec = newest_target(manifest); // the model does not say: the newest target, as before
      return target;
    }
    for (const std::string& spec : manifest.target_versions) {
      std::optional<project::Version> version = project::parse_version(spec);
      if (version && project::version_matches(*version, *model)) {
        target.spec = spec;
        return target;
      }
    }
    throw Error(ExitCode::usage,
                fmt::format("{}: exported by TF {}, which none of the project's targets ({}) is", options.export_dir,
                            info.tensorflow_version, join(manifest.target_versions, ", ")),
                "pass --tf with the TF that will serve it");
  }
  if (!model) {
    return target;
  }
  // A TF loads the SavedModels of its own and older versions, never a newer
  // one's: a library for an older TF than the model's would never serve it.
  project::Version serving = sdk::resolve_sdk(target.spec).version;
  if (major_minor(serving) < major_minor(*model) && !options.force) {
    throw Error(
      ExitCode::failed,
      fmt::format("{}: exported by TF {}, but --tf {} is TF {}, which cannot load a SavedModel written by "
                  "a newer TF: its library would never serve this model; nothing written",
                  options.export_dir, info.tensorflow_version, target.spec, serving.str()),
      fmt::format("pass --tf with the TF that serves it (TF {} or newer), or --force",
                  std::to_string(major_minor(*model).first) + "." + std::to_string(major_minor(*model).second)));
  }
  return target;
}

SavedModelResult
package_saved_model(const project::Manifest& manifest, const SavedModelOptions& options)
{
  return package_saved_model(manifest, options, saved_model_target(manifest, options));
}

SavedModelResult
package_saved_model(const project::Manifest& manifest, const SavedModelOptions& options, const SavedModelTarget& target)
{
  SavedModelResult result;
  result.model = target.description;
  result.model_tf = target.model_tf;
  for (const stdfs::path& asset : options.assets) {
    std::error_code ec;
    if (!stdfs::is_regular_file(asset, ec)) {
      fail(ExitCode::usage, "{}: no such asset file", asset);
    }
  }
  result.assets_dir = options.export_dir / "assets";
  std::error_code ec;
  stdfs::file_status assets_status = stdfs::symlink_status(result.assets_dir, ec);
  bool had_assets = stdfs::exists(assets_status);
  if (stdfs::is_symlink(assets_status)) {
    // Replacing the link would hard-link the folder's files into the export
    // (and leave the folder behind it stale): its files are someone else's.
    fail(ExitCode::usage,
         "{}: a symbolic link (to {}), not a folder: opkit replaces assets/ as a whole and writes through no link; "
         "make it a folder",
         result.assets_dir, stdfs::read_symlink(result.assets_dir, ec));
  }
  if (had_assets && !stdfs::is_directory(result.assets_dir, ec)) {
    fail(ExitCode::usage, "{}: not a folder", result.assets_dir);
  }
  std::vector<BuiltLibrary> built = collect_built(manifest, {target.spec}, options.build_root);
  if (!built.empty()) {
    result.serving_tf = built.front().version();
  }

  // What this run puts into assets/: name -> source.
  std::map<std::string, stdfs::path> wanted;
  std::vector<std::pair<std::string, Json>> libraries;
  for (const BuiltLibrary& library : built) {
    std::string file = library.path.filename().string();
    wanted[file] = library.path;
    libraries.emplace_back(file, library.facts);
  }
  for (const stdfs::path& asset : options.assets) {
    std::string file = asset.filename().string();
    if (file == k_manifest_name || wanted.count(file) != 0) {
      fail(ExitCode::usage, "{}: assets/{} is already taken by {}", asset, file,
           file == k_manifest_name ? std::string("opkit's manifest") : wanted[file].string());
    }
    wanted[file] = asset;
  }

  for (const BuiltLibrary& library : built) {
    result.check = check::check_library(library.path, check::make_check_target(library.sdk, options.runtime, {}));
    if (!result.check.loads && !options.force) {
      const check::Finding& first = result.check.findings.front();
      throw Error(
        ExitCode::failed,
        fmt::format("{}: would not load in {}: [{}] {}", library.path, result.check.target, first.kind, first.summary),
        "`opkit check` shows every finding; --force adds it anyway");
    }
    if (!result.check.loads) {
      break; // the one --force lets through is the one reported
    }
  }

  // Sort what is in assets/ now: the user's own files stay as they are, what
  // an earlier run added and this one does not is taken back.
  Previous previous = had_assets ? read_previous(result.assets_dir) : Previous{};
  std::set<std::string> added; // what this run adds (the manifest's added_by_opkit)
  std::vector<stdfs::path> keep;
  for (const auto& [file, source] : wanted) {
    stdfs::path existing = result.assets_dir / file;
    if (!had_assets || previous.added.count(file) != 0 || !stdfs::exists(stdfs::symlink_status(existing, ec))) {
      added.insert(file);
      continue;
    }
    // The user's own file: left alone when it is the same, never replaced.
    if (!stdfs::is_regular_file(stdfs::symlink_status(existing, ec))
        || sha256_hex_file(existing) != sha256_hex_file(source)) {
      fail(ExitCode::usage, "{}: already there and not put there by opkit, and {} differs: remove it to replace it",
           existing, source);
    }
  }
  if (had_assets) {
    for (auto it = stdfs::directory_iterator(result.assets_dir, ec); !ec && it != stdfs::directory_iterator();
         it.increment(ec)) {
      std::string file = it->path().filename().string();
      if (file == k_manifest_name || added.count(file) != 0) {
        continue; // written anew below
      }
      if (previous.added.count(file) != 0) {
        auto recorded = previous.sha256.find(file);
        if (it->is_symlink() || !it->is_regular_file() || recorded == previous.sha256.end()
            || sha256_hex_file(it->path()) != recorded->second) {
          result.changed.push_back(file); // changed since opkit added it: now the user's
        } else {
          result.removed.push_back(file);
          continue;
        }
      }
      keep.push_back(it->path());
    }
    if (ec) {
      fail(ExitCode::system, "{}: cannot list: {}", result.assets_dir, ec.message());
    }
  }
  std::sort(result.removed.begin(), result.removed.end());
  std::sort(result.changed.begin(), result.changed.end());

  if (options.dry_run) {
    result.planned = planned_assets(keep, added, wanted, result.assets_dir, manifest.name, libraries);
    for (const PackedFile& file : result.planned) {
      result.assets.push_back(file.path);
    }
    return result;
  }
  fs::StagingDir staging(options.export_dir);
  staging.fill(result.assets_dir.string() + "/", [&] {
    for (const stdfs::path& path : keep) {
      carry_over(path, staging.path() / path.filename());
    }
    for (const std::string& file : added) {
      fs::copy_file(wanted[file], staging.path() / file);
    }
    write_assets_manifest(staging.path(), manifest.name, libraries, added, result);
  });
  staging.commit(result.assets_dir, /*replace=*/true);
  result.written = true;
  return result;
}

} // namespace opkit::package
