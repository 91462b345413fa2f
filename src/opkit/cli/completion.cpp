// Shell completion scripts rendered from the command tree (command_tree.hpp):
// nothing here names a command or an option.
#include "opkit/cli/command_tree.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <functional>

namespace opkit::cli {

namespace {

void
each_command(const CommandInfo& command, const std::function<void(const CommandInfo&)>& visit)
{
  visit(command);
  for (const CommandInfo& sub : command.commands) {
    each_command(sub, visit);
  }
}

// 'text' for sh-like shells (bash, zsh): a quote ends, is escaped, starts again.
std::string
sh_quote(const std::string& text)
{
  std::string quoted = "'";
  for (char c : text) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

// 'text' for fish: \ and ' escaped inside the quotes.
std::string
fish_quote(const std::string& text)
{
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') {
      quoted += '\\';
    }
    quoted += c;
  }
  return quoted + "'";
}

std::string
words(const std::vector<std::string>& list)
{
  return sh_quote(join(list, " "));
}

// The options a command offers: its own, and the root's (global flags work at every level).
std::vector<const OptionInfo*>
offered_options(const CommandInfo& tree, const CommandInfo& command)
{
  std::vector<const OptionInfo*> options;
  for (const OptionInfo& option : command.options) {
    options.push_back(&option);
  }
  if (&command != &tree) {
    for (const OptionInfo& option : tree.options) {
      options.push_back(&option);
    }
  }
  return options;
}

// The values a command's positionals take from a fixed set (empty: files).
std::vector<std::string>
positional_values(const CommandInfo& command)
{
  std::vector<std::string> values;
  for (const OptionInfo& positional : command.positionals) {
    values.insert(values.end(), positional.values.begin(), positional.values.end());
  }
  return values;
}

// The opkit arguments that print a command's positionals' values (empty: none).
std::string
positional_command(const CommandInfo& command)
{
  for (const OptionInfo& positional : command.positionals) {
    if (!positional.values_command.empty()) {
      return positional.values_command;
    }
  }
  return "";
}

// bash: the words opkit itself prints for `args`, completed against $cur.
std::string
bash_asked(const std::string& args)
{
  return fmt::format("$(compgen -W \"$(\"${{COMP_WORDS[0]}}\" {} 2>/dev/null)\" -- \"$cur\")", args);
}

std::string
one_line(const std::string& text)
{
  std::string line = text.substr(0, text.find('\n'));
  return line;
}

} // namespace

std::string
bash_completion(const CommandInfo& tree)
{
  std::vector<std::string> command_paths;
  std::vector<std::string> value_options; // "path name" of options that take a value
  std::string value_cases;
  each_command(tree, [&](const CommandInfo& command) {
    if (&command != &tree) {
      command_paths.push_back(sh_quote(command.path));
    }
    for (const OptionInfo& option : command.options) {
      if (option.value_name.empty()) {
        continue;
      }
      std::vector<std::string> patterns;
      for (const std::string& name : option.names) {
        // The root's options also follow a command's name: *' -C'.
        patterns.push_back(&command == &tree ? "*" + sh_quote(" " + name) : sh_quote(command.path + " " + name));
      }
      value_options.push_back(join(patterns, "|"));
      if (!option.values.empty()) {
        value_cases += fmt::format("      {}) COMPREPLY=($(compgen -W {} -- \"$cur\")) ;;\n", join(patterns, "|"),
                                   words(option.values));
      } else if (!option.values_command.empty()) {
        value_cases +=
          fmt::format("      {}) COMPREPLY=({}) ;;\n", join(patterns, "|"), bash_asked(option.values_command));
      }
    }
  });
  std::string command_cases;
  each_command(tree, [&](const CommandInfo& command) {
    std::vector<std::string> option_names;
    for (const OptionInfo* option : offered_options(tree, command)) {
      option_names.insert(option_names.end(), option->names.begin(), option->names.end());
    }
    std::vector<std::string> operands = command.command_names();
    std::vector<std::string> values = positional_values(command);
    operands.insert(operands.end(), values.begin(), values.end());
    std::string asked = positional_command(command);
    bool files = command.commands.empty() && !command.positionals.empty() && values.empty() && asked.empty();
    command_cases +=
      fmt::format("    {})\n      if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W {} -- \"$cur\"))\n"
                  "      else\n        COMPREPLY=($(compgen -W {} -- \"$cur\"){})\n      fi ;;\n",
                  sh_quote(command.path), words(option_names), words(operands),
                  files           ? " $(compgen -f -- \"$cur\")"
                  : asked.empty() ? ""
                                  : " " + bash_asked(asked));
  });
  return fmt::format(R"(# bash completion for opkit: `opkit completion bash`, made from opkit's own command tree.
# Install: source it from ~/.bashrc, or put it in ~/.local/share/bash-completion/completions/opkit.
_opkit() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path=opkit skip=0 i word
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${{COMP_WORDS[i]}}
    if ((skip)); then
      skip=0
      continue
    fi
    case "$path $word" in
      {}) path="$path $word"; continue ;;
    esac
    case "$path $word" in
      {}) skip=1 ;;
    esac
  done
  if ((skip)); then
    case "$path ${{COMP_WORDS[COMP_CWORD-1]}}" in
{}      *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
    return 0
  fi
  case "$path" in
{}  esac
  return 0
}}
complete -F _opkit opkit
)",
                     join(command_paths, "|"), join(value_options, "|"), value_cases, command_cases);
}

