#include "opkit/builder/ninja_writer.hpp"

#include "opkit/util/strings.hpp"

namespace opkit::builder {

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
    if (c == '|') {
      result += "${opkit_pipe}";
      continue;
    }
    if (c == '$' || c == ' ' || c == ':') {
      result += '$';
    }
    result += c;
  }
  return result;
}

std::string
NinjaWriter::paths(const std::vector<std::string>& list)
{
  std::vector<std::string> escaped;
  escaped.reserve(list.size());
  for (const std::string& path : list) {
    if (!m_pipe_defined && path.find('|') != std::string::npos) {
      variable("opkit_pipe", "|");
      m_pipe_defined = true;
    }
    escaped.push_back(ninja_escape_path(path));
  }
  return join(escaped, " ");
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
  std::string line = "build " + paths(outputs) + ": " + std::string(rule);
  if (!inputs.empty()) {
    line += " " + paths(inputs);
  }
  if (!implicit.empty()) {
    line += " | " + paths(implicit);
  }
  m_text += line + "\n";
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
  std::string line = "default " + paths(targets);
  m_text += line + "\n";
}

void
NinjaWriter::subninja(std::string_view path)
{
  std::string line = "subninja " + paths({std::string(path)});
  m_text += line + "\n";
}

void
NinjaWriter::newline()
{
  m_text += "\n";
}

} // namespace opkit::builder
