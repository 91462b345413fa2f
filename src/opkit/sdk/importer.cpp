#include "opkit/sdk/importer.hpp"

#include "opkit/elf/symbol_index.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/facts.hpp"
#include "opkit/sdk/import_progress.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/sdk/torch_facts.hpp"
#include "opkit/sdk/wheel_record.hpp"
#include "opkit/util/archive.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include <fcntl.h>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

bool
is_package_dir(const std::string& part)
{
  return part == "tensorflow" || part == "tensorflow_core";
}

bool
is_framework_library(const std::string& name)
{
  return name == "libtensorflow_framework.so" || starts_with(name, "libtensorflow_framework.so.");
}

// The sdk: sections of the framework tables that have one (torch.yaml's), by framework.
const std::vector<std::pair<std::string, project::SdkLayout>>&
table_layouts()
{
  static const std::vector<std::pair<std::string, project::SdkLayout>> layouts = [] {
    std::vector<std::pair<std::string, project::SdkLayout>> found;
    for (const std::string& name : project::FrameworkTable::names()) {
      const project::SdkLayout& layout = project::FrameworkTable::get(name).sdk_layout();
      if (!layout.package_dirs.empty()) {
        found.emplace_back(name, layout);
      }
    }
    return found;
  }();
  return layouts;
}

// A path under a table's package folder (its first part): headers, the
// listed libraries and the version file are kept.
EntryPlan
classify_by_layout(const std::vector<std::string>& parts, const project::SdkLayout& layout)
{
  size_t n = parts.size();
  if (n < 2
      || std::find(layout.package_dirs.begin(), layout.package_dirs.end(), parts[0]) == layout.package_dirs.end()) {
    return {};
  }
  if (n > 2 && parts[1] == layout.include_dir) {
    return {EntryKind::header, "include/" + join({parts.begin() + 2, parts.end()}, "/")};
  }
  if (n == 3 && parts[1] == layout.library_dir
      && std::find(layout.libraries.begin(), layout.libraries.end(), parts[2]) != layout.libraries.end()) {
    return {EntryKind::framework_library, "lib/" + parts[2]};
  }
  if (n == 2 && parts[1] == layout.version_file) {
    return {EntryKind::version_file, layout.version_file};
  }
  std::string below = join({parts.begin() + 1, parts.end()}, "/");
  for (const std::string& fact : layout.fact_files) {
    if (below == fact) {
      return {EntryKind::fact_file, "facts/" + parts.back()};
    }
  }
  return {};
}

EntryPlan
classify_parts(const std::vector<std::string>& parts)
{
  size_t n = parts.size();
  for (const auto& [framework, layout] : table_layouts()) {
    if (n >= 2
        && std::find(layout.package_dirs.begin(), layout.package_dirs.end(), parts[0]) != layout.package_dirs.end()) {
      return classify_by_layout(parts, layout);
    }
  }
  if (n == 2 && ends_with(parts[0], ".dist-info")) {
    if (parts[1] == "METADATA") {
      return {EntryKind::metadata, "dist-info/METADATA"};
    }
    if (parts[1] == "WHEEL") {
      return {EntryKind::wheel_info, "dist-info/WHEEL"};
    }
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    if (!is_package_dir(parts[i])) {
      continue;
    }
    std::vector<std::string> rest(parts.begin() + static_cast<long>(i) + 1, parts.end());
    if (rest.size() > 1 && rest[0] == "include") {
      return {EntryKind::header, "include/" + join({rest.begin() + 1, rest.end()}, "/")};
    }
    if (rest.size() == 1 && is_framework_library(rest[0])) {
      return {EntryKind::framework_library, "lib/" + rest[0]};
    }
    if (rest.size() == 3 && rest[0] == "python" && rest[1] == "platform" && rest[2] == "build_info.py") {
      return {EntryKind::build_info, "build_info.py"};
    }
    if ((rest.size() == 2 && rest[0] == "python" && rest[1] == "_pywrap_tensorflow_internal.so")
        || (rest.size() == 1 && starts_with(rest[0], "libtensorflow_cc.so"))) {
      return {EntryKind::process_library, "process/" + rest.back()};
    }
    return {};
  }
  return {};
}

