#include "opkit/util/ci_annotations.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace opkit {

namespace {

std::string
escape_data(std::string_view text, bool property)
{
  std::string out;
  for (char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

// The digits at `text[at]` onwards as a number, `at` moved past them; false when none (or too many).
bool
read_number(std::string_view text, size_t& at, int& number)
{
  size_t start = at;
  number = 0;
  while (at < text.size() && is_ascii_digit(text[at]) && at - start < 9) {
    number = number * 10 + (text[at] - '0');
    ++at;
  }
  return at > start && number > 0;
}

std::string
workspace_file(const std::string& file, const std::string& workspace)
{
  if (workspace.empty()) {
    return file;
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(file, ec).lexically_normal();
  std::filesystem::path relative = absolute.lexically_relative(std::filesystem::path(workspace).lexically_normal());
  if (ec || relative.empty() || starts_with(relative.string(), "..")) {
    return file;
  }
  return relative.string();
}

std::string
workspace()
{
  const char* value = std::getenv("GITHUB_WORKSPACE");
  return value == nullptr ? "" : value;
}

} // namespace

std::string
github_command(const CiAnnotation& annotation)
{
  std::string properties = "file=" + escape_data(annotation.file, true) + ",line=" + std::to_string(annotation.line);
  if (annotation.column > 0) {
    properties += ",col=" + std::to_string(annotation.column);
  }
  return fmt::format("::{} {}::{}\n", annotation.level, properties, escape_data(annotation.message, false));
}

bool
parse_located(std::string_view line, const std::string& workspace, CiAnnotation& out)
{
  // The file ends at the first ":DIGITS:" or ":DIGITS: ".
  for (size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0; colon = line.find(':', colon + 1)) {
    size_t at = colon + 1;
    int number = 0;
    if (!read_number(line, at, number) || at >= line.size() || line[at] != ':') {
      continue;
    }
    CiAnnotation result;
    result.file = std::string(line.substr(0, colon));
    result.line = number;
    ++at;
    int column = 0;
    size_t after_column = at;
    if (read_number(line, after_column, column) && after_column < line.size() && line[after_column] == ':') {
      result.column = column;
      at = after_column + 1;
    }
    if (at >= line.size() || line[at] != ' ' || trim(result.file).empty() || has_control(result.file)) {
      return false;
    }
    result.message = trim(line.substr(at + 1));
    result.file = workspace_file(result.file, workspace);
    out = result;
    return !out.message.empty();
  }
  return false;
}

bool
parse_located_nvcc(std::string_view line, const std::string& workspace, CiAnnotation& out)
{
  size_t close = line.find("): ");
  size_t open = close == std::string_view::npos ? close : line.rfind('(', close);
  if (open == std::string_view::npos || open == 0) {
    return false;
  }
  size_t at = open + 1;
  int number = 0;
  if (!read_number(line, at, number) || at != close) {
    return false;
  }
  CiAnnotation result;
  result.file = std::string(line.substr(0, open));
  result.line = number;
  result.message = trim(line.substr(close + 3));
  if (trim(result.file).empty() || has_control(result.file) || result.message.empty()) {
    return false;
  }
  result.file = workspace_file(result.file, workspace);
  out = result;
  return true;
}

bool
in_github_actions()
{
  const char* value = std::getenv("GITHUB_ACTIONS");
  return value != nullptr && std::string(value) == "true";
}

std::string
github_error_annotation(std::string_view message)
{
  CiAnnotation annotation;
  if (!in_github_actions() || !parse_located(message, workspace(), annotation)) {
    return "";
  }
  annotation.level = "error";
  return github_command(annotation);
}

std::string
github_diagnostic_annotations(std::string_view diagnostics)
{
  if (!in_github_actions()) {
    return "";
  }
  std::string out;
  std::string root = workspace();
  for (const std::string& line : split(diagnostics, '\n')) {
    CiAnnotation annotation;
    if (!parse_located(line, root, annotation) && !parse_located_nvcc(line, root, annotation)) {
      continue;
    }
    for (const char* level : {"fatal error: ", "error: ", "warning: "}) {
      if (starts_with(annotation.message, level)) {
        annotation.level = std::string(level) == "warning: " ? "warning" : "error";
        annotation.message = annotation.message.substr(std::string(level).size());
        out += github_command(annotation);
        break;
      }
    }
  }
  return out;
}

} // namespace opkit
