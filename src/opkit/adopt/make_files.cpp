// CMake and Makefile readers of build_files.hpp: a tokenizer for the command
// and rule forms that make a shared library, with their variables; no
// generator expressions, functions or conditions.
#include "opkit/adopt/build_files.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>

namespace opkit::adopt {

using namespace build_files_detail;

namespace {

constexpr size_t k_max_value = 64 * 1024; // a variable's value; longer ones stop growing
constexpr int k_max_expansions = 16;      // nested references followed

using Variables = std::map<std::string, std::string>;

// Replaces `open`NAME`close` references (innermost first) by `lookup(NAME)`.
template<typename Lookup>
std::string
expand(std::string text, const std::string& open, char close, Budget& budget, Lookup lookup)
{
  for (int round = 0; round < k_max_expansions && text.find(open) != std::string::npos; ++round) {
    if (budget.expanded < text.size()) {
      budget.spent = true;
      return text;
    }
    budget.expanded -= text.size();
    size_t start = std::string::npos;
    size_t end = std::string::npos;
    for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
      size_t stop = text.find(close, at + open.size());
      size_t inner = text.find(open, at + open.size());
      if (stop != std::string::npos && (inner == std::string::npos || inner > stop)) {
        start = at;
        end = stop;
        break;
      }
    }
    if (start == std::string::npos) {
      return text;
    }
    std::string value = lookup(text.substr(start + open.size(), end - start - open.size()));
    text = text.substr(0, start) + value + text.substr(end + 1);
    if (text.size() > k_max_value) {
      text.resize(k_max_value);
    }
    budget.expanded -= std::min(budget.expanded, text.size());
  }
  return text;
}

std::string
up_to_root(const std::string& folder)
{
  if (folder == ".") {
    return ".";
  }
  std::vector<std::string> ups(split(folder, '/').size(), "..");
  return join(ups, "/");
}

// --- CMake

struct CMakeCommand
{
  std::string name; // lowercased
  std::vector<std::string> args;
  int line;
};

std::vector<CMakeCommand>
cmake_commands(const std::string& text)
{
  std::vector<CMakeCommand> commands;
  int line = 1;
  size_t at = 0;
  auto bracket_end = [&](size_t from) { // "[[", "[=[": its closing position, or npos
    size_t eq = from + 1;
    while (eq < text.size() && text[eq] == '=') {
      ++eq;
    }
    if (eq >= text.size() || text[eq] != '[') {
      return std::string::npos;
    }
    std::string close = "]" + std::string(eq - from - 1, '=') + "]";
    size_t stop = text.find(close, eq);
    return stop == std::string::npos ? text.size() : stop + close.size();
  };
  auto skip_comment = [&]() {
    size_t end = text[at + 1 < text.size() ? at + 1 : at] == '[' ? bracket_end(at + 1) : std::string::npos;
    end = end == std::string::npos ? text.find('\n', at) : end;
    end = end == std::string::npos ? text.size() : end;
    line += static_cast<int>(std::count(text.begin() + at, text.begin() + end, '\n'));
    at = end;
  };
  while (at < text.size()) {
    char c = text[at];
    if (c == '#') {
      skip_comment();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t begin = at;
      while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_')) {
        ++at;
      }
      CMakeCommand command{ascii_lower(text.substr(begin, at - begin)), {}, line};
      while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) {
        ++at;
      }
      if (at >= text.size() || text[at] != '(') {
        continue;
      }
      ++at;
      for (int depth = 1; at < text.size() && depth > 0;) {
        char d = text[at];
        if (d == '\n') {
          ++line;
          ++at;
        } else if (std::isspace(static_cast<unsigned char>(d))) {
          ++at;
        } else if (d == '#') {
          skip_comment();
        } else if (d == '(' || d == ')') {
          depth += d == '(' ? 1 : -1;
          ++at;
        } else if (d == '"') {
          std::string value;
          for (++at; at < text.size() && text[at] != '"'; ++at) {
            line += text[at] == '\n' ? 1 : 0;
            if (text[at] == '\\' && at + 1 < text.size()) {
              ++at;
            }
            value += text[at];
          }
          ++at;
          command.args.push_back(value);
        } else if (d == '[' && bracket_end(at) != std::string::npos) {
          size_t end = bracket_end(at);
          size_t open = text.find('[', at + 1) + 1;
          size_t close = open - at; // "]=]" is as long as "[=["
          std::string value = text.substr(open, end >= open + close ? end - open - close : 0);
          line += static_cast<int>(std::count(value.begin(), value.end(), '\n'));
          command.args.push_back(value);
          at = end;
        } else {
          size_t word = at;
          while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at])) && text[at] != '('
                 && text[at] != ')') {
            ++at;
          }
          command.args.push_back(text.substr(word, at - word));
        }
      }
      commands.push_back(std::move(command));
    } else {
      line += c == '\n' ? 1 : 0;
      ++at;
    }
  }
  return commands;
}

