#include "opkit/adopt/boundaries.hpp"

#include "opkit/adopt/library_naming.hpp"

#include "opkit/project/names.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace opkit::adopt {

using build_files_detail::parent_of;

namespace {

using Folders = std::vector<std::string>;

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

// A library before the names are settled.
struct Candidate
{
  LibraryGroup group;
  std::vector<std::string> parts;     // naming: the folder's components, then the file's stem
  std::string where;                  // naming errors: what it came from
  std::string origin;                 // `lumen/text/BUILD:3 tf_custom_op_library "_x.so"`, `folder acme/text`
  std::string why;                    // said after the origin
  Folders folders;                    // a folder group's folders (its file name is guessed)
  const LoadedName* loader = nullptr; // the loader that named it (a split), or its folder's file
};

std::vector<std::string>
folder_parts(const std::string& folder, const std::string& tree_name)
{
  return folder == "." ? std::vector<std::string>{tree_name} : split(folder, '/');
}

std::string
counts(const LibraryGroup& group)
{
  return plural(group.sources.size(), "source")
         + (group.gpu_sources.empty() ? "" : ", " + plural(group.gpu_sources.size(), "GPU source"));
}

class Boundaries
{
public:
  Boundaries(const AdoptedTree& tree, const BuildDescription& build, std::vector<std::string>& report)
    : m_tree(tree)
    , m_build(build)
    , m_report(report)
  {
  }

  // The libraries the build files make, in their order; a library's op sources are its own.
  void add_declared()
  {
    for (const DeclaredLibrary& library : m_build.libraries) {
      std::string origin = library.origin();
      auto same = std::find_if(m_candidates.begin(), m_candidates.end(),
                               [&](const Candidate& c) { return c.group.output == library.output; });
      if (same != m_candidates.end()) {
        m_report.push_back(
          fmt::format("note: {} makes {} again (the first, {}, is kept)", origin, library.output, same->origin));
        continue;
      }
      Candidate candidate;
      bool registers = false;
      std::vector<std::string> files = library.sources;
      files.insert(files.end(), library.gpu_sources.begin(), library.gpu_sources.end());
      for (const std::string& file : files) {
        bool gpu = is_gpu_source(file) || std::count(library.gpu_sources.begin(), library.gpu_sources.end(), file);
        if (!is_source(file) && !(gpu && is_code(file))) {
          continue; // a header: found through the includes
        }
        if (registering(file) && m_claimed.count(file) != 0) {
          m_report.push_back(
            fmt::format("note: {}: {} is in an earlier library already (left out of this one)", origin, file));
          continue;
        }
        registers = registers || registering(file);
        std::vector<std::string>& list = gpu ? candidate.group.gpu_sources : candidate.group.sources;
        if (std::find(list.begin(), list.end(), file) == list.end()) {
          list.push_back(file);
        }
      }
      if (!registers) {
        m_report.push_back(fmt::format("note: {} registers no op of its own (not a library of opkit.yaml)", origin));
        continue;
      }
      candidate.group.output = library.output;
      candidate.group.python_module = library.python_module;
      candidate.origin = origin;
      std::string folder = parent_of(library.place.file);
      candidate.parts = folder == "." ? std::vector<std::string>{} : split(folder, '/');
      candidate.parts.push_back(name_of(library.output));
      candidate.where = origin;
      add(std::move(candidate));
    }
  }

  // Folder groups of the op sources left; a folder group that Python loaders
  // split (their names' stems name its sources) becomes their libraries.
  void add_folders(const AdoptOptions& options, const std::string& tree_name)
  {
    std::map<std::string, std::vector<const SourceScan*>> by_folder;
    for (const SourceScan& scan : m_tree.scans) {
      if (is_source(scan.file) && scan.registers && m_claimed.count(scan.file) == 0) {
        by_folder[parent_of(scan.file)].push_back(&scan);
      }
    }
    if (by_folder.empty()) {
      return;
    }
    bool single = !options.single_library.empty();
    for (const Folders& folders : group_folders(by_folder, single, m_report)) {
      const LoadedName* whole = single ? nullptr : split_by_loaders(folders, tree_name, !options.per_folder);
      whole = whole && made(whole->output) ? nullptr : whole; // two folders naming one file: neither takes it
      Candidate candidate;
      candidate.loader = whole;
      candidate.group.output = whole ? whole->output : "";
      note_programs(folders);
      for (const std::string& file : unclaimed(folders)) {
        (is_gpu_source(file) ? candidate.group.gpu_sources : candidate.group.sources).push_back(file);
      }
      if (std::none_of(candidate.group.sources.begin(), candidate.group.sources.end(),
                       [&](const std::string& f) { return registering(f); })
          && std::none_of(candidate.group.gpu_sources.begin(), candidate.group.gpu_sources.end(),
                          [&](const std::string& f) { return registering(f); })) {
        continue;
      }
      candidate.folders = folders;
      candidate.parts =
        single ? std::vector<std::string>{options.single_library} : folder_parts(folders.front(), tree_name);
      candidate.where = "folder " + folders.front();
      candidate.origin =
        single ? "--single-library" : fmt::format("folder{} {}", folders.size() == 1 ? "" : "s", join(folders, ", "));
      candidate.why = single               ? "every op source"
                      : options.per_folder ? "--lib-per-folder"
                                           : "no build file names its sources";
      add(std::move(candidate));
    }
  }

