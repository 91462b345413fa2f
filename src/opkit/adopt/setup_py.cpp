// setup.py: the extension modules it makes (configs/adopt/build_files.yaml's
// setup_py), read as adopt/call_reader reads Python, with the few library
// calls such files build paths and source lists with (os.path, glob) worked
// out on the tree's own file list. Nothing is run.

#include "opkit/adopt/build_files.hpp"

#include "opkit/adopt/call_lexer.hpp"
#include "opkit/adopt/call_reader.hpp"
#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace opkit::adopt {

using namespace build_files_detail;

namespace {

using ValueKind = CallValue::Kind;

// How deep a source list's nested lists and choices are read.
constexpr int k_max_source_depth = 64;

CallValue
string_value(std::string text, int line)
{
  CallValue value;
  value.kind = ValueKind::string;
  value.text = std::move(text);
  value.line = line;
  return value;
}

// `os.path.X`, `path.X`, `osp.X` (import os.path as osp): X; "" for any other call.
std::string
path_function(const std::string& callee)
{
  for (const char* module : {"os.path.", "path.", "osp."}) {
    if (starts_with(callee, module)) {
      return callee.substr(std::string_view(module).size());
    }
  }
  return "";
}

// Python's posixpath.join (cut short past k_max_string).
std::string
path_join(const std::vector<std::string>& parts)
{
  std::string path;
  for (size_t i = 0; i < parts.size() && path.size() <= call_lexer::k_max_string; ++i) {
    const std::string& part = parts[i];
    if (starts_with(part, "/")) {
      path = part;
      continue;
    }
    path += path.empty() || ends_with(path, "/") ? "" : "/";
    path += part;
  }
  return path; // past k_max_string: no path of the tree
}

// Python's posixpath.dirname ("setup.py": "", "a/b/": "a/b").
std::string
path_dirname(const std::string& path)
{
  std::string head = path.substr(0, path.rfind('/') + 1);
  size_t last = head.find_last_not_of('/');
  return last == std::string::npos ? head : head.substr(0, last + 1);
}

// A path normalized, "" for the setup.py's folder itself.
std::string
path_normal(const std::string& path)
{
  std::string normal = std::filesystem::path(path).lexically_normal().generic_string();
  return normal == "." ? "" : normal;
}

bool
named(const std::vector<std::string>& names, const std::string& callee)
{
  std::string last = callee.substr(callee.rfind('.') + 1);
  return std::find(names.begin(), names.end(), last) != names.end();
}

class SetupReader
{
public:
  SetupReader(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into)
    : m_file(file)
    , m_folder(parent_of(file.path))
    , m_tree_files(tree_files)
    , m_budget(budget)
    , m_into(into)
  {
  }

  void read()
  {
    const project::BuildFileRules& rules = project::build_file_rules();
    CallContext context;
    // Paths are relative to the setup.py's folder, where pip runs it ("" is the folder itself).
    context.variables["__file__"] = string_value(m_file.path.substr(m_file.path.rfind('/') + 1), 0);
    context.variables["os.curdir"] = string_value(".", 0);
    context.variables["os.path.curdir"] = string_value(".", 0);
    context.evaluate = [this](const CallValue& call) { return evaluate(call); };
    ReadCalls read =
      read_calls(m_file.text, {rules.setup_extensions.begin(), rules.setup_extensions.end()}, m_file.path, context);
    for (const CallValue& call : read.calls) {
      add_extension(call);
    }
  }

private:
  const TreeText& m_file;
  std::string m_folder;
  const std::vector<std::string>& m_tree_files;
  Budget& m_budget;
  BuildDescription& m_into;