struct CMakeTarget
{
  std::vector<std::string> sources;
  std::map<std::string, std::string> properties;
  Place place;
};

} // namespace

namespace build_files_detail {

void
read_cmake(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into)
{
  std::string folder = parent_of(file.path);
  Variables variables{{"CMAKE_CURRENT_SOURCE_DIR", "."},
                      {"CMAKE_CURRENT_LIST_DIR", "."},
                      {"PROJECT_SOURCE_DIR", up_to_root(folder)},
                      {"CMAKE_SOURCE_DIR", up_to_root(folder)}};
  auto words = [&](const std::vector<std::string>& args, size_t from) {
    std::vector<std::string> out;
    for (size_t i = from; i < args.size(); ++i) {
      std::string value = expand(args[i], "${", '}', budget, [&](const std::string& name) {
        auto found = variables.find(name);
        return found == variables.end() ? std::string() : found->second;
      });
      for (const std::string& word : split(value, ';')) {
        if (!word.empty()) {
          out.push_back(word);
        }
      }
    }
    return out;
  };
  std::map<std::string, CMakeTarget> targets;
  std::vector<std::string> order;
  for (const CMakeCommand& command : cmake_commands(file.text)) {
    std::vector<std::string> args = words(command.args, 0);
    if (args.empty()) {
      continue;
    }
    if (command.name == "set" || (command.name == "list" && args[0] == "APPEND" && args.size() > 1)) {
      bool append = command.name == "list";
      std::string name = args[append ? 1 : 0];
      std::vector<std::string> values(args.begin() + (append ? 2 : 1), args.end());
      values.erase(std::find_if(values.begin(), values.end(),
                                [](const std::string& v) { return v == "CACHE" || v == "PARENT_SCOPE"; }),
                   values.end());
      std::string value = join(values, ";");
      std::string& stored = variables[name];
      stored = append && !stored.empty() ? stored + ";" + value : value;
      stored.resize(std::min(stored.size(), k_max_value));
    } else if (command.name == "file" && args.size() > 2 && (args[0] == "GLOB" || args[0] == "GLOB_RECURSE")) {
      std::vector<std::string> found;
      for (size_t i = 2; i < args.size(); ++i) {
        if (args[i] == "CONFIGURE_DEPENDS" || args[i] == "LIST_DIRECTORIES" || args[i] == "RELATIVE") {
          i += args[i] == "CONFIGURE_DEPENDS" ? 0 : 1;
          continue;
        }
        std::string pattern = std::filesystem::path(args[i]).lexically_normal().generic_string();
        for (const std::string& match : glob_files(folder, pattern, tree_files, budget)) {
          found.push_back(relative_to(folder, match));
        }
      }
      variables[args[1]] = join(found, ";");
    } else if (command.name == "add_library" && args.size() > 1 && (args[1] == "SHARED" || args[1] == "MODULE")) {
      CMakeTarget& target = targets[args[0]];
      target.place = {file.path, command.line};
      order.push_back(args[0]);
      for (size_t i = 2; i < args.size(); ++i) {
        if (args[i] != "EXCLUDE_FROM_ALL" && !starts_with(args[i], "$<")) {
          add_source(target.sources, folder, args[i], tree_files, target.place, into.notes);
        }
      }
    } else if (command.name == "target_sources" && targets.count(args[0]) != 0) {
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] != "PRIVATE" && args[i] != "PUBLIC" && args[i] != "INTERFACE" && !starts_with(args[i], "$<")) {
          add_source(targets[args[0]].sources, folder, args[i], tree_files, {file.path, command.line}, into.notes);
        }
      }
    } else if (command.name == "set_target_properties") {
      // Each argument expanded alone: an empty value (PREFIX "") is a value.
      std::vector<std::string> raw;
      for (const std::string& arg : command.args) {
        raw.push_back(words({arg}, 0).empty() ? "" : join(words({arg}, 0), ";"));
      }
      size_t properties = static_cast<size_t>(std::find(raw.begin(), raw.end(), "PROPERTIES") - raw.begin());
      for (size_t name = 0; name < properties; ++name) {
        for (size_t key = properties + 1; key + 1 < raw.size(); key += 2) {
          targets[raw[name]].properties[raw[key]] = raw[key + 1];
        }
      }
    }
  }
  for (const std::string& name : order) {
    const CMakeTarget& target = targets.at(name);
    auto property = [&](const char* key, const std::string& fallback) {
      auto found = target.properties.find(key);
      return found == target.properties.end() ? fallback : found->second;
    };
    DeclaredLibrary library;
    library.output = property("PREFIX", "lib") + property("LIBRARY_OUTPUT_NAME", property("OUTPUT_NAME", name))
                     + property("SUFFIX", ".so");
    library.sources = target.sources;
    library.place = target.place;
    library.rule = "add_library";
    into.libraries.push_back(std::move(library));
  }
}

