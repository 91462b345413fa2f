// The man page, roff rendered from the command tree (command_tree.hpp).
#include "opkit/cli/command_tree.hpp"
#include "opkit/project/settings_file.hpp"
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
    bool positional = !option.names.empty() && option.names.front().front() != '-';
    for (const std::string& name : option.names) {
      names.push_back("\\fB" + roff(positional ? option.value_name : name) + "\\fR");
    }
    // A set too long for the line (setting keys) is named, not listed.
    std::string value;
    if (!option.values.empty() && join(option.values, "|").size() <= 40) {
      value = " \\fI" + roff(join(option.values, "|")) + "\\fR";
    } else if (!option.value_name.empty() && !positional) {
      value = " \\fI" + roff(option.value_name) + "\\fR";
    }
    text += fmt::format(".TP\n{}{}\n{}\n", join(names, ", "), value, roff(option.description));
  }
  return text;
}

// "Examples:" and the lines as typed (no filling), indented.
std::string
example_lines(const std::vector<std::string>& examples)
{
  if (examples.empty()) {
    return "";
  }
  std::string text = fmt::format(".PP\n{}\n.RS 4\n.nf\n", examples.size() == 1 ? "Example:" : "Examples:");
  for (const std::string& line : examples) {
    text += roff(line) + "\n";
  }
  return text + ".fi\n.RE\n";
}

std::string
synopsis(const CommandInfo& command)
{
  std::string text = "\\fB" + roff(command.path) + "\\fR";
  if (!command.options.empty()) {
    text += " [\\fIOPTIONS\\fR]";
  }
  for (const OptionInfo& positional : command.positionals) {
    text += " \\fI" + roff(positional.value_name) + "\\fR" + (positional.repeatable ? "..." : "");
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
    text += option_lines(sub.positionals) + option_lines(sub.options) + example_lines(sub.examples);
    command_sections(sub, text);
  }
}

std::string
bold(const std::string& text)
{
  return "\\fB" + roff(text) + "\\fR";
}

std::string
italic(const std::string& text)
{
  return "\\fI" + roff(text) + "\\fR";
}

// What a setting is worth when nothing sets it: its defaults, else what opkit does.
std::string
default_text(const project::SettingSpec& spec)
{
  if (spec.defaults.empty()) {
    return spec.unset.empty() ? "" : " Unset: " + roff(spec.unset) + ".";
  }
  std::vector<std::string> alternatives;
  for (const std::string& value : spec.defaults) {
    alternatives.push_back(italic(value));
  }
  return " Default: " + join(alternatives, ", else ") + ".";
}

// ENVIRONMENT: every variable of configs/settings.yaml, with its setting.
std::string
environment_section()
{
  std::string text = ".SH ENVIRONMENT\nEach variable sets one of opkit's settings (\\fBopkit config list\\fR shows "
                     "each one's value and where it came from): a command's flag wins over it, it wins over "
                     "opkit.yaml's \\fBsettings:\\fR and the user config file (see FILES, and "
                     "\\fBOPKIT_CONFIG\\fR there). Where a setting has several variables, the first set wins.\n";
  for (const project::SettingSpec& spec : project::setting_specs()) {
    std::vector<std::string> names;
    for (const std::string& name : spec.env) {
      names.push_back(bold(name));
    }
    std::string flag = spec.flag.empty() ? "" : ", flag " + bold(spec.flag);
    text += fmt::format(".TP\n{}\n{} (setting {}{}).{}\n", join(names, ", "), roff(spec.description), bold(spec.key),
                        flag, default_text(spec));
  }
  return text;
}

// FILES: the project's, the user config file, and the folders the path
// settings default to (the store, the venvs).
std::string
files_section()
{
  std::vector<std::string> project_keys;
  for (const project::SettingSpec& spec : project::setting_specs()) {
    if (spec.project) {
      project_keys.push_back(bold(spec.key));
    }
  }
  std::string text = ".SH FILES\n";
  text += ".TP\n" + italic("opkit.yaml")
          + "\nThe project, found in the current folder or the nearest folder above it. Its \\fBsettings:\\fR "
            "may set "
          + join(project_keys, ", ") + ".\n";
  text += ".TP\n" + italic("build/") + "\nThe project's build folder, one " + italic("tf-VERSION/") + " per target; "
          + italic("build/.opkit-build.lock") + " is held while a build runs in it. \\fBopkit clean\\fR removes it.\n";
  text += ".TP\n" + italic("dist/") + "\nThe project's packages (\\fBopkit package\\fR).\n";
  text += ".TP\n" + italic("~/.config/opkit/config.yaml")
          + "\nThe user config file (\\fBopkit config set\\fR): " + italic("$XDG_CONFIG_HOME/opkit/config.yaml")
          + " when \\fBXDG_CONFIG_HOME\\fR is set; \\fBOPKIT_CONFIG\\fR names another.\n";
  for (const project::SettingSpec& spec : project::setting_specs()) {
    if (spec.type == "path" && !spec.defaults.empty() && spec.defaults.front().find('/') != std::string::npos) {
      text += fmt::format(".TP\n{}\n{} (setting {}, {}).{}\n", italic(spec.defaults.front()), roff(spec.description),
                          bold(spec.key), bold(join(spec.env, ", ")), default_text(spec));
    }
  }
  return text;
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
  text += example_lines(tree.examples);
  text += ".SH COMMANDS\n";
  command_sections(tree, text);
  text += ".SH EXIT STATUS\n"
          ".TP\n0\nsuccess\n"
          ".TP\n1\nthe operation ran and the answer is no (a target failed to build, a library will not load)\n"
          ".TP\n2\nusage or input error\n"
          ".TP\n3\na prerequisite is missing (an SDK, a build, a tool)\n"
          ".TP\n4\nthe system failed (I/O errors, a crashed probe)\n"
          ".PP\nEvery error is one line on stderr: \\fBopkit: error:\\fR \\fIsubject\\fR: \\fIwhat failed\\fR.\n";
  text += environment_section() + files_section();
  text += ".SH SEE ALSO\nThe README and docs/ in /usr/share/doc/opkit (or opkit's source) describe every command at "
          "length.\n";
  return text;
}

} // namespace opkit::cli
