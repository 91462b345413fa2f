// The compile-script reader of build_files.hpp: the compiler calls of a shell
// script that builds an op library by hand (a research repository's
// tf_sampling_compile.sh). Text only: nothing is run, no variable is expanded.
#include "opkit/adopt/build_files.hpp"

#include "opkit/project/adopt_rules.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>

namespace opkit::adopt {

using namespace build_files_detail;

namespace {

// One command of the script: its words, unquoted, and the line it starts on.
struct Command
{
  std::vector<std::string> words;
  int line = 0;
};

// Splits a script into commands at newlines (not after a backslash), `;`,
// `&&`, `||` and `|`, outside quotes and `$(...)`/backticks; a `#` starting a
// word comments out the rest of its line. Quotes are removed; what is inside
// `$(...)` stays one word with the text around it.
std::vector<Command>
commands_of(const std::string& text)
{
  std::vector<Command> commands(1);
  std::string word;
  bool in_word = false;
  int line = 1, depth = 0;
  char quote = 0;
  auto end_word = [&] {
    if (in_word) {
      if (commands.back().words.empty()) {
        commands.back().line = line;
      }
      commands.back().words.push_back(word);
    }
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!commands.back().words.empty()) {
      commands.emplace_back();
    }
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
        line += c == '\n' ? 1 : 0;
      }
      continue;
    }
    if (depth > 0) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      word += c;
      line += c == '\n' ? 1 : 0;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      ++line;
      end_word();
      continue;
    }
    if (c == '#' && !in_word) {
      while (i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
      }
      continue;
    }
    if (c == '\n' || c == ';' || c == '|' || c == '&') {
      end_command();
      line += c == '\n' ? 1 : 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '`') {
      quote = '`';
      word += c;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      word += "$(";
      ++i;
      depth = 1;
    } else {
      word += c;
    }
  }
  end_command();
  commands.pop_back();
  return commands;
}

bool
is_variable_assignment(const std::string& word)
{
  size_t eq = word.find('=');
  return eq != std::string::npos && eq > 0
         && std::all_of(word.begin(), word.begin() + static_cast<long>(eq),
                        [](char c) { return is_identifier_char(c); });
}

} // namespace

namespace build_files_detail {

void
read_compile_script(const TreeText& file, const std::vector<std::string>& tree_files, BuildDescription& into)
{
  const project::BuildFileRules& rules = project::build_file_rules();
  std::string folder = parent_of(file.path);
  std::map<std::string, std::vector<std::string>> objects; // an object file -> the sources it was compiled from
  for (const Command& command : commands_of(file.text)) {
    size_t first = 0;
    while (first < command.words.size() && is_variable_assignment(command.words[first])) {
      ++first;
    }
    if (first == command.words.size()) {
      continue;
    }
    const std::string& program = command.words[first];
    std::string name = program.substr(program.rfind('/') + 1);
    if (std::find(rules.script_compilers.begin(), rules.script_compilers.end(), name) == rules.script_compilers.end()) {
      continue;
    }
    std::string output;
    std::vector<std::string> inputs;
    for (size_t i = first + 1; i < command.words.size(); ++i) {
      const std::string& word = command.words[i];
      if (word == "-o" && i + 1 < command.words.size()) {
        output = command.words[++i];
      } else if (starts_with(word, "-o") && word.size() > 2 && word.find('$') == std::string::npos) {
        output = word.substr(2);
      } else if (word[0] != '-' && word.find('$') == std::string::npos && word.find('`') == std::string::npos) {
        inputs.push_back(word);
      }
    }
    Place place{file.path, command.line};
    if (ends_with(output, ".o")) {
      for (const std::string& input : inputs) {
        if (is_code_file(input)) {
          objects[output].push_back(input);
        }
      }
      continue;
    }
    if (!ends_with(output, ".so")) {
      continue;
    }
    DeclaredLibrary library;
    library.output = output.substr(output.rfind('/') + 1);
    library.place = place;
    library.rule = name + " call";
    std::vector<std::string> sources;
    for (const std::string& input : inputs) {
      auto compiled = objects.find(input);
      if (compiled != objects.end()) {
        sources.insert(sources.end(), compiled->second.begin(), compiled->second.end());
      } else if (is_code_file(input)) {
        sources.push_back(input);
      }
    }
    for (const std::string& source : sources) {
      add_source(ends_with(source, ".cu") ? library.gpu_sources : library.sources, folder, source, tree_files, place,
                 into.notes);
    }
    into.libraries.push_back(std::move(library));
  }
}

} // namespace build_files_detail

} // namespace opkit::adopt