namespace {

// Text inside a zsh _arguments [description], or a name in _describe (whose
// description, after the first colon, is taken as it is).
std::string
zsh_text(const std::string& text)
{
  std::string escaped;
  for (char c : one_line(text)) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') {
      escaped += '\\';
    }
    escaped += c;
  }
  return escaped;
}

// zsh: an _arguments action offering the lines opkit prints for `args`.
std::string
zsh_asked(const std::string& args)
{
  return fmt::format("{{compadd -- ${{(f)\"$(opkit {} 2>/dev/null)\"}}}}", args);
}

std::string
zsh_function(const CommandInfo& command)
{
  std::string name = "_opkit";
  for (const std::string& part : split(command.path, ' ')) {
    if (part != "opkit") {
      name += "__" + part;
    }
  }
  for (char& c : name) {
    c = c == '-' ? '_' : c;
  }
  return name;
}

} // namespace

std::string
zsh_completion(const CommandInfo& tree)
{
  std::string functions;
  each_command(tree, [&](const CommandInfo& command) {
    // Each spec a line of its own, continued with a backslash.
    std::string specs;
    for (const OptionInfo* option : offered_options(tree, command)) {
      for (const std::string& name : option->names) {
        std::string value;
        if (!option->values.empty()) {
          value = fmt::format(":{}:({})", zsh_text(option->value_name), join(option->values, " "));
        } else if (!option->values_command.empty()) {
          value = fmt::format(":{}:{}", zsh_text(option->value_name), zsh_asked(option->values_command));
        } else if (!option->value_name.empty()) {
          value = fmt::format(":{}:_files", zsh_text(option->value_name));
        }
        specs += "    " + sh_quote(fmt::format("{}[{}]{}", name, zsh_text(option->description), value)) + " \\\n";
      }
    }
    std::string body;
    if (!command.commands.empty()) {
      std::string described;
      std::string dispatch;
      for (const CommandInfo& sub : command.commands) {
        described += "        " + sh_quote(zsh_text(sub.name) + ":" + one_line(sub.description)) + "\n";
        dispatch += fmt::format("        {}) {} ;;\n", sub.name, zsh_function(sub));
      }
      body = fmt::format("  local curcontext=\"$curcontext\" state line\n"
                         "  _arguments -C \\\n{}    ': :->command' '*:: :->args'\n"
                         "  case $state in\n"
                         "    command)\n      local -a commands\n      commands=(\n{}      )\n"
                         "      _describe -t commands {} commands ;;\n"
                         "    args)\n      case $line[1] in\n{}      esac ;;\n  esac\n",
                         specs, described, sh_quote(command.path + " command"), dispatch);
    } else {
      std::vector<std::string> values = positional_values(command);
      std::string asked = positional_command(command);
      std::string operand = !values.empty()                ? sh_quote(fmt::format("*:value:({})", join(values, " ")))
                            : !asked.empty()               ? sh_quote("*:value:" + zsh_asked(asked))
                            : !command.positionals.empty() ? std::string("'*:file:_files'")
                                                           : std::string();
      body = fmt::format("  _arguments \\\n{}    {}\n", specs, operand);
    }
    functions += fmt::format("{}() {{\n{}}}\n\n", zsh_function(command), body);
  });
  return fmt::format(
    "#compdef opkit\n# zsh completion for opkit: `opkit completion zsh`, made from opkit's own command "
    "tree.\n# Install: save it as _opkit in a folder of $fpath (before compinit runs).\n\n{}"
    "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n  _opkit \"$@\"\nelse\n"
    "  compdef _opkit opkit\nfi\n",
    functions);
}