  // The value of a call setup.py files build paths and lists with; nothing for any other.
  std::optional<CallValue> evaluate(const CallValue& call)
  {
    std::vector<std::string> strings;
    for (const CallValue& item : call.items) {
      if (item.kind == ValueKind::string) {
        strings.push_back(item.text);
      }
    }
    bool plain = strings.size() == call.items.size() && call.keywords.empty();
    std::string function = path_function(call.text);
    if (function == "join" && plain && !strings.empty()) {
      std::string joined = path_join(strings);
      if (joined.size() <= call_lexer::k_max_string) {
        return string_value(std::move(joined), call.line);
      }
      return std::nullopt;
    }
    if (plain && strings.size() == 1
        && (function == "dirname" || function == "abspath" || function == "realpath" || function == "normpath")) {
      return string_value(function == "dirname" ? path_dirname(strings[0]) : path_normal(strings[0]), call.line);
    }
    if (call.text == "os.getcwd" && call.items.empty()) {
      return string_value("", call.line);
    }
    if (call.text == "glob" || call.text == "glob.glob" || call.text == "glob.iglob" || call.text == "iglob") {
      return glob(call);
    }
    bool copy = call.text == "list" || call.text == "sorted" || call.text == "tuple";
    if (copy && call.items.size() == 1 && call.keywords.empty() && call.items[0].kind == ValueKind::list) {
      CallValue list = call.items[0];
      if (call.text == "sorted") {
        std::stable_sort(list.items.begin(), list.items.end(),
                         [](const CallValue& a, const CallValue& b) { return a.text < b.text; });
      }
      return list;
    }
    return std::nullopt;
  }

  // glob.glob(pattern, recursive=...): the tree's files the pattern matches,
  // as Python's glob (`**` any folders only when recursive), relative to the
  // setup.py's folder; a pattern reaching out of the tree matches none.
  CallValue glob(const CallValue& call)
  {
    const CallValue* pattern = call.items.empty() ? call.keyword("pathname") : &call.items[0];
    const CallValue* recursive = call.keyword("recursive");
    CallValue found;
    found.line = call.line;
    if (pattern == nullptr || pattern->kind != ValueKind::string) {
      std::string why = pattern != nullptr ? call_lexer::why_not(*pattern) : "";
      found.why = fmt::format("{}(...) of a pattern opkit cannot read{}", call.text, why.empty() ? "" : ": " + why);
      return found;
    }
    found.kind = ValueKind::list;
    std::string whole = path_normal(m_folder == "." ? pattern->text : m_folder + "/" + pattern->text);
    if (starts_with(pattern->text, "/") || whole == ".." || starts_with(whole, "../")) {
      m_into.notes.push_back(fmt::format("note: {}:{}: {}(\"{}\") looks outside the tree (no file taken)", m_file.path,
                                         call.line, call.text, call_lexer::quoted(pattern->text)));
      return found;
    }
    if (recursive == nullptr || recursive->text != "True") {
      for (size_t at = whole.find("**"); at != std::string::npos; at = whole.find("**", at)) {
        whole.erase(at, 1); // `**` is `*` unless recursive
      }
    }
    for (const std::string& file : glob_files(".", whole, m_tree_files, m_budget)) {
      found.items.push_back(string_value(relative_to(m_folder, file), call.line));
    }
    return found;
  }

  void note(int line, const std::string& text)
  {
    m_into.notes.push_back(fmt::format("note: {}:{}: {}", m_file.path, line, text));
  }

