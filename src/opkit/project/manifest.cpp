#include "opkit/project/manifest.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/project/cpu_baselines.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/names.hpp"
#include "opkit/project/op_yaml.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/version.hpp"
#include "opkit/project/yaml_util.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <tuple>

namespace opkit::project {

namespace {

const std::vector<std::string> k_setting_keys = {"include_dirs", "defines", "cflags", "ldflags", "libs", "compat"};

void
check_inside(const Node& node, const std::vector<std::string>& paths, const char* what, const std::string& name)
{
  for (const std::string& path : paths) {
    if (!fs::stays_inside(path)) {
      fail(ExitCode::usage, "{}: {} '{}' must be a path inside the project", yaml::where(name, node), what, path);
    }
  }
}

// A list of build values (sources, flags, defines): each becomes part of one
// line of build.ninja, so a newline or another control byte in one is refused
// where it is written ("opkit.yaml:7:14: define 'A=a\nb': ...").
std::vector<std::string>
build_values(const Node& node, const char* key, const char* what, const std::string& name)
{
  std::vector<std::string> values = yaml::get_string_list(node, key, name);
  std::vector<Node> items = yaml::get_list(node, key, name);
  for (size_t i = 0; i < values.size(); ++i) {
    if (has_control(values[i])) {
      fail(ExitCode::usage, "{}: {} '{}': a build value must be one line without control characters",
           yaml::where(name, items[i]), what, values[i]);
    }
  }
  return values;
}

// The settings of one block (sources only where `with_sources`); its `when:`
// condition is the caller's.
SettingsBlock
parse_settings(const Node& node, const std::string& name, bool with_sources)
{
  SettingsBlock block;
  if (with_sources) {
    block.sources = build_values(node, "sources", "source", name);
    check_inside(node["sources"], block.sources, "source", name);
  }
  block.include_dirs = build_values(node, "include_dirs", "include folder", name);
  for (const std::string& dir : block.include_dirs) {
    // Outside the project is allowed (a sibling checkout), but never absolute: the build must not depend on this
    // machine.
    if (std::filesystem::path(dir).is_absolute()) {
      fail(ExitCode::usage, "{}: include folder '{}' must be relative to the project",
           yaml::where(name, node["include_dirs"]), dir);
    }
  }
  block.defines = build_values(node, "defines", "define", name);
  for (const std::string& define : block.defines) {
    std::string macro = define.substr(0, define.find('='));
    bool ok =
      !macro.empty() && is_identifier_start(macro[0]) && std::all_of(macro.begin(), macro.end(), is_identifier_char);
    if (!ok) {
      fail(ExitCode::usage, "{}: define '{}' must be NAME or NAME=VALUE (without -D)",
           yaml::where(name, node["defines"]), define);
    }
  }
  block.cflags = build_values(node, "cflags", "cflag", name);
  block.ldflags = build_values(node, "ldflags", "ldflag", name);
  block.libs = build_values(node, "libs", "lib", name);
  block.compat = yaml::get_string_list(node, "compat", name);
  const std::map<std::string, std::string>& shims = adopt_rules().shims;
  for (const std::string& shim : block.compat) {
    if (shims.count(shim) == 0) {
      std::vector<std::string> known;
      for (const auto& entry : shims) {
        known.push_back(entry.first);
      }
      fail(ExitCode::usage, "{}: unknown compat shim '{}' (opkit has: {})", yaml::where(name, node["compat"]), shim,
           join(known, ", "));
    }
  }
  return block;
}

// A block's `when:` entries: [{tensorflow: "<2.4", device: gpu, defines: [...]}, ...]; the
// version key is the project's framework's name (tensorflow, torch).
void
parse_when(const Node& node, const std::string& name, bool with_sources, const std::string& framework,
           std::vector<SettingsBlock>& blocks)
{
  for (const Node& item : yaml::get_list(node, "when", name)) {
    std::vector<std::string> keys = k_setting_keys;
    keys.insert(keys.end(), {framework, "device"});
    if (with_sources) {
      keys.push_back("sources");
    }
    yaml::expect_keys(item, keys, name);
    SettingsBlock block = parse_settings(item, name, with_sources);
    std::string range = yaml::get_string_or(item, framework.c_str(), name, "");
    std::optional<VersionRange> parsed = parse_version_range(range);
    if (!parsed) {
      fail(ExitCode::usage, "{}: invalid version range '{}' (e.g. \"<2.4\" or \">=1.15,<2.4\")",
           yaml::where(name, item[framework]), range);
    }
    block.when.versions = *parsed;
    block.when.device = yaml::get_string_or(item, "device", name, "");
    if (!block.when.device.empty() && block.when.device != "cpu" && block.when.device != "gpu") {
      fail(ExitCode::usage, "{}: device must be cpu or gpu (the SDK's build), got '{}'",
           yaml::where(name, item["device"]), block.when.device);
    }
    blocks.push_back(block);
  }
}

std::string
library_name(const Node& node, const std::string& name)
{
  std::string library = yaml::get_string(node, "name", name);
  ProjectNames names;
  std::string problem = name_problem(library, &names);
  if (problem.empty() && names.snake != library) {
    problem = fmt::format("it must be snake_case (did you mean '{}'?)", names.snake);
  }
  if (!problem.empty()) {
    fail(ExitCode::usage, "{}: invalid library name '{}': {}", yaml::where(name, node["name"]), library, problem);
  }
  return library;
}

// python_module (or `key`): dotted Python identifiers ("extension_cpp._C"); "" when absent.
std::string
python_module_name(const Node& node, const std::string& name, const char* key = "python_module")
{
  std::string module = yaml::get_string_or(node, key, name, "");
  if (module.empty()) {
    return module;
  }
  for (const std::string& part : split(module, '.')) {
    bool identifier = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0]))
                      && std::all_of(part.begin(), part.end(),
                                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier) {
      fail(ExitCode::usage, "{}: {} '{}' must be a dotted Python module name, e.g. my_package._C",
           yaml::where(name, node[key]), key, module);
    }
  }
  return module;
}

