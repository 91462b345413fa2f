#pragma once

// What `opkit build` shows on stderr while ninja runs: one progress line over
// every target (updated in place on a terminal), the compiler's diagnostics
// whole and once, however many targets fail the same way.
#include "opkit/build/diagnostics.hpp"
#include "opkit/build/ninja_output.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace opkit::build {

// A target as the console names it.
struct ConsoleTarget
{
  std::string label;               // "tf-2.10.1"
  std::filesystem::path log;       // its full log (build.log)
  std::vector<std::string> paths;  // what differs in its diagnostics from another target's (normalize_diagnostics)
  std::filesystem::path ninja_dir; // where its compilers run: the folder their file names are relative to
};

// Hears the steps of a build (build_project calls it from one thread).
class BuildObserver
{
public:
  virtual ~BuildObserver() = default;
  virtual void begin(const std::vector<ConsoleTarget>& /*targets*/) {}
  virtual void status(const NinjaStep& /*step*/) {} // a step finished: progress
  virtual void step(const NinjaStep& /*step*/) {}   // ... with its output, whole
  virtual void end() {}
};

struct ConsoleStyle
{
  bool tty = false;     // progress updated in place ("\r", clear line)
  bool color = false;   // colours (diagnostics too: BuildOptions::color)
  bool verbose = false; // without a terminal: each step on a line of its own
  bool quiet = false;   // diagnostics only
  int width = 80;       // the progress line is cut to fit
};

// A path as the user can type it from here: relative when below the working folder.
std::string
shown_path(const std::filesystem::path& path);

// The style for opkit's stderr: a terminal's, coloured unless NO_COLOR is set.
ConsoleStyle
stderr_console_style();

class BuildConsole : public BuildObserver
{
public:
  BuildConsole(std::FILE* out, ConsoleStyle style);
  void begin(const std::vector<ConsoleTarget>& targets) override;
  void status(const NinjaStep& step) override;
  void step(const NinjaStep& step) override;
  void end() override;

private:
  void clear_line();
  void draw_line();
  const ConsoleTarget* find(const std::string& label) const;

  std::FILE* m_out;
  ConsoleStyle m_style;
  std::vector<ConsoleTarget> m_targets;
  std::filesystem::path m_cwd; // where opkit runs: diagnostics name files from here
  DiagnosticsSeen m_seen;
  std::string m_line; // the progress line shown now (a terminal's)
};

} // namespace opkit::build
