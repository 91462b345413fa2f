#include "opkit/adopt/adopt.hpp"

#include "opkit/adopt/boundaries.hpp"
#include "opkit/adopt/library_naming.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/names.hpp"
#include "opkit/project/version.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>

namespace opkit::adopt {

namespace stdfs = std::filesystem;

using build_files_detail::parent_of;

namespace {

// A torch op's kernels: the dispatch keys its registrations name, in the table's order.
void
add_torch_kernels(project::OpSpec& op, const std::vector<const FoundKernel*>& kernels, std::vector<std::string>& report)
{
  const project::FrameworkTable& torch = project::FrameworkTable::get("torch");
  for (const std::string& key : torch.kernel_keys()) {
    std::vector<const FoundKernel*> registrations;
    for (const FoundKernel* kernel : kernels) {
      if (kernel->op == op.name && kernel->device == key) {
        registrations.push_back(kernel);
      }
    }
    if (registrations.empty()) {
      continue;
    }
    op.kernels.push_back({key, {}});
    report.push_back(
      fmt::format("found: {} kernel of {} ({}){}", key, op.name, registrations.front()->place.str(),
                  key == torch.gpu_kernel_key() || registrations.front()->gpu_build ? ", CUDA builds only" : ""));
  }
}

// Each device's kernels of an op: the union, per attr, of its registrations' dtypes.
void
add_kernels(project::OpSpec& op, const std::vector<const FoundKernel*>& kernels, std::vector<std::string>& report)
{
  for (const char* device : {"CPU", "GPU"}) {
    std::vector<std::pair<std::string, std::set<std::string>>> union_of;
    std::vector<const FoundKernel*> registrations;
    for (const FoundKernel* kernel : kernels) {
      if (kernel->op != op.name || kernel->device != device) {
        continue;
      }
      registrations.push_back(kernel);
      for (const auto& constraint : kernel->constraints) {
        const std::string& attr = constraint.first;
        auto found = std::find_if(union_of.begin(), union_of.end(), [&](const auto& e) { return e.first == attr; });
        (found == union_of.end() ? union_of.emplace_back(attr, std::set<std::string>{}) : *found)
          .second.insert(constraint.second);
      }
    }
    if (registrations.empty()) {
      continue;
    }
    project::KernelSpec spec{device, {}};
    std::vector<std::string> described;
    for (const auto& [attr, dtypes] : union_of) {
      spec.constraints.emplace_back(attr, std::vector<std::string>(dtypes.begin(), dtypes.end()));
      described.push_back(fmt::format("{}: [{}]", attr, fmt::join(dtypes, ", ")));
    }
    op.kernels.push_back(spec);
    bool gpu_build = std::all_of(registrations.begin(), registrations.end(), [](auto k) { return k->gpu_build; });
    report.push_back(fmt::format("found: {} kernel of {}{} ({}, {}){}", device, op.name,
                                 described.empty() ? "" : " {" + join(described, ", ") + "}",
                                 registrations.front()->place.str(), plural(registrations.size(), "registration"),
                                 gpu_build ? ", CUDA builds only" : ""));
  }
}

// The folder an include resolves from, when not from the including file's
// own: the tree root or another folder holding it ("" when none; sets `resolved`).
std::string
include_root(const AdoptedTree& tree, const std::string& from, const std::string& include, std::string& resolved)
{
  std::string folder = parent_of(from);
  std::string local = (stdfs::path(folder) / include).lexically_normal().generic_string();
  if (!starts_with(local, "../") && tree.has_file(local)) {
    resolved = local;
    return "";
  }
  std::string best;
  for (const std::string& file : tree.files) {
    if (file != include && !ends_with(file, "/" + include)) {
      continue;
    }
    std::string root = file == include ? "." : file.substr(0, file.size() - include.size() - 1);
    // The nearest candidate is a folder that holds the including file; else the shortest.
    bool holds = root == "." || starts_with(folder + "/", root + "/");
    bool best_holds = best == "." || (!best.empty() && starts_with(folder + "/", best + "/"));
    if (best.empty() || (holds && !best_holds) || (holds == best_holds && root.size() < best.size())) {
      best = root;
      resolved = file;
    }
  }
  return best;
}

// Follows the quoted includes from every library source; fills the roots and notes.
std::vector<std::string>
find_include_roots(const AdoptedTree& tree, const std::vector<std::string>& sources, std::set<std::string>& reached,
                   std::vector<std::string>& report)
{
  const project::AdoptRules& rules = project::adopt_rules();
  std::deque<std::string> queue(sources.begin(), sources.end());
  reached.insert(sources.begin(), sources.end());
  std::map<std::string, std::string> roots; // root -> why
  for (; !queue.empty(); queue.pop_front()) {
    const SourceScan* scan = tree.find(queue.front());
    for (const FoundInclude& include : scan ? scan->includes : std::vector<FoundInclude>{}) {
      for (const project::AdoptRules::IncludeNote& note : rules.include_notes) {
        if (include.path == note.include) {
          report.push_back(
            fmt::format("note: {}:{} includes {}: {}", scan->file, include.line, note.include, note.note));
        }
      }
      if (std::any_of(rules.sdk_includes.begin(), rules.sdk_includes.end(),
                      [&](const std::string& prefix) { return starts_with(include.path, prefix); })) {
        continue;
      }
      std::string resolved;
      std::string root = include_root(tree, scan->file, include.path, resolved);
      if (resolved.empty()) {
        report.push_back(fmt::format("note: {}:{}: \"{}\" is not in the tree (left to the compiler's own folders)",
                                     scan->file, include.line, include.path));
        continue;
      }
      if (!root.empty()) {
        roots.emplace(root, fmt::format("{}:{} includes \"{}\"", scan->file, include.line, include.path));
      }
      if (reached.insert(resolved).second) {
        queue.push_back(resolved);
      }
    }
  }
  std::vector<std::string> result;
  for (const auto& [root, why] : roots) {
    result.push_back(root);
    report.push_back(fmt::format("found: include folder {} ({})", root, why));
  }
  return result;
}

// configs/adopt/compat.yaml's identifier rules, for the files a library compiles.
std::vector<project::SettingsBlock>
compat_blocks(const AdoptedTree& tree, const std::set<std::string>& reached, std::vector<std::string>& report)
{
  std::vector<project::SettingsBlock> blocks;
  for (const project::AdoptRules::IdentifierRule& rule : project::adopt_rules().identifiers) {
    std::vector<std::string> users;
    for (const std::string& file : reached) {
      const SourceScan* scan = tree.find(file);
      if (scan && std::binary_search(scan->identifiers.begin(), scan->identifiers.end(), rule.identifier)) {
        users.push_back(file);
      }
    }
    if (users.empty()) {
      continue;
    }
    project::SettingsBlock block;
    block.when.versions = *project::parse_version_range(rule.tensorflow);
    block.compat = {rule.compat};
    blocks.push_back(block);
    report.push_back(fmt::format("guessed: TensorFlow {} builds force in opkit's {} compat header ({} use{} {}: {})",
                                 rule.tensorflow, rule.compat,
                                 users.size() == 1 ? users.front() : plural(users.size(), "file"),
                                 users.size() == 1 ? "s" : "", rule.identifier, rule.why));
  }
  return blocks;
}

// A folder opkit init never reads: hidden, build output, an SDK, a virtualenv, opkit's home.
bool
skipped_folder(const stdfs::path& dir, const stdfs::path& home)
{
  std::string name = dir.filename().string();
  std::error_code ec;
  return starts_with(name, ".") || name == "build" || starts_with(name, "bazel-") || name == "__pycache__"
         || stdfs::exists(dir / "sdk.json", ec) || stdfs::exists(dir / "pyvenv.cfg", ec)
         || (!home.empty() && stdfs::equivalent(dir, home, ec));
}

// A build file's text, when it is no larger than opkit reads (else a note).
void
read_build_file(const stdfs::directory_entry& entry, const std::string& path, std::vector<TreeText>& into,
                std::vector<std::string>& notes)
{
  std::error_code ec;
  uintmax_t size = entry.file_size(ec);
  if (ec || size > project::build_file_rules().max_bytes) {
    notes.push_back(fmt::format("note: {}: {} (not read)", path, ec ? ec.message() : "larger than opkit reads"));
    return;
  }
  try {
    into.push_back({path, fs::read_file(entry.path())});
  } catch (const Error& e) {
    notes.push_back(fmt::format("note: {} (not read)", e.what()));
  }
}

// The op sources of a tree and what adding them to libraries needs.
struct Planner
{
  const AdoptedTree& tree;
  Adoption& adoption;
  std::vector<const FoundKernel*> kernels;
  std::set<std::string> registered; // op names, once each
  std::vector<std::string> problems;
  std::vector<std::string> sources; // of every library