LibrarySpec
parse_library(const Node& node, const std::string& name, const std::string& framework)
{
  yaml::expect_keys(node,
                    {"name", "output", framework, "device", "sources", "include_dirs", "defines", "cflags", "ldflags",
                     "libs", "compat", "when", "ops", "python_module", "functions"},
                    name);
  LibrarySpec library;
  library.name = library_name(node, name);
  library.python_module = python_module_name(node, name);
  std::string module_base = library.module_name();
  library.output = yaml::get_string_or(
    node, "output", name, library.python_module.empty() ? "lib" + library.name + ".so" : module_base + ".so");
  if (!library.python_module.empty() && library.output != module_base + ".so") {
    fail(ExitCode::usage,
         "{}: output '{}' of python_module {} must be {}.so (or left out): its file is named for each CPython, "
         "as {}.cpython-310-x86_64-linux-gnu.so",
         yaml::where(name, node["output"]), library.output, library.python_module, module_base, module_base);
  }
  if (library.output.find('/') != std::string::npos || library.output.empty() || library.output[0] == '.'
      || has_control(library.output)) {
    fail(ExitCode::usage, "{}: output '{}' must be a plain file name, e.g. _{}_ops.so",
         yaml::where(name, node["output"]), library.output, library.name);
  }
  std::string range = yaml::get_string_or(node, framework.c_str(), name, "");
  std::optional<VersionRange> parsed = parse_version_range(range);
  if (!parsed) {
    fail(ExitCode::usage, "{}: invalid version range '{}' (e.g. \">=2.4\")", yaml::where(name, node[framework]), range);
  }
  library.versions = *parsed;
  library.device = yaml::get_string_or(node, "device", name, "");
  if (!library.device.empty() && library.device != "gpu") {
    fail(ExitCode::usage, "{}: a library's device can only be gpu (its kernels are GPU kernels only), got '{}'",
         yaml::where(name, node["device"]), library.device);
  }
  library.settings.push_back(parse_settings(node, name, true));
  parse_when(node, name, true, framework, library.settings);
  bool any_source = std::any_of(library.settings.begin(), library.settings.end(),
                                [](const SettingsBlock& b) { return !b.sources.empty(); });
  if (!any_source) {
    fail(ExitCode::usage, "{}: library '{}' lists no sources", yaml::where(name, node), library.name);
  }
  for (const Node& op : yaml::get_list(node, "ops", name)) {
    library.ops.push_back(parse_op(op, name, framework));
  }
  for (const Node& item : yaml::get_list(node, "functions", name)) {
    if (library.python_module.empty() || framework != "torch") {
      fail(ExitCode::usage, "{}: functions: belong to a PyTorch library that is a Python module (python_module:)",
           yaml::where(name, item));
    }
    OpSpec function = parse_op(item, name, framework);
    if (function.name.substr(0, function.name.find("::")) != module_base || !function.kernels.empty()) {
      fail(ExitCode::usage,
           "{}: function '{}' of python_module {}: its schema is named {}::<function>, with no "
           "kernels",
           yaml::where(name, item), function.name, library.python_module, module_base);
    }
    library.functions.push_back(std::move(function));
  }
  return library;
}

