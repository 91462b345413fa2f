#include "opkit/builder/diagnostics.hpp"

#include "opkit/builder/ninja_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace opkit::builder {

namespace {

// The length of the colour escapes ("\x1b[01m\x1b[K") at `at`.
size_t
escapes_at(std::string_view line, size_t at)
{
  size_t end = at;
  while (end + 1 < line.size() && line[end] == '\x1b' && line[end + 1] == '[') {
    size_t letter = line.find_first_of("mK", end + 2);
    if (letter == std::string_view::npos) {
      break;
    }
    end = letter + 1;
  }
  return end - at;
}

// One line, its file name rebased (see rebase_diagnostic_paths).
std::string
rebase_line(std::string_view line, const std::filesystem::path& from, const std::filesystem::path& to)
{
  size_t at = escapes_at(line, 0);
  for (std::string_view prefix : {"In file included from ", "                 from "}) {
    if (line.substr(at, prefix.size()) == prefix) {
      at += prefix.size();
      at += escapes_at(line, at);
      break;
    }
  }
  // The file's colon: before a line number ("x.cc:3:4: error"), or before
  // gcc's context ("x.cc: In function 'int f()':", its colours between).
  auto ends_name = [&line](size_t colon) {
    size_t next = colon + 1 + escapes_at(line, colon + 1);
    return next < line.size() && ((line[next] >= '0' && line[next] <= '9') || line[next] == ' ');
  };
  size_t colon = line.find(':', at);
  while (colon != std::string_view::npos && !ends_name(colon)) {
    colon = line.find(':', colon + 1);
  }
  if (colon == std::string_view::npos || colon == at || line[at] == '/' || line[at] == '\x1b') {
    return std::string(line);
  }
  std::filesystem::path file = (from / std::string(line.substr(at, colon - at))).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return std::string(line);
  }
  std::filesystem::path shown = to.empty() ? std::filesystem::path() : file.lexically_relative(to);
  if (shown.empty() || *shown.begin() == "..") {
    shown = file;
  }
  return std::string(line.substr(0, at)) + shown.string() + std::string(line.substr(colon));
}

} // namespace

std::string
rebase_diagnostic_paths(std::string_view output, const std::filesystem::path& from, const std::filesystem::path& to)
{
  std::string result;
  result.reserve(output.size());
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    size_t stop = end == std::string_view::npos ? output.size() : end;
    result += rebase_line(output.substr(start, stop - start), from, to);
    if (end == std::string_view::npos) {
      break;
    }
    result += '\n';
    start = end + 1;
  }
  return result;
}

std::string
normalize_diagnostics(std::string_view output, std::vector<std::string> target_paths)
{
  std::string text = strip_ansi(output);
  // Longest first: the absolute build folder before its relative tail.
  std::sort(target_paths.begin(), target_paths.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& path : target_paths) {
    if (path.empty()) {
      continue;
    }
    for (size_t at = text.find(path); at != std::string::npos; at = text.find(path, at + 8)) {
      text.replace(at, path.size(), "<target>");
    }
  }
  // The C++11 ABI's namespace: std::string is the same mistake under either ABI.
  const std::string abi = "std::__cxx11::";
  for (size_t at = text.find(abi); at != std::string::npos; at = text.find(abi, at)) {
    text.replace(at, abi.size(), "std::");
  }
  return text;
}

std::string
DiagnosticsSeen::shown_before(const std::string& target, const std::string& normalized)
{
  auto [it, fresh] = m_first.try_emplace(normalized, target);
  return fresh || it->second == target ? std::string() : it->second;
}

bool
DiagnosticsSeen::first_mention(const std::string& target, const std::string& earlier)
{
  std::pair<std::string, std::string> pair{target, earlier};
  if (std::find(m_mentioned.begin(), m_mentioned.end(), pair) != m_mentioned.end()) {
    return false;
  }
  m_mentioned.push_back(pair);
  return true;
}

std::string
full_disk_line(std::string_view line)
{
  const std::string_view cause = std::strerror(ENOSPC);
  size_t at = line.find(cause);
  if (at == std::string_view::npos) {
    return "";
  }
  std::string_view before = line.substr(0, at);
  while (!before.empty()
         && (before.back() == ' ' || before.back() == ':' || before.back() == '\'' || before.back() == '"')) {
    before.remove_suffix(1);
  }
  return before.empty() ? std::string(cause) : fmt::format("{}: {}", before, cause);
}

} // namespace opkit::builder