  // The sources: plain, and a `device: gpu` block.
  void add_sources(project::LibrarySpec& library, const LibraryGroup& group)
  {
    project::SettingsBlock plain;
    project::SettingsBlock gpu;
    gpu.when.device = "gpu";
    plain.sources = group.sources;
    gpu.sources = group.gpu_sources;
    sources.insert(sources.end(), group.sources.begin(), group.sources.end());
    sources.insert(sources.end(), group.gpu_sources.begin(), group.gpu_sources.end());
    library.settings.push_back(plain);
    if (!gpu.sources.empty()) {
      library.settings.push_back(gpu);
    }
    adoption.report.insert(adoption.report.end(), group.lines.begin(), group.lines.end());
  }

  // The ops its sources register, in the order of the files.
  void add_ops(project::LibrarySpec& library, const LibraryGroup& group)
  {
    for (const SourceScan& scan : tree.scans) {
      bool member = std::binary_search(group.sources.begin(), group.sources.end(), scan.file)
                    || std::binary_search(group.gpu_sources.begin(), group.gpu_sources.end(), scan.file);
      for (const FoundOp& op : member ? scan.ops : std::vector<FoundOp>{}) {
        if (!registered.insert(op.op.name).second) {
          problems.push_back(
            fmt::format("{}: op {} is registered again; the first registration is kept", op.place.str(), op.op.name));
          continue;
        }
        library.ops.push_back(op.op);
        if (adoption.framework == "torch") {
          std::string schema = op.op.schema.empty() ? "schema inferred from its C++ function"
                               : op.inferred        ? "schema inferred from its C++ function: " + op.op.schema
                                                    : op.op.schema;
          adoption.report.push_back(fmt::format("found: op {} ({}; {})", op.op.name, op.place.str(), schema));
        } else {
          adoption.report.push_back(fmt::format(
            "found: op {} ({}; {}, {}, {})", op.op.name, op.place.str(), plural(op.op.inputs.size(), "input"),
            plural(op.op.outputs.size(), "output"), plural(op.op.attrs.size(), "attr")));
        }
        if (adoption.framework == "torch") {
          add_torch_kernels(library.ops.back(), kernels, adoption.report);
        } else {
          add_kernels(library.ops.back(), kernels, adoption.report);
        }
        if (library.ops.back().kernels.empty()) {
          adoption.report.push_back(fmt::format("note: op {} has no kernel in the tree", op.op.name));
        }
      }
    }
  }