// build: {cache, cache_remote, distcc_hosts} and the settings every library gets.
void
parse_build(const Node& build, const std::string& name, Manifest& manifest)
{
  std::vector<std::string> keys = k_setting_keys;
  keys.insert(keys.end(), {"cache", "cache_remote", "distcc_hosts", "when"});
  yaml::expect_keys(build, keys, name);
  CompileSharing& sharing = manifest.sharing;
  sharing.cache = yaml::get_string_or(build, "cache", name, "auto");
  if (sharing.cache != "auto" && sharing.cache != "on" && sharing.cache != "off") {
    fail(ExitCode::usage, "{}: build.cache must be auto, on or off, got '{}'", yaml::where(name, build["cache"]),
         sharing.cache);
  }
  sharing.cache_remote = yaml::get_string_or(build, "cache_remote", name, "");
  sharing.distcc_hosts = yaml::get_string_list(build, "distcc_hosts", name);
  manifest.settings.push_back(parse_settings(build, name, false));
  parse_when(build, name, false, manifest.framework, manifest.settings);
}

void
check_unique_names(const Manifest& manifest, const Node& doc, const std::string& name)
{
  std::vector<std::string> libraries;
  std::vector<std::string> outputs;
  std::vector<std::string> ops;
  for (const LibrarySpec& library : manifest.libraries) {
    for (auto [seen, value, what] : {std::tuple{&libraries, library.name, "library name"},
                                     std::tuple{&outputs, library.output, "library output"}}) {
      if (std::find(seen->begin(), seen->end(), value) != seen->end()) {
        fail(ExitCode::usage, "{}: {} '{}' appears twice", yaml::where(name, doc["libraries"]), what, value);
      }
      seen->push_back(value);
    }
    for (const OpSpec& op : library.ops) {
      if (std::find(ops.begin(), ops.end(), op.name) != ops.end()) {
        fail(ExitCode::usage, "{}: op '{}' is declared twice (the framework registers an op name once per process)",
             yaml::where(name, doc["libraries"]), op.name);
      }
      ops.push_back(op.name);
    }
  }
}

} // namespace

const std::vector<std::string>&
known_dtypes()
{
  return FrameworkTable::tensorflow().dtypes();
}

std::string
canonical_dtype(const std::string& spelling)
{
  return FrameworkTable::tensorflow().canonical_dtype(spelling);
}