// The framework whose table's version file the staging folder holds (its
// sdk: section's), or "" (TensorFlow: its files are sdk/facts' to read).
std::string
staged_framework(const stdfs::path& root)
{
  std::error_code ec;
  for (const auto& [framework, layout] : table_layouts()) {
    if (stdfs::is_regular_file(root / layout.version_file, ec)) {
      return framework;
    }
  }
  return {};
}

// Counts what an import kept, for the summary line and the limits.
struct ImportStats
{
  size_t headers = 0;
  size_t libraries = 0;
  size_t files = 0;
  uint64_t bytes = 0;
  std::string source; // the wheel or folder, for errors
};

// What opkit keeps of one wheel is bounded, so a hostile archive (a zip bomb)
// cannot fill the disk: the SDK subset of the stock wheels is 70-230 MB in
// about 8,000 files (2.15.1: 225 MB, 8,216 files), far below both limits.
constexpr uint64_t k_max_sdk_bytes = uint64_t{1} << 30;
constexpr size_t k_max_sdk_files = 100000;
// A library the Python process loads, read only for its symbol index (2.10.1's
// _pywrap_tensorflow_internal.so: 492 MB; 2.15.1's libtensorflow_cc.so.2: 565 MB).
constexpr uint64_t k_max_process_library_bytes = uint64_t{2} << 30;

[[noreturn]] void
fail_too_large(const ImportStats& stats, const ArchiveEntry& entry)
{
  fail(ExitCode::usage,
       "{}: {}: too large for an SDK: the files opkit keeps of one wheel are limited to {} bytes (1 GiB); "
       "the stock TensorFlow wheels keep under 250 MB",
       escape_text(stats.source), escape_text(entry.path), k_max_sdk_bytes);
}

// Writes one kept file and returns the sha256 of its bytes.
Sha256Digest
write_entry(const stdfs::path& root, const EntryPlan& plan, ArchiveEntry& entry, ImportStats& stats)
{
  // A process library is read for its index and removed: bounded on its own.
  bool transient = plan.kind == EntryKind::process_library;
  uint64_t budget = transient ? k_max_process_library_bytes : k_max_sdk_bytes - stats.bytes;
  // The size the archive declares is checked first; the bytes really
  // inflated are counted too, as a declared size may lie.
  if (entry.size > 0 && static_cast<uint64_t>(entry.size) > budget) {
    fail_too_large(stats, entry);
  }
  if (++stats.files > k_max_sdk_files) {
    fail(ExitCode::usage, "{}: {}: too many files for an SDK: opkit keeps at most {} of one wheel",
         escape_text(stats.source), escape_text(entry.path), k_max_sdk_files);
  }
  stdfs::path dest = root / plan.dest;
  fs::create_dirs(dest.parent_path());
  int mode = plan.kind == EntryKind::framework_library ? 0755 : 0644;
  // O_NOFOLLOW: the staging folder is ours, but never write through a link.
  // Closed however this ends: entry.read throws on a damaged entry, and each
  // descriptor leaked so was one fewer for the next import in the process.
  UniqueFd fd{::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)};
  if (!fd.valid()) {
    fail(ExitCode::system, "{}: cannot create: {}", dest, std::strerror(errno));
  }
  Sha256Hasher hasher;
  char buffer[1 << 16];
  size_t n = 0;
  uint64_t written = 0;
  while ((n = entry.read(buffer, sizeof buffer)) > 0) {
    if (n > budget - written) {
      fail_too_large(stats, entry);
    }
    fs::write_all(fd.get(), std::string_view(buffer, n), dest);
    hasher.update(buffer, n);
    written += n;
  }
  if (!transient) {
    stats.bytes += written;
  }
  stats.headers += plan.kind == EntryKind::header ? 1 : 0;
  stats.libraries += plan.kind == EntryKind::framework_library ? 1 : 0;
  return hasher.finish();
}