  // A torch library whose sources are a Python module's (a PyInit_, PYBIND11_MODULE
  // or a module header): its import name (setup.py's dotted name, else the
  // PyInit_/PYBIND11_MODULE name, else the library's), its file, and the
  // functions PYBIND11_MODULE binds (declared where torch would infer a schema).
  void add_module(project::LibrarySpec& library, const LibraryGroup& group)
  {
    const SourceScan* module = nullptr;
    std::string name;
    std::vector<const FoundOp*> functions;
    for (const SourceScan& scan : tree.scans) {
      bool member = std::binary_search(group.sources.begin(), group.sources.end(), scan.file)
                    || std::binary_search(group.gpu_sources.begin(), group.gpu_sources.end(), scan.file);
      if (!member || scan.module_code.empty()) {
        continue;
      }
      module = module != nullptr ? module : &scan;
      name = name.empty() ? scan.module_name : name;
      for (const FoundOp& function : scan.functions) {
        functions.push_back(&function);
      }
    }
    if (module == nullptr || adoption.framework != "torch") {
      return;
    }
    library.python_module = !group.python_module.empty() ? group.python_module : !name.empty() ? name : library.name;
    std::string last = library.module_name();
    library.output = last + ".so";
    adoption.report.push_back(fmt::format("found: Python module {} ({}): built per CPython, imported by that name",
                                          library.python_module, module->module_code));
    for (const FoundOp* found : functions) {
      project::OpSpec function = found->op;
      function.name = last + "::" + found->op.name;
      if (!function.schema.empty()) {
        function.schema = last + function.schema.substr(1); // "_::f(...)": the module's own name
      }
      adoption.report.push_back(fmt::format("found: function {}.{} ({}; {})", library.python_module, found->op.name,
                                            found->place.str(),
                                            function.schema.empty() ? "no schema inferred: declare it under "
                                                                      "functions: to call it from test --python"
                                                                    : function.schema));
      if (!function.schema.empty()) {
        library.functions.push_back(function);
      }
    }
  }

