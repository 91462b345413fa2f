#include "opkit/build/diagnostics.hpp"

#include "opkit/build/ninja_output.hpp"

#include <algorithm>

namespace opkit::build {

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

} // namespace opkit::build
