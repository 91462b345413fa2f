#include "opkit/cli/help_format.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cctype>

namespace opkit::cli {

namespace {

std::string
capitals(std::string text)
{
  for (char& c : text) {
    c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return text;
}

bool
ends_with_text(const std::string& text, const std::string& end)
{
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// "--cache" for an option, "LIBRARY" for a positional.
std::string
shown_name(const CLI::Option& option)
{
  return option.nonpositional() ? option.get_name(false, false) : capitals(option.get_name(true, false));
}

std::string
names_of(const std::set<CLI::Option*>& options)
{
  std::vector<std::string> names;
  for (const CLI::Option* option : options) {
    names.push_back(shown_name(*option));
  }
  return join(names, ", ");
}

const CLI::App&
root_of(const CLI::App& app)
{
  const CLI::App* level = &app;
  while (level->get_parent() != nullptr) {
    level = level->get_parent();
  }
  return *level;
}

class HelpFormatter : public CLI::Formatter
{
public:
  HelpFormatter()
  {
    label("Positionals", "Arguments");
    label("SUBCOMMAND", "COMMAND");
    label("SUBCOMMANDS", "COMMAND");
    column_width(32);
  }

  std::string make_option_name(const CLI::Option* option, bool is_positional) const override
  {
    return is_positional ? shown_name(*option) : option->get_name(false, true);
  }

  std::string make_option_opts(const CLI::Option* option) const override
  {
    if (value_name(*option).empty() || !option->nonpositional()) {
      return "";
    }
    bool many = option->get_expected_max() == CLI::detail::expected_max_vector_size;
    return " " + value_name(*option) + (many ? "..." : "");
  }

  std::string make_option_desc(const CLI::Option* option) const override
  {
    std::string text = option->get_description();
    if (!option->get_excludes().empty()) {
      text += fmt::format(" (not with {})", names_of(option->get_excludes()));
    }
    if (!option->get_needs().empty()) {
      text += fmt::format(" (only with {})", names_of(option->get_needs()));
    }
    return text;
  }

  std::string make_option_usage(const CLI::Option* option) const override
  {
    std::string name = shown_name(*option) + (option->get_expected_max() > 1 ? "..." : "");
    return option->get_required() ? name : "[" + name + "]";
  }

  // CLI11 heads them with their group, "Subcommands".
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override
  {
    std::string text = CLI::Formatter::make_subcommands(app, mode);
    size_t head = text.find("\nSubcommands:\n");
    return head == std::string::npos ? text : text.replace(head, 14, "\nCommands:\n");
  }

  std::string make_footer(const CLI::App* app) const override
  {
    std::string text;
    const CLI::App& root = root_of(*app);
    if (app != &root) {
      text += "Global options (before or after the command):\n";
      for (const CLI::Option* option : root.get_options()) {
        if (option != root.get_help_ptr() && !option->get_group().empty() && option->get_name() != "--version") {
          text += make_option(option, false);
        }
      }
      text += "\n";
    }
    std::string path = app->get_name();
    for (const CLI::App* level = app->get_parent(); level != nullptr; level = level->get_parent()) {
      path.insert(0, level->get_name() + " ");
    }
    std::vector<std::string> lines = examples(path);
    if (!lines.empty()) {
      text += lines.size() == 1 ? "Example:\n" : "Examples:\n";
      for (const std::string& line : lines) {
        text += "  " + line + "\n";
      }
      text += "\n";
    }
    return text + CLI::Formatter::make_footer(app);
  }
};

} // namespace

std::shared_ptr<CLI::Formatter>
help_formatter()
{
  return std::make_shared<HelpFormatter>();
}

std::string
value_name(const CLI::Option& option)
{
  if (option.nonpositional() && (option.get_type_size_max() == 0 || option.get_type_name().empty())) {
    return ""; // a flag
  }
  if (!option.nonpositional()) {
    return capitals(option.get_name(true, false));
  }
  std::string type = option.get_type_name();
  size_t set = type.find(":{");
  if (set != std::string::npos && type.back() == '}') {
    std::string values = type.substr(set + 2, type.size() - set - 3);
    for (char& c : values) {
      c = c == ',' ? '|' : c;
    }
    return values;
  }
  std::string base = type.substr(0, type.find(':'));
  if (base == "INT" || base == "UINT" || base == "FLOAT" || base == "NUMBER") {
    return "N";
  }
  if (base != "TEXT" && base != "BOOLEAN" && base != "CHAR" && !base.empty()) {
    return type; // opkit's own name, given where the option is added (->type_name)
  }
  std::string name = option.get_lnames().empty() ? option.get_snames().front() : option.get_lnames().front();
  if (name == "tf" || name == "torch" || name == "python" || name == "easyrec") {
    return "VERSION";
  }
  if (ends_with_text(name, "dir") || ends_with_text(name, "directory") || name == "output") {
    return "DIR";
  }
  if (name == "lib" || name == "name" || name == "single-library") {
    return "NAME";
  }
  if (ends_with_text(name, "url")) {
    return "URL";
  }
  if (name == "root") {
    return "DIR";
  }
  if (name == "header") {
    return "'NAME: VALUE'";
  }
  if (name == "profile" || name == "cacert" || name == "protoc" || ends_with_text(name, "file")) {
    return "FILE";
  }
  return capitals(name);
}

} // namespace opkit::cli