  // Namespaced op names abort the load on older TensorFlow (configs/frameworks/tensorflow.yaml).
  void guess_versions(project::LibrarySpec& library)
  {
    if (adoption.framework != "tensorflow") {
      return;
    }
    auto namespaced = std::find_if(library.ops.begin(), library.ops.end(),
                                   [](const project::OpSpec& op) { return op.name.find('>') != std::string::npos; });
    if (namespaced != library.ops.end()) {
      std::string range = ">=" + project::FrameworkTable::tensorflow().namespaced_op_names_since();
      library.versions = *project::parse_version_range(range);
      adoption.report.push_back(fmt::format("guessed: library {} is built for TensorFlow {} (older versions abort "
                                            "loading a namespaced op name such as {})",
                                            library.name, range, namespaced->name));
    }
  }

  // A library whose name and file opkit guessed (lib<folder>.so) takes the
  // file name of a prebuilt library in the tree that registers the same ops
  // (EasyRec's sources in src/ and a release's 2.12/libload_embed.so).
  void name_after_prebuilt(project::LibrarySpec& library)
  {
    if (library.ops.empty()) {
      return;
    }
    std::set<std::string> names; // the matching files' names (one library kept in several version folders)
    std::vector<std::string> where;
    for (const PrebuiltLibrary& prebuilt : tree.prebuilt) {
      bool all = std::all_of(library.ops.begin(), library.ops.end(),
                             [&](const project::OpSpec& op) { return prebuilt.op_strings.count(op.name) != 0; });
      if (all) {
        names.insert(prebuilt.path.substr(prebuilt.path.rfind('/') + 1));
        where.push_back(prebuilt.path);
      }
    }
    if (names.size() != 1) {
      return;
    }
    std::string file = *names.begin();
    std::string name = name_of(file);
    name = project::name_problem(name).empty() ? name : library.name;
    bool taken = std::any_of(adoption.libraries.begin(), adoption.libraries.end(),
                             [&](const project::LibrarySpec& l) { return l.name == name || l.output == file; });
    if (taken) {
      return;
    }
    adoption.report.push_back(fmt::format("guessed: library {} is {}, builds {} ({} in the tree registers the same "
                                          "op{}: a prebuilt copy of it)",
                                          library.name, name, file, join(where, ", "),
                                          library.ops.size() == 1 ? "" : "s"));
    library.name = name;
    library.output = file;
  }