  std::vector<LibraryGroup> finish(const AdoptOptions& options)
  {
    std::vector<std::vector<std::string>> parts;
    std::vector<std::string> where;
    for (const Candidate& candidate : m_candidates) {
      parts.push_back(candidate.parts);
      where.push_back(candidate.where);
    }
    std::vector<std::string> names =
      options.single_library.empty()
        ? library_names(parts, where, m_report)
        : std::vector<std::string>{project::derive_names(options.single_library, "library name").snake};
    std::vector<Folders> folder_groups;
    for (const Candidate& candidate : m_candidates) {
      folder_groups.push_back(candidate.folders.empty() ? Folders{""} : candidate.folders);
    }
    std::set<std::string> outputs;
    for (const Candidate& candidate : m_candidates) {
      outputs.insert(candidate.group.output);
    }
    outputs.erase("");
    std::vector<Mention> mentions = so_mentions(m_tree.python);
    std::vector<LibraryGroup> groups;
    for (size_t i = 0; i < m_candidates.size(); ++i) {
      Candidate& candidate = m_candidates[i];
      LibraryGroup& group = candidate.group;
      group.name = names[i];
      if (candidate.folders.empty()) {
        std::string loaded = candidate.loader ? "" : loaded_by(group.output);
        group.lines.push_back(fmt::format("found: library {} <- {} ({}{}{})", group.name, candidate.origin,
                                          candidate.why.empty() ? "" : candidate.why + ": ", counts(group),
                                          loaded.empty() ? "" : "; loaded by " + loaded));
      } else {
        group.lines.push_back(fmt::format("{}: library {} <- {} ({}; {})",
                                          options.single_library.empty() ? "guessed" : "found", group.name,
                                          candidate.origin, candidate.why, counts(group)));
        if (candidate.loader != nullptr) {
          group.lines.push_back(
            fmt::format("guessed: library {} builds {} ({}: {} loads it; its op sources are named {}_*)", group.name,
                        group.output, candidate.loader->place.str(), candidate.loader->call, stem_of(group.output)));
        } else {
          guess_output(group, folder_groups, i, mentions, outputs);
        }
      }
      groups.push_back(group);
    }
    for (const LoadedName& loaded : m_build.loaded) {
      if (outputs.count(loaded.output) == 0) {
        m_report.push_back(fmt::format("note: {}: {} loads {}, which no library here makes", loaded.place.str(),
                                       loaded.call, loaded.output));
        outputs.insert(loaded.output);
      }
    }
    std::sort(groups.begin(), groups.end(),
              [](const LibraryGroup& a, const LibraryGroup& b) { return a.name < b.name; });
    return groups;
  }

private:
  const AdoptedTree& m_tree;
  const BuildDescription& m_build;
  std::vector<std::string>& m_report;
  std::set<std::string> m_claimed; // files a library compiles
  std::vector<Candidate> m_candidates;

  static bool is_code(const std::string& file)
  {
    return is_gpu_source(file) || ends_with(file, ".cc") || ends_with(file, ".cpp");
  }

  bool registering(const std::string& file) const
  {
    const SourceScan* scan = m_tree.find(file);
    return scan != nullptr && scan->registers;
  }

  void add(Candidate candidate)
  {
    std::sort(candidate.group.sources.begin(), candidate.group.sources.end());
    std::sort(candidate.group.gpu_sources.begin(), candidate.group.gpu_sources.end());
    m_claimed.insert(candidate.group.sources.begin(), candidate.group.sources.end());
    m_claimed.insert(candidate.group.gpu_sources.begin(), candidate.group.gpu_sources.end());
    m_candidates.push_back(std::move(candidate));
  }

  // The compiled sources of these folders no library has yet, sorted.
  std::vector<std::string> unclaimed(const Folders& folders) const
  {
    std::vector<std::string> files;
    for (const std::string& file : m_tree.files) {
      bool member = std::find(folders.begin(), folders.end(), parent_of(file)) != folders.end();
      if (member && is_source(file) && !has_component(file, "third_party") && m_claimed.count(file) == 0
          && !program(file)) {
        files.push_back(file);
      }
    }
    return files;
  }

  // A program beside the ops (a benchmark's or a test's `int main(`) that
  // registers nothing: no library of folders takes it.
  bool program(const std::string& file) const
  {
    const SourceScan* scan = m_tree.find(file);
    return scan != nullptr && scan->main_line > 0 && !scan->registers;
  }

  void note_programs(const Folders& folders)
  {
    for (const std::string& file : m_tree.files) {
      bool member = std::find(folders.begin(), folders.end(), parent_of(file)) != folders.end();
      if (member && is_source(file) && m_claimed.count(file) == 0 && program(file)) {
        m_report.push_back(fmt::format("note: {}:{}: a program (int main) that registers no op: left out of the "
                                       "library of its folder (a build file naming it would put it in)",
                                       file, m_tree.find(file)->main_line));
      }
    }
  }

