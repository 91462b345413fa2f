#pragma once

// Errors with a file and line as GitHub Actions' workflow commands
// (`::error file=F,line=L,col=C::message`), which the runner turns into
// annotations on the file's line, when opkit runs in a workflow
// (GITHUB_ACTIONS=true). Written on stderr, which the runner also reads for
// workflow commands (GitHub documents stdout), so --json's stdout stays the report.
// The one place opkit speaks a CI system's command language.
#include <string>
#include <string_view>

namespace opkit {

// One located message.
struct CiAnnotation
{
  std::string level; // "error", "warning"
  std::string file;  // relative to the workspace when under it
  int line = 0;
  int column = 0; // 0 when the message has none
  std::string message;
};

// The workflow command for an annotation: "::error file=F,line=L,col=C::message\n",
// its properties and message escaped as the runner unescapes them (% \r \n;
// in properties also : and ,).
std::string
github_command(const CiAnnotation& annotation);

// Reads "FILE:LINE[:COLUMN]: REST" (a compiler's diagnostic line, opkit's
// "opkit.yaml:3:7: cause"): false when `line` is not shaped so. The file is
// made relative to `workspace` when it lies under it (relative names are
// taken from the working folder); `level` is left "".
bool
parse_located(std::string_view line, const std::string& workspace, CiAnnotation& out);

// Whether opkit runs in a GitHub Actions workflow (GITHUB_ACTIONS is "true").
bool
in_github_actions();

// For an opkit error message starting "FILE:LINE[:COL]: ": its ::error
// command, in a workflow; "" elsewhere or when the message names no line.
std::string
github_error_annotation(std::string_view message);

// Reads nvcc's front end's "FILE(LINE): REST" ("k.cu(12): error: ..."), as parse_located.
bool
parse_located_nvcc(std::string_view line, const std::string& workspace, CiAnnotation& out);

// For a compiler's diagnostics (colours stripped): a command per
// "FILE:LINE:COL: error: ..." ("fatal error" too) and "...: warning: ..."
// line, and nvcc's "FILE(LINE): error: ...", in a workflow; "" elsewhere.
std::string
github_diagnostic_annotations(std::string_view diagnostics);

} // namespace opkit