  // A TF library whose every kernel is a GPU kernel (a research repository's
  // ops with CUDA kernels alone) is built by CUDA SDKs alone: a CPU build
  // would register no kernel and miss the launchers its .cu files define.
  void guess_device(project::LibrarySpec& library)
  {
    if (adoption.framework != "tensorflow") {
      return;
    }
    size_t kernel_count = 0, gpu = 0;
    for (const project::OpSpec& op : library.ops) {
      for (const project::KernelSpec& kernel : op.kernels) {
        ++kernel_count;
        gpu += kernel.device == "GPU" ? 1 : 0;
      }
    }
    if (kernel_count > 0 && gpu == kernel_count) {
      library.device = "gpu";
      adoption.report.push_back(fmt::format(
        "guessed: library {} is built by CUDA SDKs alone ({} GPU kernel{}; CPU builds skip it)", library.name,
        kernel_count == 1 ? "its only kernel is a" : fmt::format("its {} kernels are all", kernel_count),
        kernel_count == 1 ? "" : "s"));
    }
  }
};

// The framework the op sources register for: TensorFlow (REGISTER_OP,
// REGISTER_KERNEL_BUILDER) or torch (TORCH_LIBRARY blocks); a tree with
// both, or neither, is Error(usage).
std::string
framework_of(const AdoptedTree& tree, const std::string& folder)
{
  const SourceScan* tensorflow = nullptr;
  const SourceScan* torch = nullptr;
  for (const SourceScan& scan : tree.scans) {
    if (is_source(scan.file) && scan.registers) {
      const SourceScan*& first = scan.torch ? torch : tensorflow;
      first = first != nullptr ? first : &scan;
    }
  }
  if (tensorflow == nullptr && torch == nullptr) {
    std::vector<Place> skipped;
    for (const SourceScan& scan : tree.scans) {
      skipped.insert(skipped.end(), scan.skipped.begin(), scan.skipped.end());
    }
    fail(ExitCode::usage,
         "{}: no op sources: no C++ file registers a TensorFlow op or kernel (REGISTER_OP, REGISTER_KERNEL_BUILDER) "
         "or a torch operator (TORCH_LIBRARY, torch::RegisterOperators){}",
         folder,
         skipped.empty() ? ""
                         : fmt::format("; {} opkit could not read, the first at {}",
                                       plural(skipped.size(), "torch registration"), skipped.front().str()));
  }
  if (tensorflow != nullptr && torch != nullptr) {
    fail(ExitCode::usage,
         "{}: both TensorFlow ops ({}) and torch operators ({}): an opkit project builds for one "
         "framework; run opkit init in each one's folder",
         folder, tensorflow->file, torch->file);
  }
  return torch != nullptr ? "torch" : "tensorflow";
}

} // namespace

Adoption
plan_adoption(const AdoptedTree& tree, const std::string& folder, const AdoptOptions& options)
{
  std::string folder_name = stdfs::path(folder).filename().string();
  Adoption adoption;
  adoption.name = options.name.empty() ? snake_name(folder_name, "project name", folder_name, &adoption.report)
                                       : project::derive_names(options.name, "project name").snake;
  adoption.framework = framework_of(tree, folder);
  const project::FrameworkTable& table = project::FrameworkTable::get(adoption.framework);
  if (!options.versions_framework.empty() && options.versions_framework != adoption.framework) {
    const project::FrameworkTable& given = project::FrameworkTable::get(options.versions_framework);
    fail(ExitCode::usage, "--{}: the sources here register {} ops{}: pass --{}", given.short_name(),
         table.display_name(), adoption.framework == "torch" ? " (TORCH_LIBRARY)" : " (REGISTER_OP)",
         table.short_name());
  }
  for (const std::string& version : options.target_versions) {
    if (!project::parse_version(version) && !starts_with(version, adoption.framework + "-")) {
      fail(ExitCode::usage, "--{} {}: not a {} version (e.g. {})", table.short_name(), version, table.display_name(),
           join(table.example_versions(), " or "));
    }
    adoption.target_versions.push_back(version);
  }
  Planner planner{tree, adoption, {}, {}, {}, {}};
  for (const SourceScan& scan : tree.scans) {
    bool op_source = is_source(scan.file) && scan.registers;
    for (size_t i = 0; op_source && i < scan.kernels.size(); ++i) {
      planner.kernels.push_back(&scan.kernels[i]); // pointers into the tree's scans
    }
    if (op_source || !scan.skipped.empty()) { // a header's registrations opkit skipped are named too
      planner.problems.insert(planner.problems.end(), scan.problems.begin(), scan.problems.end());
    }
  }
  BuildDescription build = read_build_description(tree.build_files, tree.python, tree.files);
  std::vector<std::string> notes = tree.notes;
  notes.insert(notes.end(), build.notes.begin(), build.notes.end());
  for (const LibraryGroup& group : plan_libraries(tree, build, options, folder_name, notes)) {
    project::LibrarySpec library;
    library.name = group.name;
    library.output = group.output;
    planner.add_sources(library, group);
    planner.add_ops(library, group);
    if (group.default_output && options.single_library.empty()) {
      planner.name_after_prebuilt(library);
    }
    planner.guess_versions(library);
    planner.guess_device(library);
    planner.add_module(library, group);
    // setup.py's segkit._segment: the library belongs to the tree's package segkit/, when the tree has it.
    std::string package = group.python_module.substr(0, group.python_module.find('.'));
    if (adoption.package.empty() && group.python_module.find('.') != std::string::npos
        && tree.has_file(package + "/__init__.py")) {
      adoption.package = package;
      adoption.report.push_back(fmt::format("found: Python package {} ({}/__init__.py): `opkit package wheel` packs "
                                            "it with the libraries",
                                            package, package));
    }
    adoption.libraries.push_back(library);
  }
  adoption.report.insert(adoption.report.end(), notes.begin(), notes.end());
  // A GPU source no library takes is named, never dropped silently.
  for (const std::string& file : tree.files) {
    if (is_gpu_source(file) && !has_component(file, "third_party")
        && std::find(planner.sources.begin(), planner.sources.end(), file) == planner.sources.end()) {
      adoption.report.push_back(
        fmt::format("note: {}: a GPU source no library here takes (no build file or folder puts it in one)", file));
    }
  }
  for (const FoundKernel* kernel : planner.kernels) {
    if (planner.registered.count(kernel->op) == 0) {
      adoption.report.push_back(fmt::format("note: {}: kernel of {}, an op no source here registers: not declared",
                                            kernel->place.str(), kernel->op));
    }
  }
  std::set<std::string> reached;
  adoption.include_dirs = find_include_roots(tree, planner.sources, reached, adoption.report);
  adoption.when = compat_blocks(tree, reached, adoption.report);
  if (adoption.target_versions.empty()) {
    adoption.report.push_back(fmt::format("note: no targets written: pass --{} to `opkit build`, or add targets.{}",
                                          table.short_name(), adoption.framework));
  }
  for (const std::string& problem : planner.problems) {
    adoption.report.push_back("unresolved: " + problem);
  }
  return adoption;
}

AdoptedTree
read_tree(const stdfs::path& root)
{
  std::vector<std::string> files;
  std::vector<TreeText> cpp;
  std::vector<TreeText> python;
  std::vector<TreeText> build_files;
  std::vector<std::pair<std::string, stdfs::path>> cpp_paths; // read once the build description is known to be bounded
  std::vector<std::pair<std::string, stdfs::path>> python_paths;
  std::vector<std::pair<std::string, stdfs::path>> prebuilt_paths; // *.so files already built in the tree
  std::vector<std::string> notes;
  std::error_code ec;
  stdfs::path home = stdfs::weakly_canonical(sdk::opkit_home(), ec);
  stdfs::recursive_directory_iterator it(root, stdfs::directory_options::skip_permission_denied, ec);
  std::vector<std::string> unfit; // names opkit.yaml cannot hold (not UTF-8, a newline), escaped for the warning
  for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    const stdfs::directory_entry& entry = *it;
    std::error_code type_ec;
    bool folder = entry.is_directory(type_ec);
    if ((folder && skipped_folder(entry.path(), home)) || (!folder && !entry.is_regular_file(type_ec))) {
      it.disable_recursion_pending();
      continue;
    }
    std::string path = entry.path().lexically_relative(root).generic_string();
    if (!is_utf8(path) || has_control(path)) {
      unfit.push_back(escape_text(path));
      it.disable_recursion_pending();
      continue;
    }
    if (folder) {
      continue;
    }
    files.push_back(path);
    if (is_build_file(path) && !has_component(path, "third_party")) {
      read_build_file(entry, path, build_files, notes);
      continue;
    }
    std::string extension = entry.path().extension().string();
    if (extension == ".so" && !has_component(path, "third_party")) {
      prebuilt_paths.emplace_back(path, entry.path());
      continue;
    }
    bool is_cpp =
      std::set<std::string>{".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp", ".hh", ".cuh", ".inc"}.count(extension) != 0;
    uintmax_t size = entry.file_size(type_ec);
    if (type_ec || size > (4u << 20) || !(is_cpp || extension == ".py") || has_component(path, "third_party")) {
      continue;
    }
    (is_cpp ? cpp_paths : python_paths).emplace_back(path, entry.path());
  }
  if (ec) {
    fail(ExitCode::system, "{}: cannot read the folder: {}", root, ec.message());
  }
  auto read_texts = [](const std::vector<std::pair<std::string, stdfs::path>>& paths, std::vector<TreeText>& into) {
    for (const auto& [path, file] : paths) {
      try {
        into.push_back({path, fs::read_file(file)});
      } catch (const Error& e) {
        log_warning("{} (skipped)", e.what());
      }
    }
  };
  read_texts(python_paths, python);
  {
    // The build description's bounds first: a hostile one (a list doubled
    // again and again, a glob of the whole tree) stops here, before the
    // sources are read, however many there are.
    std::vector<std::string> sorted = files;
    std::sort(sorted.begin(), sorted.end());
    read_build_description(build_files, python, sorted);
  }
  read_texts(cpp_paths, cpp);
  if (!unfit.empty()) {
    std::sort(unfit.begin(), unfit.end());
    log_warning("skipped {} name{} that opkit.yaml cannot hold (not UTF-8, or with a control character): {}",
                unfit.size(), unfit.size() == 1 ? "" : "s", join(unfit, ", "));
  }
  AdoptedTree tree = scan_tree(std::move(files), cpp, std::move(python));
  tree.build_files = std::move(build_files);
  tree.notes = std::move(notes);
  for (const auto& [path, file] : prebuilt_paths) {
    std::error_code size_ec;
    if (stdfs::file_size(file, size_ec) > (64u << 20) || size_ec) {
      continue; // no op library is so large; a framework's copy is not one of the tree's libraries
    }
    try {
      if (std::optional<std::set<std::string>> strings = op_strings_of(fs::read_file(file))) {
        tree.prebuilt.push_back({path, std::move(*strings)});
      }
    } catch (const Error& e) {
      log_warning("{} (skipped)", e.what());
    }
  }
  return tree;
}

} // namespace opkit::adopt