  void add_extension(const CallValue& call)
  {
    std::string written = call.via.empty() ? call.text : call.via;
    if (!call.why.empty()) {
      note(call.via_line, fmt::format("{} ({}(...) on line {}: skipped)", call.why, written, call.line));
      return;
    }
    const CallValue* name = call.items.empty() ? call.keyword("name") : &call.items[0];
    const CallValue* sources = call.keyword("sources");
    sources = sources ? sources : call.items.size() > 1 ? &call.items[1] : nullptr;
    std::string module = name != nullptr ? name->text.substr(name->text.rfind('.') + 1) : "";
    if (name == nullptr || name->kind != ValueKind::string || module.empty()) {
      std::string why = name != nullptr ? call_lexer::why_not(*name) : "it has none";
      note(call.line, fmt::format("{}(...): its name is not a string opkit can read{} (skipped)", written,
                                  why.empty() ? "" : " (" + why + ")"));
      return;
    }
    if (sources == nullptr || (sources->kind != ValueKind::list && sources->kind != ValueKind::choice)) {
      std::string why = sources != nullptr ? call_lexer::why_not(*sources) : "it has none";
      note(call.line, fmt::format("{}(...) of {}: its sources are not a list opkit can read{} (skipped)", written,
                                  name->text, why.empty() ? "" : " (" + why + ")"));
      return;
    }
    DeclaredLibrary library;
    library.output = module + ".so";
    library.python_module = name->text;
    library.place = {m_file.path, call.line};
    library.rule = call.via.empty()           ? call.callee()
                   : call.alternative.empty() ? fmt::format("{} ({})", call.via, call.callee())
                                              : fmt::format("{} ({} or {})", call.via, call.callee(),
                                                            call.alternative.substr(call.alternative.rfind('.') + 1));
    add_sources(library, *sources, gpu_condition(call), false, 0);
    auto compiled = [&](const std::string& file) {
      return std::find(library.sources.begin(), library.sources.end(), file) != library.sources.end();
    };
    library.gpu_sources.erase(std::remove_if(library.gpu_sources.begin(), library.gpu_sources.end(), compiled),
                              library.gpu_sources.end());
    m_into.libraries.push_back(std::move(library));
  }

  // The condition under which the call makes the CUDA class's extension, where
  // the other is not one (configs/adopt/build_files.yaml's cuda_extensions); "" otherwise.
  static std::string gpu_condition(const CallValue& call)
  {
    const std::vector<std::string>& cuda = project::build_file_rules().setup_cuda_extensions;
    if (call.alternative.empty() || named(cuda, call.text) == named(cuda, call.alternative)) {
      return "";
    }
    return named(cuda, call.text) ? call.condition : call_lexer::negated(call.condition);
  }

  // A source list's files: those a CUDA build alone adds (`if use_cuda:
  // sources += ...`, the CUDA side of a choice) and .cu files as GPU sources.
  void add_sources(DeclaredLibrary& library, const CallValue& value, const std::string& gpu_condition, bool gpu,
                   int depth)
  {
    if (depth > k_max_source_depth) {
      note(value.line, fmt::format("a source of {} nested too deep for opkit (left out)", library.output));
      return;
    }
    if (value.kind == ValueKind::choice) {
      bool cuda_first = !gpu_condition.empty() && value.text == gpu_condition;
      bool cuda_second = !gpu_condition.empty() && value.text == call_lexer::negated(gpu_condition);
      add_sources(library, value.items[1], gpu_condition, gpu || cuda_second, depth + 1);
      add_sources(library, value.items[0], gpu_condition, gpu || cuda_first, depth + 1);
      return;
    }
    if (value.kind == ValueKind::list) {
      for (const CallValue& item : value.items) {
        bool conditional = item.conditions && !gpu_condition.empty()
                           && std::count(item.conditions->begin(), item.conditions->end(), gpu_condition) != 0;
        add_sources(library, item, gpu_condition, gpu || conditional, depth + 1);
      }
      return;
    }
    if (value.kind != ValueKind::string) {
      std::string why = call_lexer::why_not(value);
      note(value.line, fmt::format("a source of {} opkit cannot read{} (the rest is used)", stem(library.output),
                                   why.empty() ? "" : " (" + why + ")"));
      return;
    }
    bool cuda = gpu || ends_with(value.text, ".cu");
    add_source(cuda ? library.gpu_sources : library.sources, m_folder, value.text, m_tree_files,
               {m_file.path, value.line}, m_into.notes);
  }

  static std::string stem(const std::string& output) { return output.substr(0, output.size() - 3); }
};

} // namespace

namespace build_files_detail {

void
read_setup_py(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into)
{
  SetupReader(file, tree_files, budget, into).read();
}

} // namespace build_files_detail

} // namespace opkit::adopt