Manifest
parse_manifest(const std::string& text, const std::string& name, const std::filesystem::path& root)
{
  Node doc = yaml::load(text, name);
  if (!doc.is_map()) {
    fail(ExitCode::usage, "{}: expected a mapping at the top level", yaml::where(name, doc));
  }
  yaml::expect_keys(
    doc,
    {"name", "version", "package", "template", "op", "sources", "when", "libraries", "targets", "build", "settings"},
    name);
  Manifest manifest;
  manifest.root = root;
  manifest.name = yaml::get_string(doc, "name", name);
  ProjectNames names;
  std::string problem = name_problem(manifest.name, &names);
  if (problem.empty() && names.snake != manifest.name) {
    problem = fmt::format("it must be snake_case (did you mean '{}'?)", names.snake);
  }
  if (!problem.empty()) {
    fail(ExitCode::usage, "{}: invalid project name '{}': {}", yaml::where(name, doc["name"]), manifest.name, problem);
  }
  manifest.template_name = yaml::get_string_or(doc, "template", name, "tensorflow-op");
  manifest.version = yaml::get_string_or(doc, "version", name, "0.1.0");
  manifest.package = yaml::get_string_or(doc, "package", name, "");
  if (!manifest.package.empty() && python_module_name(doc, name, "package").find('.') != std::string::npos) {
    fail(ExitCode::usage, "{}: package '{}' is the top-level Python package beside opkit.yaml: one name, no dots",
         yaml::where(name, doc["package"]), manifest.package);
  }
  std::optional<Version> own_version = parse_version(manifest.version);
  if (!own_version || !own_version->suffix.empty()) {
    fail(ExitCode::usage, "{}: version '{}' must be dotted numbers, e.g. 0.1.0", yaml::where(name, doc["version"]),
         manifest.version);
  }
  // Only a framework's op is compiled by opkit; the other kinds list their files for reference.
  TemplateSpec spec = load_template_spec(manifest.template_name);
  bool compiled = spec.kind == TemplateKind::compiled;
  manifest.framework = compiled ? spec.framework : "tensorflow";
  if (doc["libraries"].is_defined()) {
    for (const char* key : {"op", "sources", "when"}) {
      if (doc[key].is_defined()) {
        fail(ExitCode::usage, "{}: '{}' belongs inside a library when 'libraries' is given",
             yaml::where(name, doc[key]), key);
      }
    }
    for (const Node& item : yaml::get_list(doc, "libraries", name)) {
      manifest.libraries.push_back(parse_library(item, name, manifest.framework));
    }
    if (manifest.libraries.empty()) {
      fail(ExitCode::usage, "{}: 'libraries' must list at least one library", yaml::where(name, doc["libraries"]));
    }
  } else {
    if (!doc["op"].is_defined()) {
      fail(ExitCode::usage, "{}: missing required key 'op' (or 'libraries')", yaml::where(name, doc));
    }
    LibrarySpec library;
    library.name = manifest.name;
    library.output = "lib" + manifest.name + ".so";
    library.ops.push_back(parse_op(doc["op"], name, manifest.framework));
    SettingsBlock block;
    block.sources = build_values(doc, "sources", "source", name);
    check_inside(doc["sources"], block.sources, "source", name);
    if (compiled && block.sources.empty()) {
      fail(ExitCode::usage, "{}: 'sources' must list at least one file", yaml::where(name, doc));
    }
    library.settings.push_back(block);
    parse_when(doc, name, true, manifest.framework, library.settings); // e.g. device code only CUDA builds compile
    manifest.libraries.push_back(library);
  }
  check_unique_names(manifest, doc, name);
  Node targets = doc["targets"];
  if (targets.is_defined()) {
    yaml::expect_keys(targets, {manifest.framework, "runtime", "cpu"}, name);
    manifest.target_versions = yaml::get_string_list(targets, manifest.framework.c_str(), name);
    manifest.runtime = yaml::get_string_or(targets, "runtime", name, "");
    manifest.cpu = yaml::get_string_or(targets, "cpu", name, "");
    if (!manifest.cpu.empty() && manifest.cpu != "none") {
      bool known = false;
      std::vector<std::string> known_names = {"none"};
      for (const CpuBaseline& baseline : cpu_baselines()) {
        known = known || baseline.name == manifest.cpu;
        known_names.push_back(baseline.name);
      }
      if (!known) {
        fail(ExitCode::usage, "{}: unknown CPU baseline '{}' (known: {})", yaml::where(name, targets["cpu"]),
             manifest.cpu, join(known_names, ", "));
      }
    }
    for (const std::string& version : manifest.target_versions) {
      if (!parse_version(version) && !starts_with(version, manifest.framework + "-")) {
        fail(ExitCode::usage, "{}: invalid {} version '{}'", yaml::where(name, targets[manifest.framework]),
             FrameworkTable::get(manifest.framework).display_name(), version);
      }
    }
  }
  if (Node build = doc["build"]) {
    parse_build(build, name, manifest);
  }
  manifest.project_settings = parse_project_settings(doc, name);
  for (const SettingEntry& entry : manifest.project_settings) {
    CompileSharing& sharing = manifest.sharing;
    if (entry.key == "cache" || entry.key == "cache_remote" || entry.key == "distcc_hosts") {
      sharing.entries.push_back(entry);
    }
    if (entry.key == "cache") {
      sharing.cache = entry.value;
    } else if (entry.key == "cache_remote") {
      sharing.cache_remote = entry.value;
    } else if (entry.key == "distcc_hosts") {
      sharing.distcc_hosts.clear();
      for (const std::string& host : split(entry.value, ' ')) {
        if (!host.empty()) {
          sharing.distcc_hosts.push_back(host);
        }
      }
    }
  }
  return manifest;
}