const size_t k_max_record = 64 << 20; // 2.10.1's RECORD: 1.2 MB

std::string
read_record(const stdfs::path& wheel, ArchiveEntry& entry)
{
  std::string text;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = entry.read(buffer, sizeof buffer)) > 0) {
    if (text.size() + n > k_max_record) {
      fail(ExitCode::usage, "{}: {}: larger than opkit reads ({} MiB)", wheel, entry.path, k_max_record >> 20);
    }
    text.append(buffer, n);
  }
  return text;
}

// Streams the wheel, writing what it keeps; the RECORD check is the caller's,
// once it knows the archive is a TensorFlow wheel at all.
void
import_archive(const stdfs::path& wheel, const stdfs::path& root, ImportStats& stats, RecordCheck& record,
               bool process_libraries)
{
  std::string record_text;
  std::string record_dist_info;
  std::set<std::string> metadata_dist_infos;
  ImportProgress progress(wheel);
  for_each_archive_entry(wheel, [&](ArchiveEntry& entry) {
    progress.entry(static_cast<uint64_t>(std::max<int64_t>(entry.size, 0)), stats.bytes);
    if (entry.is_regular && is_record_path(entry.path)) {
      record_text = read_record(wheel, entry);
      record_dist_info = archive_path_parts(entry.path).front();
      record.set_record(record_text);
      return;
    }
    EntryPlan plan = classify_entry(entry.path);
    if (plan.kind == EntryKind::process_library && !process_libraries) {
      return;
    }
    if (plan.kind != EntryKind::skip && entry.is_regular) {
      if (plan.kind == EntryKind::metadata || plan.kind == EntryKind::wheel_info) {
        metadata_dist_infos.insert(archive_path_parts(entry.path).front());
      }
      record.add(entry.path, write_entry(root, plan, entry, stats));
    }
  });
  progress.finish();
  // The distribution is the one whose RECORD lists the framework; metadata
  // from any other dist-info (a sibling's) is not the SDK's.
  bool owned = dist_info_owns_framework(record_text, "");
  if (!record_text.empty() && !metadata_dist_infos.empty()
      && (!owned || metadata_dist_infos != std::set<std::string>{record_dist_info})) {
    log_warning("{}: its dist-info metadata is not the framework's own; its distribution is unknown", wheel);
    std::error_code ec;
    stdfs::remove_all(root / "dist-info", ec);
  }
}

ArchiveEntry
file_entry(const stdfs::path& path, std::ifstream& in)
{
  ArchiveEntry entry;
  entry.path = path.string();
  entry.is_regular = true;
  entry.read = [&in](char* buffer, size_t capacity) -> size_t {
    in.read(buffer, static_cast<std::streamsize>(capacity));
    return static_cast<size_t>(in.gcount());
  };
  return entry;
}

void
import_file(const stdfs::path& file, const std::string& relative, const stdfs::path& root, ImportStats& stats)
{
  EntryPlan plan = classify_entry(relative);
  if (plan.kind == EntryKind::skip) {
    return;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    fail(ExitCode::system, "{}: cannot read: {}", file, std::strerror(errno));
  }
  ArchiveEntry entry = file_entry(relative, in);
  write_entry(root, plan, entry, stats);
}

// An installed package folder (site-packages/tensorflow): paths are taken
// relative to its parent so they classify like wheel entries; the sibling
// *.dist-info supplies the metadata.
void
import_folder(const stdfs::path& folder, const stdfs::path& root, ImportStats& stats)
{
  stdfs::path base = stdfs::absolute(folder).lexically_normal();
  if (base.filename().empty()) {
    base = base.parent_path();
  }
  stdfs::path parent = base.parent_path();
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(base, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) {
      import_file(it->path(), it->path().lexically_relative(parent).string(), root, stats);
    }
  }
  // Only the distribution that owns the framework, never a sibling such as
  // tensorflow_io_gcs_filesystem-*.dist-info.
  stdfs::path owner = find_framework_dist_info(parent);
  if (owner.empty()) {
    log_warning("{}: no *.dist-info beside it owns the framework; its distribution is unknown", base);
    return;
  }
  for (const char* file : {"METADATA", "WHEEL"}) {
    if (stdfs::is_regular_file(owner / file, ec)) {
      import_file(owner / file, owner.filename().string() + "/" + file, root, stats);
    }
  }
}

