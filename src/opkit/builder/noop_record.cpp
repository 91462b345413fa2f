#include "opkit/builder/noop_record.hpp"

#include "opkit/project/manifest.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/folder.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>

#include <sys/stat.h>

extern char** environ; // NOLINT: POSIX names it so

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

// The first line of a record: "opkit.noop/2 <sha256 of the rest>"; the rest is the JSON.
const char* const k_noop_schema = "opkit.noop/2";
// A record larger than this is refused unread: damaged, or not opkit's.
constexpr size_t k_max_record_bytes = 16 << 20;
const char* const k_records_folder = ".opkit-noop";
// A project with more folders than this is not kept: stamping them would cost
// more than the no-op it saves.
constexpr size_t k_max_folders = 2000;
// A file changed within this many seconds of the call's start may have changed
// after ninja looked at it, in the same mtime tick: such a no-op is not kept.
constexpr double k_racy_seconds = 1.0;
// The records a build folder keeps, newest first.
constexpr size_t k_kept_records = 16;

double
now_seconds()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The environment, in its order, each variable ended by a NUL (a value may
// hold newlines), less what a shell changes between two identical commands
// ($_ is the last command's path, $OLDPWD the last folder).
std::string
environment_text()
{
  std::string text;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view variable(*entry);
    if (starts_with(variable, "_=") || starts_with(variable, "OLDPWD=")) {
      continue;
    }
    text.append(variable);
    text += '\0';
  }
  return text;
}

// The path a ninja tool printed, relative to the build folder or absolute.
stdfs::path
from_build_root(const stdfs::path& build_root, std::string_view line)
{
  stdfs::path path{std::string(trim(line))};
  return path.is_absolute() ? path : (build_root / path).lexically_normal();
}

// Every input ninja knows for the build folder's targets: `-t inputs` (sources,
// archives, objects) and `-t deps` (the headers each compile read). nullopt when
// ninja cannot say, or its deps log has a stale entry (ninja would work then).
std::optional<std::vector<stdfs::path>>
ninja_inputs(const stdfs::path& build_root)
{
  ProcessOptions options;
  options.cwd = build_root;
  std::vector<stdfs::path> paths;
  ProcessResult inputs = run_process({"ninja", "-t", "inputs"}, options);
  ProcessResult deps = run_process({"ninja", "-t", "deps"}, options);
  if (inputs.exit_code != 0 || deps.exit_code != 0) {
    log_debug("build: ninja cannot list the inputs of {}: the no-op is not kept", build_root.string());
    return std::nullopt;
  }
  for (const std::string& line : split(inputs.out, '\n')) {
    if (!trim(line).empty()) {
      paths.push_back(from_build_root(build_root, line));
    }
  }
  for (const std::string& line : split(deps.out, '\n')) {
    if (starts_with(line, "    ")) {
      paths.push_back(from_build_root(build_root, line));
    } else if (!trim(line).empty() && line.find("(VALID)") == std::string::npos) {
      log_debug("build: ninja's deps log is stale for {}: the no-op is not kept", line);
      return std::nullopt;
    }
  }
  return paths;
}

// `root` and every folder below it, less hidden ones and `skip`; nullopt past k_max_folders.
std::optional<std::vector<stdfs::path>>
folders_below(const stdfs::path& root, const stdfs::path& skip)
{
  std::vector<stdfs::path> folders{root};
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(root, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) {
      continue;
    }
    if (starts_with(it->path().filename().string(), ".") || it->path() == skip) {
      it.disable_recursion_pending();
      continue;
    }
    folders.push_back(it->path());
    if (folders.size() > k_max_folders) {
      return std::nullopt;
    }
  }
  return folders;
}

// Every file in a target's folder (its objects, libraries, kept verdicts), less
// the logs every build rewrites (build.log, ccache's stats log).
void
add_tree(const stdfs::path& dir, std::vector<stdfs::path>& paths)
{
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(dir, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && name != "build.log" && name != "ccache-stats.log") {
      paths.push_back(it->path());
    }
  }
}

