#include "opkit/adopt/build_files.hpp"

#include "opkit/adopt/call_reader.hpp"
#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

namespace opkit::adopt {

using namespace build_files_detail;

namespace {

using ValueKind = CallValue::Kind;

std::string
file_name(const std::string& path)
{
  return path.substr(path.rfind('/') + 1);
}

bool
named_in(const std::vector<std::string>& names, const std::string& path)
{
  return std::find(names.begin(), names.end(), file_name(path)) != names.end();
}

// A compile script's name against the patterns ("*_compile.sh").
bool
script_named(const std::vector<std::string>& patterns, const std::string& path)
{
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return glob_match(pattern, file_name(path)); });
}

// A Bazel target: its package (the BUILD file's folder) and name.
struct Label
{
  std::string package;
  std::string name;
};

// "//pkg:name", "//pkg", ":name", "name" (relative to `package`); nothing for "@repo//...".
std::optional<Label>
parse_label(const std::string& package, const std::string& text)
{
  if (text.empty() || text[0] == '@') {
    return std::nullopt;
  }
  if (starts_with(text, "//")) {
    std::string rest = text.substr(2);
    size_t colon = rest.find(':');
    std::string pkg = colon == std::string::npos ? rest : rest.substr(0, colon);
    std::string name = colon == std::string::npos ? file_name(rest) : rest.substr(colon + 1);
    return Label{pkg.empty() ? "." : pkg, name};
  }
  return Label{package, text[0] == ':' ? text.substr(1) : text};
}

struct BazelTarget
{
  const CallValue* call;
  Place place;
  std::string package;
};

class BazelReader
{
public:
  BazelReader(const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into)
    : m_files(tree_files)
    , m_budget(budget)
    , m_into(into)
  {
  }

  void add_file(const TreeText& file)
  {
    const project::BuildFileRules& rules = project::build_file_rules();
    std::set<std::string> names(rules.bazel_static.begin(), rules.bazel_static.end());
    for (const auto& rule : rules.bazel_shared) {
      names.insert(rule.rule);
    }
    m_reads.push_back(read_calls(file.text, names, file.path));
    std::string package = parent_of(file.path);
    m_packages.insert(package);
    for (const CallValue& call : m_reads.back().calls) {
      const CallValue* name = call.keyword("name");
      if (name == nullptr || name->kind != ValueKind::string) {
        m_into.notes.push_back(
          fmt::format("note: {}:{}: {} has no plain string name (skipped)", file.path, call.line, call.callee()));
        continue;
      }
      m_targets[package + ":" + name->text] = {&call, {file.path, call.line}, package};
      m_order.push_back(package + ":" + name->text);
    }
  }

  void finish()
  {
    const project::BuildFileRules& rules = project::build_file_rules();
    for (const std::string& key : m_order) {
      const BazelTarget& target = m_targets.at(key);
      const CallValue& call = *target.call;
      auto rule = std::find_if(rules.bazel_shared.begin(), rules.bazel_shared.end(),
                               [&](const auto& r) { return r.rule == call.callee(); });
      if (rule == rules.bazel_shared.end() || (!rule->needs.empty() && !is_true(call.keyword(rule->needs)))) {
        continue;
      }
      DeclaredLibrary library;
      library.output = file_name(call.keyword("name")->text);
      library.place = target.place;
      library.rule = call.callee();
      if (!ends_with(library.output, ".so")) {
        m_into.notes.push_back(fmt::format("note: {}: {} \"{}\" does not make a *.so file (skipped)",
                                           target.place.str(), library.rule, library.output));
        continue;
      }
      add_files(library.sources, target, "srcs", &library.gpu_sources);
      add_files(library.sources, target, "hdrs", &library.gpu_sources);
      if (!rule->gpu_sources.empty()) {
        add_files(library.gpu_sources, target, rule->gpu_sources.c_str());
      }
      std::set<std::string> visited{key};
      add_deps(library.sources, library.gpu_sources, target, visited, 0);
      m_into.libraries.push_back(std::move(library));
    }
  }

private:
  const std::vector<std::string>& m_files;
  Budget& m_budget;
  BuildDescription& m_into;
  std::deque<ReadCalls> m_reads; // m_targets point into it
  std::set<std::string> m_packages;
  std::map<std::string, BazelTarget> m_targets; // "package:name"
  std::vector<std::string> m_order;