std::string
fish_completion(const CommandInfo& tree)
{
  std::vector<std::string> command_paths;
  each_command(tree, [&](const CommandInfo& command) {
    if (&command != &tree) {
      command_paths.push_back(fish_quote(command.path));
    }
  });
  std::string lines;
  each_command(tree, [&](const CommandInfo& command) {
    std::string at =
      &command == &tree ? std::string() : fmt::format(" -n {}", fish_quote("__opkit_at '" + command.path + "'"));
    std::string here = fmt::format(" -n {}", fish_quote("__opkit_at '" + command.path + "'"));
    for (const CommandInfo& sub : command.commands) {
      lines += fmt::format("complete -c opkit{} -a {} -d {}\n", here, fish_quote(sub.name),
                           fish_quote(one_line(sub.description)));
    }
    for (const OptionInfo& option : command.options) {
      std::string names;
      for (const std::string& name : option.names) {
        bool long_name = name.size() > 2 && name[1] == '-';
        names += fmt::format(" {} {}", long_name ? "-l" : "-s", fish_quote(name.substr(long_name ? 2 : 1)));
      }
      std::string value = !option.values.empty() ? fmt::format(" -x -a {}", fish_quote(join(option.values, " ")))
                          : !option.values_command.empty()
                            ? fmt::format(" -x -a {}", fish_quote("(opkit " + option.values_command + " 2>/dev/null)"))
                          : !option.value_name.empty() ? std::string(" -r -F")
                                                       : std::string();
      lines +=
        fmt::format("complete -c opkit{}{}{} -d {}\n", at, names, value, fish_quote(one_line(option.description)));
    }
    std::vector<std::string> values = positional_values(command);
    std::string asked = positional_command(command);
    if (!values.empty()) {
      lines += fmt::format("complete -c opkit{} -a {}\n", here, fish_quote(join(values, " ")));
    } else if (!asked.empty()) {
      lines += fmt::format("complete -c opkit{} -a {}\n", here, fish_quote("(opkit " + asked + " 2>/dev/null)"));
    } else if (command.commands.empty() && !command.positionals.empty()) {
      lines += fmt::format("complete -c opkit{} -F\n", here);
    }
  });
  return fmt::format(R"(# fish completion for opkit: `opkit completion fish`, made from opkit's own command tree.
# Install: save it as ~/.config/fish/completions/opkit.fish.
set -g __opkit_commands {}

# The command the words so far name: "opkit", "opkit sdk", "opkit sdk add".
function __opkit_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l path opkit
    for word in $words
        if contains -- "$path $word" $__opkit_commands
            set path "$path $word"
        end
    end
    echo $path
end

function __opkit_at
    test (__opkit_path) = "$argv[1]"
end

complete -c opkit -f
{})",
                     join(command_paths, " "), lines);
}

} // namespace opkit::cli
