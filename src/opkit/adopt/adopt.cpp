#include "opkit/adopt/adopt.hpp"

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

namespace {

using Folders = std::vector<std::string>;

std::string
parent_of(const std::string& path)
{
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool
is_gpu_source(const std::string& path)
{
  return ends_with(path, ".cu.cc") || ends_with(path, ".cu");
}

// A compiled, non-test source: *.cc, *.cpp, *.cu.cc, *.cu but not *_test.*.
bool
is_source(const std::string& path)
{
  std::string name = path.substr(path.rfind('/') + 1);
  bool source = ends_with(name, ".cc") || ends_with(name, ".cpp") || ends_with(name, ".cu");
  return source && !name.substr(0, name.find('.')).empty() && !ends_with(name.substr(0, name.find('.')), "_test");
}

bool
has_component(const std::string& path, const std::string& component)
{
  return ("/" + path + "/").find("/" + component + "/") != std::string::npos;
}

// A folder's name as a snake_case library or project name.
std::string
snake_name(std::string name, const char* what, const std::string& folder)
{
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  }
  std::string collapsed;
  for (char c : name) {
    bool separator = c == '_' || c == '-';
    if (!(separator && (collapsed.empty() || collapsed.back() == '_'))) {
      collapsed += separator ? '_' : c;
    }
  }
  while (!collapsed.empty() && collapsed.back() == '_') {
    collapsed.pop_back();
  }
  try {
    return project::derive_names(collapsed, what).snake;
  } catch (const Error& e) {
    throw Error(ExitCode::usage, fmt::format("{}: {}", folder, e.what()),
                std::string(what) == "project name" ? "pass --name NAME" : "pass --single-library NAME");
  }
}

std::string
plural(size_t count, const char* word)
{
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// Library names: each folder's last component, more of its path while two collide.
std::vector<std::string>
library_names(const std::vector<Folders>& groups, const std::string& tree_name)
{
  std::vector<std::vector<std::string>> parts;
  for (const Folders& group : groups) {
    parts.push_back(group.front() == "." ? std::vector<std::string>{tree_name} : split(group.front(), '/'));
  }
  std::vector<size_t> used(groups.size(), 1);
  std::vector<std::string> names(groups.size());
  for (bool clash = true; clash;) {
    for (size_t i = 0; i < groups.size(); ++i) {
      std::vector<std::string> tail(parts[i].end() - static_cast<long>(used[i]), parts[i].end());
      names[i] = snake_name(join(tail, "_"), "library name", groups[i].front());
    }
    clash = false;
    std::vector<size_t> next = used;
    for (size_t i = 0; i < groups.size(); ++i) {
      for (size_t j = 0; j < groups.size(); ++j) {
        if (i == j || names[i] != names[j]) {
          continue;
        }
        if (used[i] == parts[i].size() && used[j] == parts[j].size()) {
          fail(ExitCode::usage, "folders {} and {} give one library name '{}' (pass --single-library NAME)",
               groups[i].front(), groups[j].front(), names[i]);
        }
        next[i] = std::min(used[i] + 1, parts[i].size());
        clash = true;
      }
    }
    used = next;
  }
  return names;
}

// A library file a Python file of the tree names ("_embed_ops.so"), as a whole file name.
struct Mention
{
  std::string name;
  std::string file; // the Python file
};

std::vector<Mention>
so_mentions(const std::vector<TreeText>& python)
{
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  std::vector<Mention> found;
  for (const TreeText& file : python) {
    const std::string& text = file.text;
    for (size_t at = text.find(".so"); at != std::string::npos; at = text.find(".so", at + 1)) {
      size_t begin = at;
      while (begin > 0 && name_char(text[begin - 1])) {
        --begin;
      }
      while (begin < at && (text[begin] == '.' || text[begin] == '-')) {
        ++begin;
      }
      bool whole =
        at + 3 == text.size() || !(std::isalnum(static_cast<unsigned char>(text[at + 3])) || text[at + 3] == '_');
      if (begin < at && whole) {
        found.push_back({text.substr(begin, at + 3 - begin), file.path});
      }
    }
  }
  return found;
}

// The file a Python file loads for library `index`: one of the names opkit
// expects (_<name>.so, _<name>_ops.so, lib<name>.so, with _ops stripped or
// added), else the one name whose stem ("_time_two_ops.so": time_two) is words
// of this library's folder path and of no other's. Nothing when none is.
std::optional<Mention>
python_output(const std::string& library, const std::vector<Folders>& groups, size_t index,
              const std::vector<Mention>& mentions, bool& by_folder)
{
  std::vector<std::string> bases = {library};
  bases.push_back(ends_with(library, "_ops") ? library.substr(0, library.size() - 4) : library + "_ops");
  for (const std::string& base : bases) {
    for (const std::string& name : {"_" + base + "_ops.so", "_" + base + ".so", "lib" + base + ".so"}) {
      auto found = std::find_if(mentions.begin(), mentions.end(), [&](const Mention& m) { return m.name == name; });
      if (found != mentions.end()) {
        return *found;
      }
    }
  }
  auto words = [](std::string folder) {
    std::replace_if(
      folder.begin(), folder.end(), [](char c) { return c == '/' || c == '-' || c == '.'; }, '_');
    return "_" + folder + "_";
  };
  std::optional<Mention> match;
  for (const Mention& mention : mentions) {
    std::string stem = mention.name.substr(0, mention.name.size() - 3);
    stem = starts_with(stem, "lib") ? stem.substr(3) : starts_with(stem, "_") ? stem.substr(1) : stem;
    stem = ends_with(stem, "_ops")  ? stem.substr(0, stem.size() - 4)
           : ends_with(stem, "_op") ? stem.substr(0, stem.size() - 3)
                                    : stem;
    std::string key = "_" + stem + "_";
    auto holds = [&](const Folders& group) { return words(group.front()).find(key) != std::string::npos; };
    bool elsewhere = std::count_if(groups.begin(), groups.end(), holds) > 1;
    if (stem.empty() || !holds(groups[index]) || elsewhere) {
      continue;
    }
    if (match && match->name != mention.name) {
      return std::nullopt; // two candidates: no guess
    }
    match = mention;
  }
  by_folder = match.has_value();
  return match;
}

// Groups the op sources' folders: one group per folder, or all in one. A
// folder registering kernels only, all of ops that one other folder
// registers, joins that folder's group.
std::vector<Folders>
group_folders(const std::map<std::string, std::vector<const SourceScan*>>& by_folder, bool single,
              std::vector<std::string>& report)
{
  if (single) {
    Folders all;
    for (const auto& entry : by_folder) {
      all.push_back(entry.first);
    }
    return {all};
  }
  std::map<std::string, std::string> op_folder;
  for (const auto& [folder, scans] : by_folder) {
    for (const SourceScan* scan : scans) {
      for (const FoundOp& op : scan->ops) {
        op_folder.emplace(op.op.name, folder);
      }
    }
  }
  std::map<std::string, Folders> groups;
  std::map<std::string, std::string> joins; // kernel-only folder -> the folder it joins
  for (const auto& [folder, scans] : by_folder) {
    std::set<std::string> targets;
    bool has_ops = false;
    for (const SourceScan* scan : scans) {
      has_ops = has_ops || !scan->ops.empty();
      for (const FoundKernel& kernel : scan->kernels) {
        auto found = op_folder.find(kernel.op);
        targets.insert(found == op_folder.end() ? "" : found->second);
      }
    }
    if (!has_ops && targets.size() == 1 && !targets.begin()->empty()) {
      joins[folder] = *targets.begin();
    } else {
      groups[folder].push_back(folder);
    }
  }
  for (const auto& [folder, target] : joins) {
    groups[target].push_back(folder);
    report.push_back(fmt::format("guessed: {} joins the library of {} (it registers kernels of that folder's ops only)",
                                 folder, target));
  }
  std::vector<Folders> result;
  for (auto& entry : groups) {
    result.push_back(entry.second);
  }
  return result;
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
    block.when.tensorflow = *project::parse_version_range(rule.tensorflow);
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

// The op sources of a tree, by folder, and what grouping them into libraries needs.
struct Planner
{
  const AdoptedTree& tree;
  Adoption& adoption;
  std::map<std::string, std::vector<const SourceScan*>> by_folder;
  std::vector<const FoundKernel*> kernels;
  std::set<std::string> registered; // op names, once each
  std::vector<std::string> problems;
  std::vector<Mention> mentions;
  std::set<std::string> outputs;
  std::vector<std::string> sources; // of every library

  // The sources of a group's folders: plain, and a `device: gpu` block for .cu.cc/.cu.
  void add_sources(project::LibrarySpec& library, const Folders& group)
  {
    project::SettingsBlock plain;
    project::SettingsBlock gpu;
    gpu.when.device = "gpu";
    for (const std::string& file : tree.files) {
      bool member = std::find(group.begin(), group.end(), parent_of(file)) != group.end();
      if (member && is_source(file) && !has_component(file, "third_party")) {
        (is_gpu_source(file) ? gpu : plain).sources.push_back(file);
        sources.push_back(file);
      }
    }
    library.settings.push_back(plain);
    if (!gpu.sources.empty()) {
      library.settings.push_back(gpu);
    }
    adoption.report.push_back(fmt::format("found: library {} in {} ({}{})", library.name, join(group, ", "),
                                          plural(plain.sources.size(), "source"),
                                          gpu.sources.empty() ? "" : ", " + plural(gpu.sources.size(), "GPU source")));
  }

  void add_ops(project::LibrarySpec& library, const Folders& group)
  {
    for (const std::string& member : group) {
      for (const SourceScan* scan : by_folder.at(member)) {
        for (const FoundOp& op : scan->ops) {
          if (!registered.insert(op.op.name).second) {
            problems.push_back(
              fmt::format("{}: op {} is registered again; the first registration is kept", op.place.str(), op.op.name));
            continue;
          }
          library.ops.push_back(op.op);
          adoption.report.push_back(fmt::format(
            "found: op {} ({}; {}, {}, {})", op.op.name, op.place.str(), plural(op.op.inputs.size(), "input"),
            plural(op.op.outputs.size(), "output"), plural(op.op.attrs.size(), "attr")));
          add_kernels(library.ops.back(), kernels, adoption.report);
          if (library.ops.back().kernels.empty()) {
            adoption.report.push_back(fmt::format("note: op {} has no kernel in the tree", op.op.name));
          }
        }
      }
    }
  }

  // Namespaced op names abort the load on older TensorFlow (configs/frameworks/tensorflow.yaml).
  void guess_versions(project::LibrarySpec& library)
  {
    auto namespaced = std::find_if(library.ops.begin(), library.ops.end(),
                                   [](const project::OpSpec& op) { return op.name.find('>') != std::string::npos; });
    if (namespaced != library.ops.end()) {
      std::string range = ">=" + project::FrameworkTable::tensorflow().namespaced_op_names_since();
      library.tensorflow = *project::parse_version_range(range);
      adoption.report.push_back(fmt::format("guessed: library {} is built for TensorFlow {} (older versions abort "
                                            "loading a namespaced op name such as {})",
                                            library.name, range, namespaced->name));
    }
  }

  void guess_output(project::LibrarySpec& library, const std::vector<Folders>& groups, size_t index)
  {
    bool by_folder_name = false;
    std::optional<Mention> output = python_output(library.name, groups, index, mentions, by_folder_name);
    if (output && outputs.insert(output->name).second) {
      library.output = output->name;
      adoption.report.push_back(fmt::format("guessed: library {} builds {} ({} loads it{})", library.name, output->name,
                                            output->file,
                                            by_folder_name ? "; its name matches the library's folder" : ""));
      return;
    }
    library.output = "lib" + library.name + ".so";
    adoption.report.push_back(fmt::format("guessed: library {} builds {} (the default: {})", library.name,
                                          library.output,
                                          output ? output->name + ", which a Python file names, is another library's"
                                                 : "no Python file here names another file"));
  }
};

} // namespace

Adoption
plan_adoption(const AdoptedTree& tree, const std::string& folder, const AdoptOptions& options)
{
  std::string folder_name = stdfs::path(folder).filename().string();
  Adoption adoption;
  adoption.name = options.name.empty() ? snake_name(folder_name, "project name", folder_name)
                                       : project::derive_names(options.name, "project name").snake;
  for (const std::string& version : options.tf_versions) {
    if (!project::parse_version(version) && !starts_with(version, "tensorflow-")) {
      fail(ExitCode::usage, "--tf {}: not a TensorFlow version (e.g. 1.12 or 2.10.1)", version);
    }
    adoption.tf_versions.push_back(version);
  }
  Planner planner{tree, adoption, {}, {}, {}, {}, so_mentions(tree.python), {}, {}};
  for (const SourceScan& scan : tree.scans) {
    if (is_source(scan.file) && scan.registers) {
      planner.by_folder[parent_of(scan.file)].push_back(&scan);
      for (const FoundKernel& kernel : scan.kernels) {
        planner.kernels.push_back(&kernel);
      }
      planner.problems.insert(planner.problems.end(), scan.problems.begin(), scan.problems.end());
    }
  }
  if (planner.by_folder.empty()) {
    fail(ExitCode::usage,
         "{}: no op sources: no .cc file registers an op (REGISTER_OP) or a kernel (REGISTER_KERNEL_BUILDER)", folder);
  }
  std::vector<Folders> groups = group_folders(planner.by_folder, !options.single_library.empty(), adoption.report);
  std::vector<std::string> names =
    options.single_library.empty()
      ? library_names(groups, folder_name)
      : std::vector<std::string>{project::derive_names(options.single_library, "library name").snake};
  for (size_t i = 0; i < groups.size(); ++i) {
    project::LibrarySpec library;
    library.name = names[i];
    planner.add_sources(library, groups[i]);
    planner.add_ops(library, groups[i]);
    planner.guess_versions(library);
    planner.guess_output(library, groups, i);
    adoption.libraries.push_back(library);
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
  if (adoption.tf_versions.empty()) {
    adoption.report.push_back("note: no targets written: pass --tf to `opkit build`, or add targets.tensorflow");
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
  std::error_code ec;
  stdfs::path home = stdfs::weakly_canonical(sdk::opkit_home(), ec);
  stdfs::recursive_directory_iterator it(root, stdfs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    const stdfs::directory_entry& entry = *it;
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) {
      if (skipped_folder(entry.path(), home)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!entry.is_regular_file(type_ec)) {
      continue;
    }
    std::string path = entry.path().lexically_relative(root).generic_string();
    files.push_back(path);
    std::string extension = entry.path().extension().string();
    bool is_cpp =
      std::set<std::string>{".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp", ".hh", ".cuh", ".inc"}.count(extension) != 0;
    uintmax_t size = entry.file_size(type_ec);
    if (type_ec || size > (4u << 20) || !(is_cpp || extension == ".py") || has_component(path, "third_party")) {
      continue;
    }
    try {
      (is_cpp ? cpp : python).push_back({path, fs::read_file(entry.path())});
    } catch (const Error& e) {
      log_warning("{} (skipped)", e.what());
    }
  }
  if (ec) {
    fail(ExitCode::system, "{}: cannot read the folder: {}", root, ec.message());
  }
  return scan_tree(std::move(files), cpp, std::move(python));
}

} // namespace opkit::adopt
