#include "opkit/builder/console.hpp"
#include "opkit/util/ci_annotations.hpp"

#include "opkit/util/log.hpp"

#include <fmt/format.h>

namespace opkit::builder {

std::string
shown_path(const std::filesystem::path& path)
{
  std::error_code ec;
  std::filesystem::path relative = std::filesystem::proximate(path, ec);
  return ec || relative.empty() || relative.string().rfind("..", 0) == 0 ? path.string() : relative.string();
}

BuildConsole::BuildConsole(ConsoleStyle style)
  : m_style(style)
{
  // After -C the names are absolute: they open from where opkit was started
  // as well as from the folder its "Entering directory" line names.
  std::error_code ec;
  m_cwd = entered_folder().empty() ? std::filesystem::current_path(ec) : std::filesystem::path();
}

void
BuildConsole::begin(const std::vector<ConsoleTarget>& targets)
{
  m_targets = targets;
  // A log's heartbeat counts from ninja's start (a first compile may be long);
  // a terminal draws the line from the first step (a no-op draws none).
  if (!m_style.quiet && !m_style.redraw && !m_progress) {
    m_progress = std::make_unique<progress::Step>("building");
  }
}

const ConsoleTarget*
BuildConsole::find(const std::string& label) const
{
  for (const ConsoleTarget& target : m_targets) {
    if (target.label == label) {
      return &target;
    }
  }
  return nullptr;
}

void
BuildConsole::status(const NinjaStep& step)
{
  if (m_style.quiet) {
    return;
  }
  std::string counter = fmt::format("[{}/{}]", step.finished, step.total);
  if (!m_progress) {
    m_progress = std::make_unique<progress::Step>("building"); // without a terminal: its heartbeat line
  }
  m_progress->detail(counter + " " + step.description);
  // A log (no terminal): a line per finished compile, every step with -v.
  if (!m_style.redraw && (m_style.verbose || step.compile())) {
    progress::write(counter + " " + step.description);
  }
}

void
BuildConsole::step(const NinjaStep& step)
{
  if (step.output.empty()) {
    return;
  }
  const ConsoleTarget* target = find(step.target);
  std::string normalized = normalize_diagnostics(step.output, target ? target->paths : std::vector<std::string>{});
  std::string earlier = m_seen.shown_before(step.target, normalized);
  if (earlier.empty()) {
    std::string text;
    if (step.failed) {
      text = fmt::format("{}FAILED:{} {}\n", m_style.color ? "\x1b[1;31m" : "", m_style.color ? "\x1b[0m" : "",
                         step.description);
    }
    std::string output = target ? rebase_diagnostic_paths(step.output, target->ninja_dir, m_cwd) : step.output;
    progress::write(text + (m_style.color ? output : strip_ansi(output)));
    // In a GitHub workflow, each error and warning also annotates its line (once, like the text).
    if (std::string annotations = github_diagnostic_annotations(strip_ansi(output)); !annotations.empty()) {
      progress::write(annotations);
    }
  } else if (m_seen.first_mention(step.target, earlier)) {
    progress::write(fmt::format("{}: the same {} as {} (full log: {})", step.target,
                                step.failed ? "errors" : "warnings", earlier,
                                target ? shown_path(target->log) : std::string("its build.log")));
  }
}

void
BuildConsole::end()
{
  m_progress.reset();
}

} // namespace opkit::builder