// --- Makefiles

void
read_makefile(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into)
{
  std::string folder = parent_of(file.path);
  Variables variables;
  std::function<std::string(const std::string&)> lookup;
  auto expand_make = [&](const std::string& text) {
    std::string value = expand(text, "$(", ')', budget, lookup);
    return expand(value, "${", '}', budget, lookup);
  };
  lookup = [&](const std::string& reference) -> std::string {
    if (starts_with(reference, "wildcard ")) {
      std::vector<std::string> found;
      for (const std::string& pattern : split(reference.substr(9), ' ')) {
        for (const std::string& match :
             pattern.empty() ? std::vector<std::string>{} : glob_files(folder, pattern, tree_files, budget)) {
          found.push_back(relative_to(folder, match));
        }
      }
      return join(found, " ");
    }
    size_t colon = reference.find(':');
    auto found = variables.find(reference.substr(0, colon));
    std::string value = found == variables.end() ? "" : found->second;
    size_t eq = colon == std::string::npos ? std::string::npos : reference.find('=', colon);
    if (eq != std::string::npos) { // $(SRCS:.cc=.o)
      std::string from = reference.substr(colon + 1, eq - colon - 1);
      std::string to = reference.substr(eq + 1);
      std::vector<std::string> words = split(value, ' ');
      for (std::string& word : words) {
        word = !from.empty() && ends_with(word, from) ? word.substr(0, word.size() - from.size()) + to : word;
      }
      value = join(words, " ");
    }
    return value;
  };
  std::vector<std::string> lines;
  std::vector<int> numbers;
  int number = 0;
  for (const std::string& raw : split(file.text, '\n')) {
    ++number;
    bool joined = !lines.empty() && ends_with(lines.back(), "\\");
    if (joined) {
      lines.back().pop_back();
      lines.back() += " " + raw;
    } else {
      lines.push_back(raw);
      numbers.push_back(number);
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (line.empty() || line[0] == '\t') {
      continue; // a recipe
    }
    line = line.substr(0, line.find('#'));
    size_t op = line.find('=');
    size_t colon = line.find(':');
    bool assignment = op != std::string::npos && (colon == std::string::npos || colon + 1 >= op);
    if (assignment) {
      size_t name_end = op;
      while (name_end > 0 && std::string_view(":+?").find(line[name_end - 1]) != std::string_view::npos) {
        --name_end;
      }
      std::vector<std::string> name_words = split(std::string(trim(line.substr(0, name_end))), ' ');
      std::string name = name_words.empty() ? "" : name_words.back(); // "export NAME", "override NAME"
      std::string value(trim(line.substr(op + 1)));
      bool immediate = name_end < op && line[name_end] == ':';
      value = immediate ? expand_make(value) : value;
      bool append = op > 0 && line[op - 1] == '+';
      std::string& stored = variables[name];
      stored = append && !stored.empty() ? stored + " " + value : value;
      stored.resize(std::min(stored.size(), k_max_value));
      continue;
    }
    if (colon == std::string::npos) {
      continue;
    }
    std::vector<std::string> targets = split(expand_make(line.substr(0, colon)), ' ');
    size_t after = line.find_first_not_of(':', colon);
    std::string prerequisites = after == std::string::npos ? "" : expand_make(line.substr(after));
    for (const std::string& target : targets) {
      if (!ends_with(target, ".so") || target.find('%') != std::string::npos) {
        continue;
      }
      DeclaredLibrary library;
      library.output = target.substr(target.rfind('/') + 1);
      library.place = {file.path, numbers[i]};
      library.rule = "make rule";
      std::vector<std::string> ignored;
      for (const std::string& word : split(prerequisites, ' ')) {
        if (word.empty() || word == "|") {
          continue;
        }
        if (ends_with(word, ".o")) { // an object: its source beside it
          std::string stem = word.substr(0, word.size() - 2);
          for (const char* extension : {".cc", ".cpp", ".cxx", ".cu.cc", ".cu"}) {
            if (add_source(library.sources, folder, stem + extension, tree_files, library.place, ignored)) {
              break;
            }
          }
          continue;
        }
        if (is_code_file(word)) {
          add_source(library.sources, folder, word, tree_files, library.place, into.notes);
        }
      }
      into.libraries.push_back(std::move(library));
    }
  }
  // Recipe lines calling a compiler (`g++ ... -o x_so.so`), variables
  // expanded, read as a compile script is: a Makefile whose rule is `all:`
  // names its library there alone. One a rule above makes already is left.
  std::string recipes;
  int at_line = 1;
  for (size_t i = 0; i < lines.size(); ++i) {
    recipes.append(static_cast<size_t>(std::max(0, numbers[i] - at_line)), '\n');
    at_line = numbers[i];
    if (!lines[i].empty() && lines[i][0] == '\t') {
      recipes += expand_make(lines[i].substr(1));
    }
  }
  BuildDescription called;
  read_compile_script({file.path, recipes}, tree_files, called);
  for (DeclaredLibrary& library : called.libraries) {
    bool made = std::any_of(into.libraries.begin(), into.libraries.end(), [&](const DeclaredLibrary& other) {
      return other.place.file == file.path && other.output == library.output;
    });
    if (!made && library.output.find('$') == std::string::npos) {
      into.libraries.push_back(std::move(library));
    }
  }
  into.notes.insert(into.notes.end(), called.notes.begin(), called.notes.end());
}

bool
is_code_file(const std::string& word)
{
  size_t dot = word.rfind('.');
  std::string extension = dot == std::string::npos ? "" : word.substr(dot);
  return extension == ".cc" || extension == ".cpp" || extension == ".cxx" || extension == ".cu" || extension == ".h"
         || extension == ".hpp" || extension == ".hh" || extension == ".cuh";
}

} // namespace build_files_detail

} // namespace opkit::adopt