  static bool is_true(const CallValue* value)
  {
    return value != nullptr && (value->text == "1" || value->text == "True");
  }

  // A file of the package, not of a package below it (which has its own BUILD file).
  bool in_package(const std::string& package, const std::string& file) const
  {
    for (std::string folder = parent_of(file); folder != package && folder != "."; folder = parent_of(folder)) {
      if (m_packages.count(folder) != 0) {
        return false;
      }
    }
    return true;
  }

  void glob(std::vector<std::string>& into, const BazelTarget& target, const CallValue& call)
  {
    const CallValue* include = call.items.empty() ? call.keyword("include") : &call.items.front();
    const CallValue* exclude = call.keyword("exclude");
    if (include == nullptr || include->kind != ValueKind::list) {
      note_unreadable(target, "glob", call.line);
      return;
    }
    std::vector<std::string> excluded;
    for (const CallValue& item : exclude ? exclude->items : std::vector<CallValue>{}) {
      if (item.kind == ValueKind::string) {
        excluded.push_back(item.text);
      }
    }
    for (const CallValue& pattern : include->items) {
      if (pattern.kind != ValueKind::string) {
        note_unreadable(target, "glob", pattern.line);
        continue;
      }
      for (const std::string& file : glob_files(target.package, pattern.text, m_files, m_budget)) {
        std::string relative = target.package == "." ? file : file.substr(target.package.size() + 1);
        bool skip = !in_package(target.package, file)
                    || std::any_of(excluded.begin(), excluded.end(), [&](auto& e) { return glob_match(e, relative); });
        if (!skip && std::find(into.begin(), into.end(), file) == into.end()) {
          require_room(into, {target.place.file, pattern.line});
          into.push_back(file);
        }
      }
    }
  }

  void note_unreadable(const BazelTarget& target, const char* what, int line)
  {
    m_into.notes.push_back(
      fmt::format("note: {}:{}: {} of \"{}\" is not a list of names opkit reads (the rest is used)", target.place.file,
                  line, what, target.call->keyword("name")->text));
  }

  // A call of configs/adopt/build_files.yaml's bazel gpu_conditions (if_cuda([...]),
  // if_cuda_is_configured([...])) whose first argument is what CUDA builds add.
  static bool gpu_condition(const CallValue& value)
  {
    const std::vector<std::string>& conditions = project::build_file_rules().bazel_gpu_conditions;
    return value.kind == ValueKind::call && !value.items.empty()
           && std::find(conditions.begin(), conditions.end(), value.callee()) != conditions.end();
  }

  // A value's files into `into`; those under a GPU condition into `gpu_into`
  // (nullptr: they are GPU sources already).
  void add_value(std::vector<std::string>& into, const BazelTarget& target, const CallValue& value, const char* key,
                 std::vector<std::string>* gpu_into)
  {
    if (value.kind == ValueKind::list) {
      for (const CallValue& item : value.items) {
        add_value(into, target, item, key, gpu_into);
      }
    } else if (value.kind == ValueKind::call && value.text == "glob") {
      glob(into, target, value);
    } else if (gpu_condition(value) && gpu_into != nullptr) { // srcs + if_cuda([...]): CUDA builds only
      add_value(*gpu_into, target, value.items[0], key, gpu_into);
    } else if (value.kind == ValueKind::string) {
      std::optional<Label> label = parse_label(target.package, value.text);
      bool rule = !value.text.empty() && value.text[0] == ':';
      if (label && !rule) {
        add_source(into, label->package, label->name, m_files, {target.place.file, value.line}, m_into.notes);
      }
    } else {
      note_unreadable(target, key, value.line);
    }
  }

  void add_files(std::vector<std::string>& into, const BazelTarget& target, const char* key,
                 std::vector<std::string>* gpu_into = nullptr)
  {
    const CallValue* value = target.call->keyword(key);
    if (value != nullptr) {
      add_value(into, target, *value, key, gpu_into);
    }
  }

