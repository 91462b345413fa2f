#include "opkit/build/ninja_writer.hpp"

#include "opkit/util/strings.hpp"

namespace opkit::build {

namespace {

std::string
escape_paths(const std::vector<std::string>& paths)
{
  std::vector<std::string> escaped;
  escaped.reserve(paths.size());
  for (const std::string& path : paths) {
    escaped.push_back(ninja_escape_path(path));
  }
  return join(escaped, " ");
}

} // namespace

std::string
ninja_escape(std::string_view text)
{
  std::string result;
  for (char c : text) {
    if (c == '$') {
      result += '$';
    }
    result += c;
  }
  return result;
}

std::string
ninja_escape_path(std::string_view path)
{
  std::string result;
  for (char c : path) {
    if (c == '$' || c == ' ' || c == ':') {
      result += '$';
    }
    result += c;
  }
  return result;
}

void
NinjaWriter::comment(std::string_view text)
{
  for (const std::string& line : split(text, '\n')) {
    m_text += "# " + line + "\n";
  }
}

void
NinjaWriter::variable(std::string_view name, std::string_view value, int indent)
{
  m_text += std::string(static_cast<size_t>(indent) * 2, ' ');
  m_text += std::string(name) + " = " + ninja_escape(value) + "\n";
}

void
NinjaWriter::rule(std::string_view name, std::string_view command, std::string_view description,
                  std::string_view depfile, std::string_view deps)
{
  // The command and its friends reference ninja variables ($in, $out), so they are written unescaped.
  m_text += "rule " + std::string(name) + "\n";
  m_text += "  command = " + std::string(command) + "\n";
  m_text += "  description = " + std::string(description) + "\n";
  if (!depfile.empty()) {
    m_text += "  depfile = " + std::string(depfile) + "\n";
  }
  if (!deps.empty()) {
    m_text += "  deps = " + std::string(deps) + "\n";
  }
}

void
NinjaWriter::build(const std::vector<std::string>& outputs, std::string_view rule,
                   const std::vector<std::string>& inputs,
                   const std::vector<std::pair<std::string, std::string>>& variables,
                   const std::vector<std::string>& implicit)
{
  m_text += "build " + escape_paths(outputs) + ": " + std::string(rule);
  if (!inputs.empty()) {
    m_text += " " + escape_paths(inputs);
  }
  if (!implicit.empty()) {
    m_text += " | " + escape_paths(implicit);
  }
  m_text += "\n";
  for (const auto& [name, value] : variables) {
    variable(name, value, 1);
  }
}

void
NinjaWriter::pool(std::string_view name, int depth)
{
  m_text += "pool " + std::string(name) + "\n";
  m_text += "  depth = " + std::to_string(depth) + "\n";
}

void
NinjaWriter::default_target(const std::vector<std::string>& targets)
{
  m_text += "default " + escape_paths(targets) + "\n";
}

void
NinjaWriter::subninja(std::string_view path)
{
  m_text += "subninja " + ninja_escape_path(path) + "\n";
}

void
NinjaWriter::newline()
{
  m_text += "\n";
}

} // namespace opkit::build