const LibrarySpec&
Manifest::primary_library() const
{
  if (libraries.empty()) {
    fail(ExitCode::usage, "{}: opkit.yaml declares no library", root / "opkit.yaml");
  }
  return libraries.front();
}

const OpSpec&
Manifest::primary_op() const
{
  const LibrarySpec& library = primary_library();
  if (library.ops.empty()) {
    fail(ExitCode::usage, "{}: library '{}' declares no op", root / "opkit.yaml", library.name);
  }
  return library.ops.front();
}

std::vector<const LibrarySpec*>
Manifest::select_libraries(const std::vector<std::string>& names) const
{
  std::vector<const LibrarySpec*> selected;
  for (const LibrarySpec& library : libraries) {
    if (names.empty() || std::find(names.begin(), names.end(), library.name) != names.end()) {
      selected.push_back(&library);
    }
  }
  for (const std::string& wanted : names) {
    if (std::none_of(libraries.begin(), libraries.end(), [&](const LibrarySpec& l) { return l.name == wanted; })) {
      std::vector<std::string> known;
      for (const LibrarySpec& library : libraries) {
        known.push_back(library.name);
      }
      fail(ExitCode::usage, "--lib {}: no such library in {} (it has: {})", wanted, root / "opkit.yaml",
           fmt::join(known, ", "));
    }
  }
  return selected;
}

std::filesystem::path
build_root(const std::filesystem::path& project_root, const std::filesystem::path& given)
{
  return std::filesystem::absolute(given.empty() ? project_root / "build" : given).lexically_normal();
}

std::optional<std::filesystem::path>
find_project_root(const std::filesystem::path& start)
{
  std::filesystem::path dir = std::filesystem::absolute(start).lexically_normal();
  if (dir.filename().empty()) {
    dir = dir.parent_path();
  }
  std::error_code ec;
  for (;;) {
    if (std::filesystem::is_regular_file(dir / "opkit.yaml", ec)) {
      return dir;
    }
    if (dir == dir.parent_path()) {
      return std::nullopt;
    }
    dir = dir.parent_path();
  }
}

Manifest
load_manifest(const std::filesystem::path& dir)
{
  std::optional<std::filesystem::path> root = find_project_root(dir);
  if (!root) {
    std::filesystem::path here = std::filesystem::absolute(dir).lexically_normal();
    throw Error(
      ExitCode::usage,
      fmt::format("{}: no opkit.yaml here or in any folder above", here.filename().empty() ? here.parent_path() : here),
      "run this inside a project made by `opkit new NAME`, or pass -C DIR");
  }
  std::filesystem::path file = *root / "opkit.yaml";
  return parse_manifest(fs::read_file(file), file.string(), *root);
}

std::string
LibrarySpec::module_file(const std::string& ext_suffix) const
{
  return python_module.empty() ? output : module_name() + ext_suffix;
}

std::string
LibrarySpec::module_name() const
{
  return python_module.substr(python_module.rfind('.') + 1); // npos + 1 == 0: a top-level module is its whole name
}

bool
LibrarySpec::builds_for(const Version& version, bool cuda_build) const
{
  return versions.contains(version) && (device != "gpu" || cuda_build);
}

std::string
LibrarySpec::skip_reason(const std::string& framework, const Version& version, bool cuda_build) const
{
  if (!versions.contains(version)) {
    return fmt::format("{} {}", framework, versions.text);
  }
  return builds_for(version, cuda_build) ? "" : "GPU kernels only: built by CUDA SDKs";
}

} // namespace opkit::project