std::string
read_small(const stdfs::path& path)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(path, ec) || stdfs::file_size(path, ec) > k_max_record) {
    return {};
  }
  return fs::read_file(path);
}

// RECORD's first field: the path, quoted when it holds a comma.
std::string
record_path(const std::string& line)
{
  if (starts_with(line, "\"")) {
    size_t end = line.find('"', 1);
    return line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
  }
  return line.substr(0, line.find(','));
}

bool
owns_path(const std::vector<std::string>& parts)
{
  size_t n = parts.size();
  bool init =
    n >= 2 && parts[n - 1] == "__init__.py" && is_package_dir(parts[n - 2])
    && (n == 2 || (n == 4 && ends_with(parts[0], ".data") && (parts[1] == "purelib" || parts[1] == "platlib")));
  return init || classify_parts(parts).kind == EntryKind::framework_library;
}

} // namespace

std::vector<std::string>
archive_path_parts(std::string_view path)
{
  std::vector<std::string> parts;
  for (const std::string& part : split(path, '/')) {
    if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
  }
  return parts;
}

bool
dist_info_owns_framework(std::string_view record, std::string_view top_level)
{
  for (const std::string& line : split(top_level, '\n')) {
    if (is_package_dir(trim(line))) {
      return true;
    }
  }
  for (const std::string& line : split(record, '\n')) {
    if (owns_path(archive_path_parts(record_path(line)))) {
      return true;
    }
  }
  return false;
}

stdfs::path
find_framework_dist_info(const stdfs::path& site_packages)
{
  std::vector<stdfs::path> dist_infos;
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(site_packages, ec)) {
    if (ends_with(entry.path().filename().string(), ".dist-info") && entry.is_directory(ec)) {
      dist_infos.push_back(entry.path());
    }
  }
  std::sort(dist_infos.begin(), dist_infos.end());
  for (const stdfs::path& dist_info : dist_infos) {
    if (dist_info_owns_framework(read_small(dist_info / "RECORD"), read_small(dist_info / "top_level.txt"))) {
      return dist_info;
    }
  }
  return {};
}

// What a kept entry's name may be: NAME_MAX a part, and a bound on the whole
// that leaves room for the store's own path within PATH_MAX.
constexpr size_t k_max_name_part = 255;
constexpr size_t k_max_kept_path = 1024;
// How much of an untrusted entry name an error line shows.
constexpr size_t k_max_shown_entry = 200;

EntryPlan
classify_entry(std::string_view path)
{
  EntryPlan plan = classify_parts(archive_path_parts(path));
  if (plan.kind == EntryKind::skip) {
    return plan;
  }
  if (!fs::stays_inside(plan.dest)) {
    fail(ExitCode::usage, "archive entry '{}' would be written outside the SDK folder; refusing the archive",
         escape_clipped(path, k_max_shown_entry));
  }
  // A name no file system holds would fail at create, as if the disk had
  // failed (exit 4); TensorFlow's longest kept path is about 200 bytes.
  size_t longest_part = 0;
  for (const stdfs::path& part : stdfs::path(plan.dest)) {
    longest_part = std::max(longest_part, part.native().size());
  }
  if (longest_part > k_max_name_part || plan.dest.size() > k_max_kept_path) {
    fail(ExitCode::usage,
         "archive entry '{}' ({} bytes): a name longer than opkit keeps ({} bytes a part, {} in all); refusing the "
         "archive",
         escape_clipped(path, k_max_shown_entry), path.size(), k_max_name_part, k_max_kept_path);
  }
  // A kept file's path is plain: a '.' or '..' part (tensorflow/include/a/..)
  // names a folder or another file, never a file of its own.
  for (const stdfs::path& part : stdfs::path(plan.dest)) {
    if (part == "." || part == "..") {
      fail(ExitCode::usage, "archive entry '{}': a path with '{}' in it names no file of its own; refusing the archive",
           escape_clipped(path, k_max_shown_entry), part.string());
    }
  }
  return plan;
}

