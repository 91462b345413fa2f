#include "opkit/package/wheel.hpp"

#include "opkit/package/package.hpp"
#include "opkit/package/wheel_tag.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/sdk/interpreter.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>
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

// What to do without python/<name>_ops.py: a template that writes none says
// so (easyrec-layer's ops ship through its layer and `package easyrec`).
std::string
missing_wrapper_hint(const project::Manifest& manifest)
{
  const std::string own = "an adopted tree with its own Python package names it in opkit.yaml (`package: <folder>`, "
                          "as `opkit init` writes it), and `package wheel` packs that package instead";
  std::optional<project::TemplateSpec> spec;
  try {
    spec = manifest.template_name.empty() ? std::nullopt
                                          : std::optional(project::load_template_spec(manifest.template_name));
  } catch (const Error&) {
    return own; // a template this opkit does not have
  }
  if (!spec || std::any_of(spec->files.begin(), spec->files.end(), [](const project::TemplateFile& file) {
        return ends_with(file.dest, "_ops.py");
      })) {
    return own;
  }
  std::string packages = spec->easyrec ? ": its ops ship with `opkit package easyrec`" : "";
  return fmt::format("the {} template writes no Python wrapper{}; for a wheel, write python/{}_ops.py, which "
                     "loads the library from the package's folder",
                     manifest.template_name, packages, manifest.name);
}

} // namespace

stdfs::path
require_wrapper(const project::Manifest& manifest)
{
  stdfs::path wrapper = manifest.root / "python" / (manifest.name + "_ops.py");
  std::error_code ec;
  if (!stdfs::is_regular_file(wrapper, ec)) {
    throw Error(ExitCode::usage, fmt::format("{}: the Python wrapper is missing", wrapper),
                missing_wrapper_hint(manifest));
  }
  return wrapper;
}

namespace {

std::vector<ArchiveMember>
package_members(const project::Manifest& manifest, const std::vector<BuiltLibrary>& built,
                std::vector<std::pair<std::string, Json>>& libraries, WheelResult& result)
{
  stdfs::path wrapper = require_wrapper(manifest);
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

// The package's own Python files (<root>/<package>/**/*.py), as the wheel
// holds them; links and caches are not the package's.
std::vector<ArchiveMember>
package_sources(const stdfs::path& root, const std::string& package)
{
  stdfs::path folder = root / package;
  std::error_code ec;
  if (!stdfs::is_regular_file(folder / "__init__.py", ec) || stdfs::is_symlink(folder, ec)) {
    throw Error(
      ExitCode::usage,
      fmt::format("{}: no package folder with an __init__.py, which the modules' python_module names", folder),
      fmt::format("the package {} lives in {}/ beside opkit.yaml, as setup.py's packages", package, package));
  }
  const size_t k_max_files = 10000;
  std::vector<ArchiveMember> members;
  stdfs::recursive_directory_iterator it(folder, stdfs::directory_options::none, ec);
  for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_symlink(ec) || name == "__pycache__" || name[0] == '.') {
      if (it->is_directory(ec)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (it->is_regular_file(ec) && ends_with(name, ".py")) {
      if (members.size() == k_max_files) {
        fail(ExitCode::usage, "{}: more than {} Python files: not a package opkit packs", folder, k_max_files);
      }
      members.push_back({it->path().lexically_relative(root).generic_string(), it->path(), {}, false});
    }
  }
  return members;
}

// Where the package imports a library: a module by its dotted name
// (extension_cpp/_C.cpython-310-x86_64-linux-gnu.so), a plain library in the package's folder.
std::string
library_place(const project::Manifest& manifest, const BuiltLibrary& built)
{
  const project::LibrarySpec* library = manifest.select_libraries({built.name}).front();
  if (library->python_module.empty()) {
    return own_package(manifest) + "/" + built.path.filename().string();
  }
  size_t last = library->python_module.rfind('.');
  if (last == std::string::npos) {
    return built.path.filename().string(); // a top-level module: beside the package
  }
  std::string folder = library->python_module.substr(0, last);
  std::replace(folder.begin(), folder.end(), '.', '/');
  return folder + "/" + built.path.filename().string();
}

// The distribution a release's wheels require: the CUDA or CPU build's project.
std::string
distribution_of(const sdk::Sdk& sdk)
{
  project::FrameworkFlags flags = project::FrameworkTable::get(sdk.framework).flags_for(sdk.version);
  return sdk.cuda.is_cuda_build || flags.cpu_distribution.empty() ? flags.gpu_distribution : flags.cpu_distribution;
}

// What distinguishes one wheel's dist-info: its version, tags and requirement.
struct WheelLabel
{
  std::string version;
  std::string python_tag = "py3";
  std::string abi_tag = "none";
  std::string requirement;
  std::string summary;
  std::string top_level;
};

// Adds the dist-info to `members` and writes the wheel (unless dry_run).
WheelResult
finish_wheel(const project::Manifest& manifest, const WheelOptions& options, const std::vector<BuiltLibrary>& built,
             std::vector<ArchiveMember> members, const std::vector<std::pair<std::string, Json>>& libraries,
             const WheelLabel& label, WheelResult result)
{
  result.requirement = label.requirement;
  std::string dist_info = manifest.name + "-" + label.version + ".dist-info";
  result.platform = wheel_platform_tag(built, machine());
  std::string tag = label.python_tag + "-" + label.abi_tag + "-" + result.platform.tag;
  members.push_back(
    {dist_info + "/METADATA",
     {},
     fmt::format("Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\n{}", manifest.name, label.version,
                 label.summary, label.requirement.empty() ? "" : "Requires-Dist: " + label.requirement + "\n"),
     false});
  // Root-Is-Purelib false: the libraries are platform code, so pip installs into platlib.
  members.push_back(
    {dist_info + "/WHEEL",
     {},
     fmt::format("Wheel-Version: 1.0\nGenerator: opkit {}\nRoot-Is-Purelib: false\nTag: {}\n", OPKIT_VERSION, tag),
     false});
  members.push_back({dist_info + "/top_level.txt", {}, label.top_level + "\n", false});
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
  result.file = out_dir / fmt::format("{}-{}-{}.whl", manifest.name, label.version, tag);
  result.members = packed_files(members);
  if (options.dry_run) {
    return result;
  }
  fs::create_dirs(out_dir);
  result.written = true;
  write_archive(result.file, ArchiveFormat::zip, std::move(members), source_date_epoch(manifest.root));
  return result;
}

// One requirement line: printable, or a METADATA header could be injected.
void
check_requirement(const std::string& requirement)
{
  bool one_line = requirement.size() <= 512 && !has_control(requirement);
  if (!one_line) {
    fail(ExitCode::usage,
         "--requires '{}': a requirement is one line of printable text (PEP 508, e.g. 'tensorflow>=2.10,<2.11')",
         escape_text(requirement.substr(0, 120)));
  }
}

} // namespace

std::string
own_package(const project::Manifest& manifest)
{
  std::string package = manifest.package;
  for (const project::LibrarySpec& library : manifest.libraries) {
    size_t dot = library.python_module.find('.');
    if (dot == std::string::npos) {
      continue; // no module, or a top-level one: no package
    }
    std::string first = library.python_module.substr(0, dot);
    if (!package.empty() && first != package) {
      fail(ExitCode::usage, "{}: the libraries belong to two Python packages ({} and {}): a wheel holds one",
           manifest.root / "opkit.yaml", package, first);
    }
    package = first;
  }
  return package;
}

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
  // No TensorFlow requirement unless asked: see docs/packaging.md (`opkit package wheel`).
  check_requirement(options.requirement);
  WheelResult result;
  std::vector<std::pair<std::string, Json>> libraries;
  std::vector<ArchiveMember> members = package_members(manifest, built, libraries, result);
  std::vector<std::string> built_versions;
  built_versions.reserve(built.size());
  for (const BuiltLibrary& library : built) {
    built_versions.push_back(library.version());
  }
  const std::string& framework = project::FrameworkTable::get(manifest.framework).display_name();
  WheelLabel label;
  label.version = manifest.version;
  label.requirement = options.requirement;
  label.summary = fmt::format("The {} {} op, built by opkit for {} {}", manifest.primary_op().name, framework,
                              framework, join(built_versions, ", "));
  label.top_level = manifest.name;
  return finish_wheel(manifest, options, built, std::move(members), libraries, label, result);
}