// The stamp of `path` as fs::file_stamp writes it; false when it changed within
// k_racy_seconds before `started` or later.
bool
settled_stamp(const stdfs::path& path, double started, std::string& stamp)
{
  stamp = fs::file_stamp(path);
  struct stat st
  {};
  if (::stat(path.c_str(), &st) != 0) { // followed, as file_stamp follows it
    return true;                        // absent, and its absence is what is kept
  }
  double changed = static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
  return changed < started - k_racy_seconds;
}

// Whether `name` is a record's: 16 hex digits and ".json", as noop_call names them.
bool
is_record_name(std::string_view name)
{
  return name.size() == 21 && ends_with(name, ".json")
         && name.substr(0, 16).find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// Keeps the k_kept_records newest records of a build folder: each call (an
// environment that changed, another flag) has its own, and old ones go. Only
// regular files named as records are counted or removed.
void
prune_records(const fs::Folder& dir)
{
  std::vector<std::pair<long long, std::string>> records;
  for (const std::string& name : dir.regular_files()) {
    if (is_record_name(name)) {
      records.emplace_back(dir.mtime_ns(name), name);
    }
  }
  if (records.size() <= k_kept_records) {
    return;
  }
  std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = k_kept_records; i < records.size(); ++i) {
    dir.remove_file(records[i].second);
  }
}

// The record's JSON when its first line's checksum holds; nullopt (with the
// reason, for -v) when it is damaged, too large or not a record.
std::optional<Json>
read_record(const fs::Folder& dir, const std::string& name, std::string& why)
{
  bool too_large = false;
  std::optional<std::string> text = dir.read(name, k_max_record_bytes, &too_large);
  if (!text) {
    why = too_large ? "larger than a record can be" : "none";
    return std::nullopt;
  }
  size_t end = text->find('\n');
  std::string_view head = std::string_view(*text).substr(0, end);
  std::string_view body = end == std::string::npos ? std::string_view() : std::string_view(*text).substr(end + 1);
  if (head != fmt::format("{} {}", k_noop_schema, sha256_hex(body))) {
    why = "its checksum does not hold";
    return std::nullopt;
  }
  Json json = Json::parse(body, nullptr, false);
  if (!json.is_object()) {
    why = "not JSON";
    return std::nullopt;
  }
  return json;
}

// Text kept from an earlier call, as it may be printed again: each line escaped.
std::string
escaped_lines(const std::string& text)
{
  std::vector<std::string> lines = split(text, '\n');
  for (std::string& line : lines) {
    line = escape_text(line);
  }
  return join(lines, "\n");
}

} // namespace

std::optional<NoopCall>
noop_call(const stdfs::path& build_root)
{
  NoopCall call;
  call.started = now_seconds();
  std::error_code ec;
  stdfs::path cwd = stdfs::current_path(ec);
  if (ec) {
    return std::nullopt;
  }
  std::optional<stdfs::path> project = project::find_project_root(cwd);
  if (build_root.empty() && !project) {
    return std::nullopt;
  }
  stdfs::path root = project::build_root(project.value_or(cwd), build_root);
  // Only the digest is kept: the environment holds secrets (tokens, passwords).
  call.key = sha256_hex(fmt::format("{}\nopkit {}\ncwd {}\nbuild {}\nargv {}\n{}", k_noop_schema,
                                    fs::file_stamp("/proc/self/exe"), cwd.string(), root.string(),
                                    join(own_argv(), "\x1f"), environment_text()));
  call.build_root = root;
  call.record = root / k_records_folder / (call.key.substr(0, 16) + ".json");
  return call;
}

