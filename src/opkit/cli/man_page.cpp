// The man page, roff rendered from the command tree (command_tree.hpp).
#include "opkit/cli/command_tree.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace {

// Text safe in roff: backslashes and dashes escaped, no line starting a request.
std::string
roff(const std::string& text)
{
  std::string escaped;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) {
      escaped += "\\&";
    }
    if (c == '\\') {
      escaped += "\\e";
    } else if (c == '-') {
      escaped += "\\-";
    } else {
      escaped += c;
    }
    line_start = c == '\n';
  }
  return escaped;
}

std::string
option_lines(const std::vector<OptionInfo>& options)
{
  std::string text;
  for (const OptionInfo& option : options) {
    std::vector<std::string> names;
    for (const std::string& name : option.names) {
      names.push_back("\\fB" + roff(name) + "\\fR");
    }
    std::string value;
    if (!option.values.empty()) {
      value = " \\fI" + roff(join(option.values, "|")) + "\\fR";
    } else if (!option.value_name.empty()) {
      value = " \\fI" + roff(option.value_name) + "\\fR";
    }
    text += fmt::format(".TP\n{}{}\n{}\n", join(names, ", "), value, roff(option.description));
  }
  return text;
}

std::string
synopsis(const CommandInfo& command)
{
  std::string text = "\\fB" + roff(command.path) + "\\fR";
  if (!command.options.empty()) {
    text += " [\\fIOPTIONS\\fR]";
  }
  for (const OptionInfo& positional : command.positionals) {
    text += " \\fI" + roff(positional.names.front()) + "\\fR" + (positional.repeatable ? "..." : "");
  }
  if (!command.commands.empty()) {
    text += " \\fICOMMAND\\fR";
  }
  return text;
}

void
command_sections(const CommandInfo& command, std::string& text)
{
  for (const CommandInfo& sub : command.commands) {
    text += fmt::format(".SS \"{}\"\n{}\n.PP\n{}\n", roff(sub.path), synopsis(sub), roff(sub.description));
    if (!sub.commands.empty()) {
      text += fmt::format(".PP\nCommands: {}.\n", roff(join(sub.command_names(), ", ")));
    }
    text += option_lines(sub.positionals) + option_lines(sub.options);
    command_sections(sub, text);
  }
}

} // namespace

std::string
man_page(const CommandInfo& tree, const std::string& version)
{
  std::string text = fmt::format(".TH OPKIT 1 \"\" \"opkit {}\" \"User Commands\"\n", roff(version));
  std::string summary = tree.description;
  if (summary.rfind("opkit: ", 0) == 0) {
    summary = summary.substr(7);
  }
  text += fmt::format(".SH NAME\nopkit \\- {}\n", roff(summary));
  text += fmt::format(".SH SYNOPSIS\n{} [\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n", "\\fBopkit\\fR");
  text += ".SH DESCRIPTION\nEach command below is also described by \\fBopkit help\\fR \\fICOMMAND\\fR "
          "(or \\fBopkit\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR). Results go to stdout; progress and logs to "
          "stderr. Commands: "
          + roff(join(tree.command_names(), ", ")) + ".\n";
  text += ".SH GLOBAL OPTIONS\nThese work before or after the command.\n" + option_lines(tree.options);
  text += ".SH COMMANDS\n";
  command_sections(tree, text);
  text += ".SH EXIT STATUS\n"
          ".TP\n0\nsuccess\n"
          ".TP\n1\nthe operation ran and the answer is no (a target failed to build, a library will not load)\n"
          ".TP\n2\nusage or input error\n"
          ".TP\n3\na prerequisite is missing (an SDK, a build, a tool)\n"
          ".TP\n4\nthe system failed (I/O errors, a crashed probe)\n"
          ".PP\nEvery error is one line on stderr: \\fBopkit: error:\\fR \\fIsubject\\fR: \\fIwhat failed\\fR.\n";
  text += ".SH SEE ALSO\nThe README and docs/ in /usr/share/doc/opkit (or opkit's source) describe every command at "
          "length.\n";
  return text;
}

} // namespace opkit::cli
