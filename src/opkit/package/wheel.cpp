#include "opkit/package/wheel.hpp"

#include "opkit/package/package.hpp"
#include "opkit/package/wheel_tag.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <set>

#include <sys/utsname.h>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

std::string
machine()
{
  utsname name{};
  ::uname(&name);
  return name.machine;
}

// The package's __init__.py (templates/wheel/, the framework table's
// `wheel_init`): it refuses, with the versions the wheel carries, a framework
// release it carries no library for.
std::string
render_init(const project::Manifest& manifest, const std::vector<BuiltLibrary>& built)
{
  std::set<std::string> versions;
  for (const BuiltLibrary& lib : built) {
    versions.insert(lib.version());
  }
  std::string carried;
  for (const std::string& version : versions) {
    carried += fmt::format("\"{}\", ", version);
  }
  const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
  std::string text(require_embedded("templates/wheel/" + table.wheel_init()));
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"{{op_name}}", manifest.primary_op().name},
                                                        {"{{name}}", manifest.name},
                                                        {"{{version}}", manifest.version},
                                                        {"{{carried}}", carried.substr(0, carried.size() - 1)}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

std::string
record_line(const ArchiveMember& member)
{
  Sha256Digest digest = member.source.empty() ? sha256_digest(member.content) : sha256_digest_file(member.source);
  size_t size = member.source.empty() ? member.content.size() : stdfs::file_size(member.source);
  return fmt::format("{},{},{}\n", member.path, record_hash(to_base64(digest)), size);
}

std::vector<ArchiveMember>
package_members(const project::Manifest& manifest, const std::vector<BuiltLibrary>& built,
                std::vector<std::pair<std::string, Json>>& libraries, WheelResult& result)
{
  stdfs::path wrapper = manifest.root / "python" / (manifest.name + "_ops.py");
  std::error_code ec;
  if (!stdfs::is_regular_file(wrapper, ec)) {
    fail(ExitCode::usage, "{}: the Python wrapper is missing", wrapper);
  }
  std::string pkg = manifest.name;
  std::vector<ArchiveMember> members = {
    {pkg + "/__init__.py", {}, render_init(manifest, built), false},
    {pkg + "/" + pkg + "_ops.py", wrapper, {}, false},
  };
  const std::string& prefix = project::FrameworkTable::get(manifest.framework).short_name(); // tf-2.10.1/
  for (const BuiltLibrary& lib : built) {
    std::string path = pkg + "/" + prefix + "-" + lib.version() + "/" + lib.path.filename().string();
    members.push_back({path, lib.path, {}, true});
    libraries.emplace_back(path, lib.facts);
    result.libraries.push_back(path);
  }
  return members;
}

} // namespace

std::string
record_hash(const std::string& sha256_base64)
{
  std::string text = sha256_base64;
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  text.erase(std::find(text.begin(), text.end(), '='), text.end());
  return "sha256=" + text;
}

WheelResult
package_wheel(const project::Manifest& manifest, const WheelOptions& options)
{
  std::vector<BuiltLibrary> built = collect_built(manifest, options.tf_specs, options.build_root);
  WheelResult result;
  // No TensorFlow requirement unless asked: see docs/packaging.md (`opkit package wheel`).
  result.requirement = options.requirement;
  // It becomes a METADATA header line: one line of printable text, or a header could be injected.
  bool one_line = result.requirement.size() <= 512 && !has_control(result.requirement);
  if (!one_line) {
    fail(ExitCode::usage,
         "--requires '{}': a requirement is one line of printable text (PEP 508, e.g. 'tensorflow>=2.10,<2.11')",
         escape_text(result.requirement.substr(0, 120)));
  }
  std::vector<std::pair<std::string, Json>> libraries;
  std::vector<ArchiveMember> members = package_members(manifest, built, libraries, result);

  std::string dist_info = manifest.name + "-" + manifest.version + ".dist-info";
  result.platform = wheel_platform_tag(built, machine());
  std::string tag = "py3-none-" + result.platform.tag;
  std::vector<std::string> built_versions;
  built_versions.reserve(built.size());
  for (const BuiltLibrary& library : built) {
    built_versions.push_back(library.version());
  }
  const std::string& framework = project::FrameworkTable::get(manifest.framework).display_name();
  members.push_back({dist_info + "/METADATA",
                     {},
                     fmt::format("Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: The {} {} op, "
                                 "built by opkit for {} {}\n{}",
                                 manifest.name, manifest.version, manifest.primary_op().name, framework, framework,
                                 join(built_versions, ", "),
                                 result.requirement.empty() ? "" : "Requires-Dist: " + result.requirement + "\n"),
                     false});
  // Root-Is-Purelib false: the libraries are platform code, so pip installs into platlib.
  members.push_back(
    {dist_info + "/WHEEL",
     {},
     fmt::format("Wheel-Version: 1.0\nGenerator: opkit {}\nRoot-Is-Purelib: false\nTag: {}\n", OPKIT_VERSION, tag),
     false});
  members.push_back({dist_info + "/top_level.txt", {}, manifest.name + "\n", false});
  Json manifest_json = make_manifest("wheel", manifest.name, members, libraries);
  members.push_back({dist_info + "/" + k_manifest_name, {}, json_text(manifest_json, 2) + "\n", false});

  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  std::string record;
  for (const ArchiveMember& member : members) {
    record += record_line(member);
  }
  record += dist_info + "/RECORD,,\n";
  members.push_back({dist_info + "/RECORD", {}, record, false});

  stdfs::path out_dir = output_folder(manifest, options.output_dir);
  result.file = out_dir / fmt::format("{}-{}-{}.whl", manifest.name, manifest.version, tag);
  result.members = packed_files(members);
  if (options.dry_run) {
    return result;
  }
  fs::create_dirs(out_dir);
  result.written = true;
  write_archive(result.file, ArchiveFormat::zip, std::move(members), source_date_epoch(manifest.root));
  return result;
}

} // namespace opkit::package
