#pragma once

// Telling two targets' compiler diagnostics apart, or not: the same source
// failing the same way for tf-1.12.0 and tf-2.10.1 is shown once.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opkit::build {

// The diagnostics without colours, each of `target_paths` (the target's build
// folder, absolute and relative, its SDK) replaced by "<target>": what makes
// two targets' diagnostics the same.
std::string
normalize_diagnostics(std::string_view output, std::vector<std::string> target_paths);

// Which target showed each text of diagnostics first.
class DiagnosticsSeen
{
public:
  // The other target that showed these normalised diagnostics already, or
  // empty: then they are `target`'s.
  std::string shown_before(const std::string& target, const std::string& normalized);
  // True the first time for a pair: "tf-2.10.1: the same errors as tf-1.12.0" is said once.
  bool first_mention(const std::string& target, const std::string& earlier);

private:
  std::map<std::string, std::string> m_first;
  std::vector<std::pair<std::string, std::string>> m_mentioned;
};

} // namespace opkit::build