// The libraries `import tensorflow` loads, staged under process/: each
// becomes symbols/<name>.idx (what check counts in TF's Python process) and
// the file itself goes.
void
index_process_libraries(const stdfs::path& root)
{
  std::error_code ec;
  if (!stdfs::is_directory(root / "process", ec)) {
    return;
  }
  for (const stdfs::directory_entry& file : stdfs::directory_iterator(root / "process")) {
    stdfs::path name = file.path().filename();
    try {
      elf::write_symbol_index(file.path(), root / "symbols" / (name.string() + ".idx"));
    } catch (const Error& error) {
      log_warning("{}: not indexed ({}); check will not count its symbols", name.string(), error.what());
    }
  }
  stdfs::remove_all(root / "process", ec);
}

Sdk
import_sdk(const stdfs::path& source, bool process_libraries)
{
  bool folder = fs::require_input(source, "wheel or folder") == fs::InputKind::folder;
  std::error_code ec;
  stdfs::path store = sdk_store_dir();
  fs::StagingDir staging(store);
  ImportStats stats;
  stats.source = source.string();
  log_info("importing {} ...", source);
  RecordCheck record(source.string());
  Sdk sdk;
  // An error names the file as the wheel holds it, not in the hidden staging folder.
  staging.fill(source.string() + ": ", [&] {
    if (folder) {
      import_folder(source, staging.path(), stats);
    } else {
      import_archive(source, staging.path(), stats, record, process_libraries);
    }
    std::string framework = staged_framework(staging.path());
    if (framework.empty()
        && (stats.libraries == 0 || !stdfs::exists(staging.path() / "include/tensorflow/core/framework/op.h", ec))) {
      fail(ExitCode::usage, "{}: not a TensorFlow wheel or package: it lacks {}", source,
           stats.libraries == 0 ? "libtensorflow_framework.so*" : "include/tensorflow/core/framework/op.h");
    }
    if (!framework.empty() && framework != "torch") {
      fail(ExitCode::usage, "{}: a {} wheel, whose facts opkit cannot read yet", source, framework);
    }
    if (!folder) {
      record.verify(); // before anything reads the files
    }
    sdk = framework.empty() ? derive_facts(staging.path(), stdfs::absolute(source).string())
                            : derive_torch_facts(staging.path(), stdfs::absolute(source).string());
    // The id comes from the wheel's own files: it must name a folder right under the store.
    if (!is_valid_sdk_id(sdk.id) || (store / sdk.id).parent_path() != store) {
      fail(ExitCode::usage, "{}: its SDK id '{}' is not a plain folder name; refusing the wheel", source,
           escape_text(sdk.id));
    }
    sdk.root = staging.path();
    elf::write_symbol_index(sdk.lib_dir() / sdk.framework_library, sdk.symbol_index());
    index_process_libraries(staging.path());
    sdk.root = store / sdk.id;
    fs::write_file_atomic(staging.path() / "sdk.json", json_text(to_json(sdk), 2) + "\n");
  });
  fs::FileLock lock(store_lock_path()); // one commit into the store at a time
  staging.commit(sdk.root, /*replace=*/true);
  drop_stale_pchs(sdk.id); // keyed by the sdk.json just replaced
  log_info("imported {}: {} headers, {} framework librar{}, {:.1f} MB", sdk.id, stats.headers, stats.libraries,
           stats.libraries == 1 ? "y" : "ies", static_cast<double>(stats.bytes) / 1e6);
  for (const std::string& warning : sdk.warnings) {
    log_warning("{}: {}", sdk.id, warning);
  }
  return sdk;
}

} // namespace opkit::sdk