  bool made(const std::string& output) const
  {
    return std::any_of(m_candidates.begin(), m_candidates.end(),
                       [&](const Candidate& c) { return c.group.output == output; });
  }

  std::string loaded_by(const std::string& output) const
  {
    for (const LoadedName& loaded : m_build.loaded) {
      if (loaded.output == output) {
        return loaded.place.str();
      }
    }
    return "";
  }

  // Loaders whose stems ("_normalize_ops.so": normalize) begin the names of
  // some of these folders' sources make those sources their library, where
  // that splits the folders (two loaders, or one naming part of the op sources).
  const LoadedName* split_by_loaders(const Folders& folders, const std::string& tree_name, bool split)
  {
    std::vector<std::string> files = unclaimed(folders);
    std::map<std::string, const LoadedName*> by_stem;
    for (const LoadedName& loaded : m_build.loaded) {
      if (!made(loaded.output) && !stem_of(loaded.output).empty()) {
        by_stem.emplace(stem_of(loaded.output), &loaded);
      }
    }
    std::map<std::string, std::vector<std::string>> matched; // stem -> files, each file to its longest stem
    size_t op_sources = 0;
    for (const std::string& file : files) {
      std::string base = file.substr(file.rfind('/') + 1);
      base = base.substr(0, base.find('.'));
      std::string best;
      for (const auto& entry : by_stem) {
        bool named = base == entry.first || starts_with(base, entry.first + "_");
        best = named && entry.first.size() > best.size() ? entry.first : best;
      }
      if (!best.empty()) {
        matched[best].push_back(file);
      }
      op_sources += registering(file) ? 1 : 0;
    }
    std::vector<std::string> stems;
    size_t covered = 0;
    for (const auto& [stem, list] : matched) {
      size_t count =
        static_cast<size_t>(std::count_if(list.begin(), list.end(), [&](auto& f) { return registering(f); }));
      if (count > 0) {
        stems.push_back(stem);
        covered += count;
      }
    }
    if (stems.size() == 1 && covered == op_sources) {
      return by_stem.at(stems.front()); // the folder's library, the file its loader names
    }
    if (stems.empty() || !split) {
      return nullptr;
    }
    for (const std::string& stem : stems) {
      const LoadedName& loaded = *by_stem.at(stem);
      Candidate candidate;
      for (const std::string& file : matched.at(stem)) {
        (is_gpu_source(file) ? candidate.group.gpu_sources : candidate.group.sources).push_back(file);
      }
      candidate.group.output = loaded.output;
      candidate.origin = fmt::format("{} {} \"{}\"", loaded.place.str(), loaded.call, loaded.output);
      candidate.why = fmt::format("its sources in {} are named {}_*", join(folders, ", "), stem);
      candidate.parts = folder_parts(folders.front(), tree_name);
      candidate.parts.push_back(name_of(loaded.output));
      candidate.where = candidate.origin;
      candidate.loader = &loaded;
      add(std::move(candidate));
    }
    return nullptr;
  }

  void guess_output(LibraryGroup& group, const std::vector<Folders>& folder_groups, size_t index,
                    const std::vector<Mention>& mentions, std::set<std::string>& outputs)
  {
    std::string clue;
    std::optional<Mention> output = python_output(group.name, folder_groups, index, mentions, clue);
    if (output && outputs.insert(output->name).second) {
      group.output = output->name;
      group.lines.push_back(
        fmt::format("guessed: library {} builds {} ({} loads it{})", group.name, output->name, output->file, clue));
      return;
    }
    group.output = "lib" + group.name + ".so";
    group.default_output = true;
    group.lines.push_back(fmt::format("guessed: library {} builds {} (the default: {})", group.name, group.output,
                                      output ? output->name + ", which a Python file names, is another library's"
                                             : "no Python file here names another file"));
  }
};

} // namespace

bool
is_source(const std::string& path)
{
  std::string name = path.substr(path.rfind('/') + 1);
  bool source = ends_with(name, ".cc") || ends_with(name, ".cpp") || ends_with(name, ".cu");
  return source && !name.substr(0, name.find('.')).empty() && !ends_with(name.substr(0, name.find('.')), "_test");
}

bool
is_gpu_source(const std::string& path)
{
  return ends_with(path, ".cu.cc") || ends_with(path, ".cu");
}

bool
has_component(const std::string& path, const std::string& component)
{
  return ("/" + path + "/").find("/" + component + "/") != std::string::npos;
}

std::string
plural(size_t count, const char* word)
{
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

std::vector<LibraryGroup>
plan_libraries(const AdoptedTree& tree, const BuildDescription& build, const AdoptOptions& options,
               const std::string& tree_name, std::vector<std::string>& report)
{
  Boundaries boundaries(tree, build, report);
  if (options.single_library.empty() && !options.per_folder) {
    boundaries.add_declared();
  }
  boundaries.add_folders(options, tree_name);
  return boundaries.finish(options);
}

} // namespace opkit::adopt
