#pragma once

// Telling two targets' compiler diagnostics apart, or not: the same source
// failing the same way for tf-1.12.0 and tf-2.10.1 is shown once.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opkit::builder {

// The diagnostics without colours, each of `target_paths` (the target's build
// folder, absolute and relative, its SDK) replaced by "<target>": what makes
// two targets' diagnostics the same.
std::string
normalize_diagnostics(std::string_view output, std::vector<std::string> target_paths);

// The diagnostics with each file they name (where a line starts: a
// diagnostic's "x.cc:3:4:", gcc's context line "x.cc: In function ...:", "In
// file included from" and "from" lines too) written as the user can open it
// from `to`, the folder opkit was run in: relative to it when under it, else
// (and always when `to` is empty: after -C) absolute. The compilers ran in `from` (ninja's folder) and, through
// ccache's base_dir, name project files relative to it ("../src/x.cc:3:4:
// error: ..."). A name that is no file under `from` is left as it is; colours are kept.
std::string
rebase_diagnostic_paths(std::string_view output, const std::filesystem::path& from, const std::filesystem::path& to);

// A tool's line that says the disk is full, ending with that cause, as opkit's
// error lines end with theirs: the text before the cause (its trailing ": "
// and quotes dropped), then ": " and the cause; "" when the line does not say
// it. gcc and ld write "x.o: No space left on device"; as writes "...: can't
// write 28 bytes to section .text of x.o: 'No space left on device'".
std::string
full_disk_line(std::string_view line);

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

} // namespace opkit::builder
