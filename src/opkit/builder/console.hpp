#pragma once

// What `opkit build` shows on stderr while ninja runs: a step of the status
// line (util/progress) over every target, the compiler's diagnostics whole and
// once, however many targets fail the same way.
#include "opkit/builder/diagnostics.hpp"
#include "opkit/builder/ninja_output.hpp"
#include "opkit/util/progress.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace opkit::builder {

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

// How stderr shows progress (util/progress): a terminal's redraw, colour unless NO_COLOR, -q, -v.
using ConsoleStyle = progress::Style;

// A path as the user can type it from here: relative when below the working folder.
std::string
shown_path(const std::filesystem::path& path);

class BuildConsole : public BuildObserver
{
public:
  explicit BuildConsole(ConsoleStyle style);
  void begin(const std::vector<ConsoleTarget>& targets) override;
  void status(const NinjaStep& step) override;
  void step(const NinjaStep& step) override;
  void end() override;

private:
  const ConsoleTarget* find(const std::string& label) const;

  ConsoleStyle m_style;
  std::unique_ptr<progress::Step> m_progress; // from the first step to end()
  std::vector<ConsoleTarget> m_targets;
  std::filesystem::path m_cwd; // where opkit runs: diagnostics name files from here (empty after -C: absolute)
  DiagnosticsSeen m_seen;
};

} // namespace opkit::builder
