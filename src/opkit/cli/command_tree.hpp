#pragma once

// The CLI as plain data, read from the CLI11 app itself (command_tree.cpp), so
// the help, the man page and the shell completions all come from one place:
// the add_*_command functions. The renderers take this tree, not CLI11.
#include <string>
#include <vector>

namespace opkit::cli {

struct OptionInfo
{
  std::vector<std::string> names; // "-j", "--jobs" (a positional: its name, "library")
  std::string value_name;         // "N", "DIR", "0|1" (help_format's value_name); empty for a flag
  std::string description;
  std::vector<std::string> values; // the fixed set it takes, when it has one (completions)
  bool repeatable = false;         // a positional that takes several values
  std::string values_command;      // else opkit's arguments that print them at completion time ("sdk list --ids all")
};

struct CommandInfo
{
  std::string name;        // "opkit", "sdk", "add"
  std::string path;        // "opkit sdk add"
  std::string description; // one line
  std::vector<OptionInfo> options;
  std::vector<OptionInfo> positionals;
  std::vector<CommandInfo> commands;
  bool needs_command = false;        // a bare `opkit sdk` is an error
  std::vector<std::string> examples; // `opkit ...` lines (help_examples.cpp)

  const CommandInfo* find(const std::string& name) const;
  // The names of its options, short and long ("-j", "--jobs", ...).
  std::vector<std::string> option_names() const;
  std::vector<std::string> command_names() const;
};

// The shell renderers (completion.cpp): a script `source`d by the shell that
// completes `opkit` from `tree`; the root's options are offered at every level
// (global flags work after the command too).
std::string
bash_completion(const CommandInfo& tree);
std::string
zsh_completion(const CommandInfo& tree);
std::string
fish_completion(const CommandInfo& tree);

// The man page, roff (man_page.cpp): NAME, SYNOPSIS, DESCRIPTION, global
// options, every command with its options, exit status.
std::string
man_page(const CommandInfo& tree, const std::string& version);

} // namespace opkit::cli