  // The srcs and hdrs of the local static libraries `deps` names, and of
  // theirs; those named under a GPU condition (deps = [...] +
  // if_cuda_is_configured([":x_gpu"])) into `gpu_into`. A dep opkit cannot
  // read is a note, never dropped silently.
  void add_deps(std::vector<std::string>& into, std::vector<std::string>& gpu_into, const BazelTarget& target,
                std::set<std::string>& visited, int depth)
  {
    const CallValue* deps = target.call->keyword("deps");
    if (deps == nullptr || deps->kind != ValueKind::list || depth > 32) {
      return;
    }
    for (const CallValue& dep : deps->items) {
      if (gpu_condition(dep) && dep.items[0].kind == ValueKind::list) {
        for (const CallValue& gpu_dep : dep.items[0].items) {
          add_dep(gpu_into, gpu_into, target, gpu_dep, visited, depth);
        }
      } else if (dep.kind == ValueKind::string) {
        add_dep(into, gpu_into, target, dep, visited, depth);
      } else {
        note_unreadable(target, "deps", dep.line);
      }
    }
  }

  void add_dep(std::vector<std::string>& into, std::vector<std::string>& gpu_into, const BazelTarget& target,
               const CallValue& dep, std::set<std::string>& visited, int depth)
  {
    const std::vector<std::string>& statics = project::build_file_rules().bazel_static;
    std::optional<Label> label =
      dep.kind == ValueKind::string ? parse_label(target.package, dep.text) : std::optional<Label>{};
    auto found = label ? m_targets.find(label->package + ":" + label->name) : m_targets.end();
    if (found == m_targets.end() || !visited.insert(found->first).second
        || std::find(statics.begin(), statics.end(), found->second.call->callee()) == statics.end()) {
      return;
    }
    bool gpu = &into == &gpu_into;
    add_files(into, found->second, "srcs", gpu ? nullptr : &gpu_into);
    add_files(into, found->second, "hdrs", gpu ? nullptr : &gpu_into);
    add_deps(into, gpu_into, found->second, visited, depth + 1);
  }
};

// Every string among a value's (nested) arguments, and the text of each f-string opkit could not fill.
void
strings_of(const CallValue& value, std::vector<const CallValue*>& into)
{
  if (value.kind == ValueKind::string || (value.kind == ValueKind::unknown && !value.text.empty())) {
    into.push_back(&value);
  }
  for (const CallValue& item : value.items) {
    strings_of(item, into);
  }
  for (const auto& keyword : value.keywords) {
    strings_of(keyword.second, into);
  }
}

void
read_loaders(const TreeText& file, BuildDescription& into)
{
  const std::vector<std::string>& loaders = project::build_file_rules().python_loaders;
  if (std::none_of(loaders.begin(), loaders.end(),
                   [&](const std::string& name) { return file.text.find(name) != std::string::npos; })) {
    return;
  }
  std::set<std::string> seen;
  for (const CallValue& call : read_calls(file.text, {loaders.begin(), loaders.end()}, file.path).calls) {
    std::vector<const CallValue*> strings;
    strings_of(call, strings);
    for (const CallValue* string : strings) {
      std::string name = file_name(string->text);
      if (ends_with(name, ".so") && name.size() > 3 && seen.insert(name).second) {
        into.loaded.push_back({name, {file.path, string->line}, call.callee()});
      }
    }
  }
}

// Fewest-first DP over path components: `**` matches any number of them.
bool
component_match(std::string_view pattern, std::string_view text)
{
  size_t p = 0;
  size_t t = 0;
  size_t star = std::string_view::npos;
  size_t mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

// '/'-separated parts, as views of `text`.
std::vector<std::string_view>
split_view(std::string_view text)
{
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) {
      return parts;
    }
    start = slash + 1;
  }
}

// A pattern's parts against a path: `**` matches any number of the path's parts.
bool
glob_match_parts(const std::vector<std::string_view>& parts, std::string_view path)
{
  std::vector<std::string_view> names = split_view(path);
  // matches[j]: the parts so far match the path's first j names.
  std::vector<char> matches(names.size() + 1, 0);
  std::vector<char> next(names.size() + 1, 0);
  matches[0] = 1;
  for (std::string_view part : parts) {
    for (size_t j = 0; j <= names.size(); ++j) {
      if (part == "**") {
        next[j] = matches[j] || (j > 0 && next[j - 1]);
      } else {
        next[j] = j > 0 && matches[j - 1] && component_match(part, names[j - 1]);
      }
    }
    matches.swap(next);
  }
  return matches[names.size()] != 0;
}

} // namespace

