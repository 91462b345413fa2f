#include "opkit/project/framework_table.hpp"
#include "opkit/project/cpu_baselines.hpp"

#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace opkit::project {

namespace stdfs = std::filesystem;

namespace {

std::vector<Quirk>
parse_quirks(const Node& range, const std::string& name)
{
  std::vector<Quirk> quirks;
  for (const Node& node : range["quirks"]) {
    quirks.push_back({yaml::get_string(node, "id", name), yaml::get_string(node, "description", name),
                      yaml::get_string(node, "workaround", name)});
  }
  return quirks;
}

// A `cpu_floor:` list: features of configs/cpu/baselines.yaml (an unknown
// name is the table's error, with its line).
std::vector<std::string>
cpu_floor_of(const Node& node, const std::string& name)
{
  std::vector<std::string> features = yaml::get_string_list(node, "cpu_floor", name);
  for (const std::string& feature : features) {
    bool known = std::any_of(cpu_baselines().begin(), cpu_baselines().end(),
                             [&](const CpuBaseline& b) { return b.features.count(feature) > 0; });
    if (!known) {
      fail(ExitCode::system, "{}: cpu_floor: '{}' is no feature of configs/cpu/baselines.yaml",
           yaml::where(name, node["cpu_floor"]), feature);
    }
  }
  return features;
}

FrameworkFlags
parse_range(const Node& range, const FrameworkFlags& common, const std::string& name)
{
  yaml::expect_keys(range,
                    {"since", "verified", "cxx_standard", "cxx_standard_override", "cxx11_abi", "eigen_max_align_bytes",
                     "framework_library", "link", "runtime", "wheels", "quirks", "namespaced_op_names", "python_env",
                     "framework_global", "gomp_soname", "cpu_floor"},
                    name);
  FrameworkFlags flags = common;
  flags.since = yaml::get_string(range, "since", name);
  flags.verified = yaml::get_bool_or(range, "verified", name, false);
  flags.cxx_standard = yaml::get_int(range, "cxx_standard", name);
  if (range["cxx_standard_override"]) {
    flags.cxx_standard_override = yaml::get_int(range, "cxx_standard_override", name);
  }
  flags.cxx11_abi = yaml::get_int(range, "cxx11_abi", name);
  // Eigen's alignment and one -l for the framework are TensorFlow's, both or
  // neither; a table that links several libraries (torch) names them in
  // common.libraries.
  flags.eigen_max_align_bytes =
    range["eigen_max_align_bytes"] || range["link"] ? yaml::get_int(range, "eigen_max_align_bytes", name) : 0;
  flags.framework_library = yaml::get_string(range, "framework_library", name);
  flags.link = range["link"] || range["eigen_max_align_bytes"] ? yaml::get_string(range, "link", name) : "";
  flags.gomp_soname = yaml::get_string_or(range, "gomp_soname", name, "");
  if (range["cpu_floor"]) {
    flags.cpu_floor = cpu_floor_of(range, name);
  }
  flags.runtime = yaml::get_string(range, "runtime", name);
  flags.namespaced_op_names = yaml::get_bool_or(range, "namespaced_op_names", name, true);
  flags.framework_global = yaml::get_bool_or(range, "framework_global", name, false);
  if (Node env = range["python_env"]) {
    yaml::expect_keys(env, {"python", "pip", "pins", "flags"}, name);
    flags.python_env =
      PythonEnvRecipe{yaml::get_string(env, "python", name), yaml::get_string_or(env, "pip", name, ""),
                      yaml::get_string_list(env, "pins", name), yaml::get_string_list(env, "flags", name)};
  }
  Node wheels = range["wheels"];
  yaml::expect_keys(wheels, {"cpu", "gpu", "pythons"}, name);
  flags.cpu_distribution = yaml::get_string_or(wheels, "cpu", name, ""); // none: only a CUDA build is published
  flags.gpu_distribution = yaml::get_string(wheels, "gpu", name);
  flags.wheel_pythons = yaml::get_string_list(wheels, "pythons", name);
  flags.quirks = parse_quirks(range, name);
  return flags;
}

SdkLayout
parse_sdk_layout(const Node& sdk, const std::string& name)
{
  yaml::expect_keys(sdk,
                    {"package_dirs", "include_dir", "library_dir", "libraries", "version_file", "fact_files",
                     "abi_libraries", "abi_namespaces"},
                    name);
  SdkLayout layout;
  layout.package_dirs = yaml::get_string_list(sdk, "package_dirs", name);
  layout.include_dir = yaml::get_string(sdk, "include_dir", name);
  layout.library_dir = yaml::get_string(sdk, "library_dir", name);
  layout.libraries = yaml::get_string_list(sdk, "libraries", name);
  layout.version_file = yaml::get_string(sdk, "version_file", name);
  layout.fact_files = sdk["fact_files"] ? yaml::get_string_list(sdk, "fact_files", name) : std::vector<std::string>{};
  layout.abi_libraries = yaml::get_string_list(sdk, "abi_libraries", name);
  layout.abi_namespaces = yaml::get_string_list(sdk, "abi_namespaces", name);
  return layout;
}

// A framework's name as it may appear in a config path: lower-case letters,
// digits and '_' (so "../x" never names a file).
bool
is_framework_name(const std::string& name)
{
  return !name.empty() && name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

} // namespace

FrameworkTable
FrameworkTable::parse(const std::string& text, const std::string& name)
{
  return from_node(yaml::load(text, name), name);
}

FrameworkTable
FrameworkTable::from_node(Node root, const std::string& name)
{
  yaml::expect_keys(root,
                    {"framework",
                     "short_name",
                     "label",
                     "symbol_namespaces",
                     "probe",
                     "display_name",
                     "default_targets",
                     "init_template",
                     "wheel_init",
                     "python_module_library",
                     "process_libraries",
                     "dtypes",
                     "kernels",
                     "sdk",
                     "common",
                     "pch",
                     "extension_module",
                     "cuda",
                     "versions",
                     "cpu_floor",
                     "system_process_libraries"},
                    name);
  FrameworkFlags common;
  Node common_node = root["common"];
  common.compile_flags = yaml::get_string_list(common_node, "compile_flags", name);
  common.warning_flags = yaml::get_string_list(common_node, "warning_flags", name);
  common.link_flags = yaml::get_string_list(common_node, "link_flags", name);
  common.link_libraries = yaml::get_string_list(common_node, "libraries", name);
  common.include_dirs = yaml::get_string_list(common_node, "include_dirs", name);
  common.library_defines = yaml::get_string_list(common_node, "library_defines", name);
  common.process_libraries = yaml::get_string_list(root, "process_libraries", name);
  common.system_process_libraries = yaml::get_string_list(root, "system_process_libraries", name);
  if (root["cpu_floor"]) {
    common.cpu_floor = cpu_floor_of(root, name);
  }
  Node cuda = root["cuda"];
  common.cuda_defines = yaml::get_string_list(cuda, "defines", name);
  common.nvcc_flags = yaml::get_string_list(cuda, "nvcc_flags", name);
  common.cuda_link_flags = yaml::get_string_list(cuda, "link_flags", name);
  common.cuda_static_libraries = yaml::get_string_list(cuda, "static_libraries", name);
  for (const auto& entry : cuda["include_map"]) {
    std::string prefix = entry.first.scalar();
    common.cuda_include_map.emplace_back(prefix, yaml::get_string_list(cuda["include_map"], prefix.c_str(), name));
  }
  std::vector<std::string> module_headers;
  if (Node module = root["extension_module"]) {
    yaml::expect_keys(module, {"compile_flags", "libraries", "headers"}, name);
    common.module_compile_flags = yaml::get_string_list(module, "compile_flags", name);
    common.module_libraries = yaml::get_string_list(module, "libraries", name);
    module_headers = yaml::get_string_list(module, "headers", name);
  }
  if (Node pch = root["pch"]) {
    yaml::expect_keys(pch, {"headers", "defines", "include_prefixes"}, name);
    common.pch_headers = yaml::get_string_list(pch, "headers", name);
    common.pch_defines = yaml::get_string_list(pch, "defines", name);
    common.pch_include_prefixes = yaml::get_string_list(pch, "include_prefixes", name);
  }

  FrameworkTable table;
  table.m_framework = yaml::get_string_or(root, "framework", name, "tensorflow");
  table.m_short_name = yaml::get_string_or(root, "short_name", name, table.m_framework);
  table.m_display_name = yaml::get_string_or(root, "display_name", name, table.m_framework);
  table.m_label = yaml::get_string_or(root, "label", name, table.m_short_name);
  table.m_symbol_namespaces = yaml::get_string_list(root, "symbol_namespaces", name);
  if (Node probe = root["probe"]) {
    yaml::expect_keys(probe, {"reporter", "runtime", "vectors", "module"}, name);
    table.m_probe_reporter = yaml::get_string(probe, "reporter", name);
    table.m_python_module = yaml::get_string_or(probe, "module", name, table.m_framework);
    table.m_vectors_runner = yaml::get_string_or(probe, "vectors", name, "");
    for (const auto& entry : probe["runtime"]) {
      std::string library = entry.first.scalar();
      table.m_probe_runtime.emplace_back(library, yaml::get_string(probe["runtime"], library.c_str(), name));
    }
  }
  table.m_default_targets = yaml::get_string_list(root, "default_targets", name);
  table.m_module_headers = module_headers;
  table.m_init_template = yaml::get_string_or(root, "init_template", name, "tensorflow-op");
  table.m_wheel_init = yaml::get_string_or(root, "wheel_init", name, "__init__.py");
  table.m_python_module_library = yaml::get_string_or(root, "python_module_library", name, "");
  if (Node kernels = root["kernels"]) {
    yaml::expect_keys(kernels, {"keys", "gpu"}, name);
    table.m_kernel_keys = yaml::get_string_list(kernels, "keys", name);
    table.m_gpu_kernel_key = yaml::get_string(kernels, "gpu", name);
  }
  if (Node sdk = root["sdk"]) {
    table.m_sdk_layout = parse_sdk_layout(sdk, name);
  }
  Node dtypes = root["dtypes"];
  if (dtypes.is_defined() && !dtypes.is_null() && !dtypes.is_map()) {
    fail(ExitCode::usage, "{}: 'dtypes' must map each dtype to its other spellings", yaml::where(name, dtypes));
  }
  for (const auto& entry : dtypes) {
    std::string dtype = entry.first.scalar();
    table.m_dtypes.push_back(dtype);
    for (const std::string& spelling : yaml::get_string_list(dtypes, dtype.c_str(), name)) {
      table.m_dtype_spellings[spelling] = dtype;
    }
    table.m_dtype_spellings[dtype] = dtype;
  }
  for (const Node& range : root["versions"]) {
    FrameworkFlags flags = parse_range(range, common, name);
    std::optional<Version> since = parse_version(flags.since);
    if (!since) {
      fail(ExitCode::usage, "{}: invalid version '{}'", yaml::where(name, range["since"]), flags.since);
    }
    table.m_ranges.emplace_back(*since, flags);
  }
  std::stable_sort(table.m_ranges.begin(), table.m_ranges.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return table;
}

const FrameworkTable&
FrameworkTable::tensorflow()
{
  static const FrameworkTable& table = get("tensorflow");
  return table;
}

std::vector<std::string>
FrameworkTable::names()
{
  std::vector<std::string> known;
  for (const EmbeddedFile& file : embedded_under("configs/frameworks/")) {
    if (ends_with(file.path, ".yaml")) {
      known.push_back(stdfs::path(std::string(file.path)).stem().string());
    }
  }
  return known;
}

const FrameworkTable&
FrameworkTable::get(const std::string& name)
{
  static std::mutex mutex;
  // A node-based map: a table, once parsed, stays where it is.
  static std::map<std::string, FrameworkTable> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = tables.find(name);
  if (found != tables.end()) {
    return found->second;
  }
  const std::string path = "configs/frameworks/" + name + ".yaml";
  if (!is_framework_name(name) || !find_embedded(path)) {
    fail(ExitCode::usage, "'{}': not a framework opkit knows (it has tables for {})", escape_clipped(name, 64),
         join(names(), ", "));
  }
  return tables.emplace(name, from_node(yaml::load_embedded(path), path)).first->second;
}

FrameworkOptionFacts
FrameworkTable::option_facts(const std::string& name)
{
  std::string path = "configs/frameworks/" + name + ".yaml";
  Node root = is_framework_name(name) && find_embedded(path + ".msgpack") ? yaml::load_embedded(path) : Node();
  if (!root.is_map() || !root["versions"].is_sequence()) {
    const FrameworkTable& table = get(name); // no twin (or not one opkit reads): the table says it, or why not
    return {table.short_name(), table.display_name(), table.example_versions()};
  }
  auto text = [&](const char* key, const std::string& fallback) {
    return root[key].is_scalar() ? root[key].scalar() : fallback;
  };
  FrameworkOptionFacts facts;
  std::string framework = text("framework", name);
  facts.short_name = text("short_name", framework);
  facts.display_name = text("display_name", framework);
  std::vector<std::pair<Version, std::string>> since;
  for (const Node& range : root["versions"]) {
    if (range["since"].is_scalar()) {
      const std::string& version = range["since"].scalar();
      if (std::optional<Version> parsed = parse_version(version)) {
        since.emplace_back(*parsed, version);
      }
    }
  }
  std::stable_sort(since.begin(), since.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!since.empty()) {
    facts.example_versions.push_back(since.front().second);
  }
  if (since.size() > 1) {
    facts.example_versions.push_back(since.back().second);
  }
  return facts;
}

std::vector<std::string>
FrameworkTable::example_versions() const
{
  if (m_ranges.empty()) {
    return {};
  }
  if (m_ranges.size() == 1) {
    return {m_ranges.front().second.since};
  }
  return {m_ranges.front().second.since, m_ranges.back().second.since};
}

std::string
FrameworkTable::canonical_dtype(const std::string& spelling) const
{
  auto found = m_dtype_spellings.find(spelling);
  return found == m_dtype_spellings.end() ? std::string() : found->second;
}

std::string
FrameworkTable::namespaced_op_names_since() const
{
  std::string since;
  for (const auto& [version, flags] : m_ranges) {
    if (!flags.namespaced_op_names) {
      since.clear();
    } else if (since.empty()) {
      since = flags.since;
    }
  }
  return since;
}

std::string
FrameworkTable::versions_with_framework_library(const std::string& soname) const
{
  std::string first, end;
  for (const auto& [version, flags] : m_ranges) {
    if (flags.framework_library == soname) {
      if (first.empty()) {
        first = flags.since;
      }
      end.clear();
    } else if (!first.empty() && end.empty()) {
      end = flags.since;
    }
  }
  if (first.empty()) {
    return {};
  }
  return end.empty() ? ">=" + first : ">=" + first + ",<" + end;
}

std::vector<std::string>
FrameworkTable::framework_libraries() const
{
  std::vector<std::string> names;
  for (const auto& [version, flags] : m_ranges) {
    if (std::find(names.begin(), names.end(), flags.framework_library) == names.end()) {
      names.push_back(flags.framework_library);
    }
  }
  return names;
}

std::vector<std::string>
FrameworkTable::distributions() const
{
  std::vector<std::string> names;
  for (const auto& [version, flags] : m_ranges) {
    for (const std::string& name : {flags.cpu_distribution, flags.gpu_distribution}) {
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

FrameworkFlags
FrameworkTable::flags_for(const Version& version) const
{
  const FrameworkFlags* found = nullptr;
  for (const auto& [since, flags] : m_ranges) {
    // Compare on release parts only, so 2.10.0-rc1 still uses the 2.10 range.
    if (Version{since.parts, {}} < Version{version.parts, {}} || since.parts == version.parts
        || version_matches(since, version)) {
      found = &flags;
    }
  }
  if (found == nullptr) {
    fail(ExitCode::usage, "{} {}: unsupported version (opkit supports {} and later)", m_framework, version.str(),
         m_ranges.empty() ? "nothing" : m_ranges.front().second.since);
  }
  return *found;
}

} // namespace opkit::project