std::vector<WheelResult>
package_own_wheels(const project::Manifest& manifest, const WheelOptions& options)
{
  check_requirement(options.requirement);
  std::string package = own_package(manifest);
  std::vector<ArchiveMember> sources = package_sources(manifest.root, package);
  const project::FrameworkTable& table = project::FrameworkTable::get(manifest.framework);
  // One wheel per release and Python: each carries the library files the package imports, by their own names.
  std::map<std::pair<std::string, std::string>, std::vector<BuiltLibrary>> groups;
  for (const BuiltLibrary& library : collect_built(manifest, options.tf_specs, options.build_root)) {
    groups[{library.version(), library.python}].push_back(library);
  }
  std::vector<WheelResult> results;
  for (const auto& [key, built] : groups) {
    const auto& [version, python] = key;
    WheelResult result;
    std::vector<ArchiveMember> members = sources;
    std::vector<std::pair<std::string, Json>> libraries;
    for (const BuiltLibrary& library : built) {
      std::string path = library_place(manifest, library);
      members.push_back({path, library.path, {}, true});
      libraries.emplace_back(path, library.facts);
      result.libraries.push_back(path);
    }
    WheelLabel label;
    // A local version label per release (as torch's own "+cu124"): one file name per release.
    label.version = manifest.version + "+" + table.short_name() + version;
    if (!python.empty()) {
      label.python_tag = label.abi_tag = sdk::cpython_tag(python);
    }
    label.requirement =
      options.requirement.empty() ? distribution_of(built.front().sdk) + "==" + version : options.requirement;
    label.summary =
      fmt::format("{} ({}), built by opkit for {} {}", manifest.name, package, table.display_name(), version);
    label.top_level = package;
    results.push_back(finish_wheel(manifest, options, built, std::move(members), libraries, label, result));
  }
  return results;
}

} // namespace opkit::package