namespace build_files_detail {

std::string
parent_of(const std::string& path)
{
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string
relative_to(const std::string& folder, const std::string& path)
{
  return folder == "." ? path : std::filesystem::path(path).lexically_relative(folder).generic_string();
}

bool
glob_match(std::string_view pattern, std::string_view path)
{
  return glob_match_parts(split_view(pattern), path);
}

std::vector<std::string>
glob_files(const std::string& folder, const std::string& pattern, const std::vector<std::string>& tree_files,
           Budget& budget)
{
  std::vector<std::string> found;
  std::string prefix = folder == "." ? "" : folder + "/";
  if (budget.glob_tests < tree_files.size()) {
    budget.spent = true;
    return found;
  }
  budget.glob_tests -= tree_files.size();
  std::vector<std::string_view> parts = split_view(pattern);
  for (const std::string& file : tree_files) {
    if (starts_with(file, prefix) && glob_match_parts(parts, std::string_view(file).substr(prefix.size()))) {
      found.push_back(file);
    }
  }
  return found;
}

void
require_room(const std::vector<std::string>& list, const Place& place)
{
  size_t max = project::build_file_rules().max_sources;
  if (list.size() >= max) {
    throw Error(ExitCode::usage,
                fmt::format("{}: a library of more than {} sources: opkit init reads no more (is a glob matching the "
                            "whole tree?)",
                            place.str(), max),
                "narrow the build file's sources, or write opkit.yaml by hand");
  }
}

bool
add_source(std::vector<std::string>& list, const std::string& folder, const std::string& written,
           const std::vector<std::string>& tree_files, const Place& place, std::vector<std::string>& notes)
{
  std::string path = (std::filesystem::path(folder == "." ? "" : folder) / written).lexically_normal().generic_string();
  bool found = !written.empty() && written[0] != '/' && !starts_with(path, "../")
               && std::binary_search(tree_files.begin(), tree_files.end(), path);
  if (!found) {
    notes.push_back(fmt::format("note: {}: \"{}\" is not a file of the tree (left out)", place.str(), written));
    return false;
  }
  if (std::find(list.begin(), list.end(), path) == list.end()) {
    require_room(list, place);
    list.push_back(path);
  }
  return true;
}

} // namespace build_files_detail

std::string
DeclaredLibrary::origin() const
{
  return fmt::format("{} {} \"{}\"", place.str(), rule, output);
}

bool
is_build_file(const std::string& path)
{
  const project::BuildFileRules& rules = project::build_file_rules();
  return named_in(rules.bazel_files, path) || named_in(rules.cmake_files, path) || named_in(rules.make_files, path)
         || script_named(rules.script_files, path);
}

BuildDescription
read_build_description(const std::vector<TreeText>& build_files, const std::vector<TreeText>& python,
                       const std::vector<std::string>& tree_files)
{
  const project::BuildFileRules& rules = project::build_file_rules();
  BuildDescription description;
  auto readable = [&](const TreeText& file) {
    const char* why = file.text.size() > rules.max_bytes          ? "larger than opkit reads"
                      : file.text.find('\0') != std::string::npos ? "not text (NUL bytes)"
                                                                  : nullptr;
    if (why != nullptr) {
      description.notes.push_back(fmt::format("note: {}: {} (not read)", file.path, why));
    }
    return why == nullptr;
  };
  Budget budget;
  BazelReader bazel(tree_files, budget, description);
  for (const TreeText& file : build_files) {
    if (named_in(rules.bazel_files, file.path) && readable(file)) {
      bazel.add_file(file);
    }
  }
  bazel.finish();
  for (const TreeText& file : python) {
    if (named_in(rules.setup_files, file.path) && readable(file)) {
      read_setup_py(file, tree_files, budget, description);
    }
  }
  for (const TreeText& file : build_files) {
    if (named_in(rules.cmake_files, file.path) && readable(file)) {
      read_cmake(file, tree_files, budget, description);
    }
  }
  for (const TreeText& file : build_files) {
    if (named_in(rules.make_files, file.path) && readable(file)) {
      read_makefile(file, tree_files, budget, description);
    }
  }
  for (const TreeText& file : build_files) {
    if (script_named(rules.script_files, file.path) && readable(file)) {
      read_compile_script(file, tree_files, description);
    }
  }
  for (const TreeText& file : python) {
    if (file.text.size() <= rules.max_bytes) {
      read_loaders(file, description);
    }
  }
  if (budget.spent) {
    description.notes.push_back("note: the build files ask for more globs or variable expansions than opkit does "
                                "(some of their sources are left out)");
  }
  return description;
}

} // namespace opkit::adopt