std::optional<NoopOutput>
replay_noop(const NoopCall& call)
{
  try {
    fs::Folder dir =
      fs::Folder::open(call.build_root, "build folder", false).child(k_records_folder, "kept no-ops", false);
    std::string why;
    std::optional<Json> json = read_record(dir, call.record.filename().string(), why);
    if (!json) {
      if (why != "none") {
        log_debug("build: kept no-op {} refused ({}): building", call.record.string(), why);
      }
      return std::nullopt;
    }
    if (json->at("key").get<std::string>() != call.key) {
      return std::nullopt;
    }
    const Json& stamps = json->at("stamps");
    if (!stamps.is_array() || stamps.empty()) {
      log_debug("build: kept no-op {} has no stamps: building", call.record.string());
      return std::nullopt;
    }
    for (const Json& entry : stamps) {
      const std::string& path = entry.at(0).get_ref<const std::string&>();
      if (fs::file_stamp(path) != entry.at(1).get_ref<const std::string&>()) {
        log_debug("build: {} changed since the last no-op: building", path);
        return std::nullopt;
      }
    }
    NoopOutput output{escaped_lines(json->at("printed").get<std::string>()), {}};
    for (const Json& note : json->at("notes")) {
      output.notes.push_back(escaped_lines(note.get<std::string>()));
    }
    log_debug("build: nothing changed since the no-op kept in {}", call.record.string());
    return output;
  } catch (const std::exception& error) {
    log_debug("build: kept no-op {} unreadable ({}): building", call.record.string(), error.what());
    return std::nullopt;
  }
}

void
record_noop(const NoopCall& call, const stdfs::path& build_root, const stdfs::path& project_root,
            const std::vector<stdfs::path>& watched, const std::vector<stdfs::path>& target_dirs,
            const NoopOutput& output)
{
  try {
    std::optional<std::vector<stdfs::path>> folders = folders_below(project_root, build_root);
    if (!folders) {
      log_debug("build: {} has over {} folders: the no-op is not kept", project_root.string(), k_max_folders);
      return;
    }
    std::optional<std::vector<stdfs::path>> inputs = ninja_inputs(build_root);
    if (!inputs) {
      return;
    }
    std::vector<stdfs::path> paths = watched;
    paths.insert(paths.end(), folders->begin(), folders->end());
    // The programs a plan finds (compilers, ccache, distcc, nvcc) and the
    // libraries a host check reads: a folder's stamp changes when one is added.
    const char* path_variable = std::getenv("PATH");
    for (const std::string& dir : split(path_variable != nullptr ? path_variable : "", ':')) {
      paths.emplace_back(dir);
    }
    paths.emplace_back("/etc/ld.so.cache");
    paths.push_back(settings::user_config_file(settings::Environment::real()).path);
    paths.push_back(build_root / "build.ninja");
    paths.push_back(build_root / "compile_commands.json");
    for (const stdfs::path& dir : target_dirs) {
      add_tree(dir, paths);
    }
    for (const stdfs::path& input : *inputs) {
      paths.push_back(input);
      paths.push_back(input.parent_path()); // a file added beside it (a source a glob will take)
    }
    std::set<std::string> seen;
    Json stamps = Json::array();
    for (const stdfs::path& path : paths) {
      if (path.empty() || !seen.insert(path.string()).second) {
        continue;
      }
      std::string stamp;
      if (!settled_stamp(path, call.started, stamp)) {
        log_debug("build: {} changed as the build began: the no-op is not kept", path.string());
        return;
      }
      stamps.push_back(Json::array({path.string(), stamp}));
    }
    Json json = {
      {"key", call.key}, {"printed", output.printed}, {"notes", output.notes}, {"stamps", std::move(stamps)}};
    std::string body = json_text(json, 1) + "\n";
    if (body.size() > k_max_record_bytes) {
      log_debug("build: the no-op's record would be {} bytes: not kept", body.size());
      return;
    }
    fs::Folder dir =
      fs::Folder::open(call.build_root, "build folder", false).child(k_records_folder, "kept no-ops", true);
    dir.write_atomic(call.record.filename().string(), fmt::format("{} {}\n{}", k_noop_schema, sha256_hex(body), body));
    prune_records(dir);
  } catch (const std::exception& error) {
    log_debug("build: the no-op could not be kept in {}: {}", call.record.string(), error.what());
  }
}

} // namespace opkit::builder
