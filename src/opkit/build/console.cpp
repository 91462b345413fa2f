#include "opkit/build/console.hpp"

#include "opkit/util/log.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include <sys/ioctl.h>
#include <unistd.h>

namespace opkit::build {

std::string
shown_path(const std::filesystem::path& path)
{
  std::error_code ec;
  std::filesystem::path relative = std::filesystem::proximate(path, ec);
  return ec || relative.empty() || relative.string().rfind("..", 0) == 0 ? path.string() : relative.string();
}

ConsoleStyle
stderr_console_style()
{
  ConsoleStyle style;
  style.tty = ::isatty(STDERR_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  style.color = style.tty && (no_color == nullptr || *no_color == '\0');
  style.verbose = verbosity() >= Verbosity::verbose;
  style.quiet = verbosity() == Verbosity::quiet;
  winsize size{};
  if (style.tty && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    style.width = size.ws_col;
  }
  return style;
}

BuildConsole::BuildConsole(std::FILE* out, ConsoleStyle style)
  : m_out(out)
  , m_style(style)
{
  std::error_code ec;
  m_cwd = std::filesystem::current_path(ec);
}

void
BuildConsole::begin(const std::vector<ConsoleTarget>& targets)
{
  m_targets = targets;
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
BuildConsole::clear_line()
{
  if (m_style.tty && !m_line.empty()) {
    fmt::print(m_out, "\r\x1b[K");
  }
}

void
BuildConsole::draw_line()
{
  if (m_style.tty && !m_line.empty()) {
    fmt::print(m_out, "\r\x1b[K{}", m_line);
    std::fflush(m_out);
  }
}

void
BuildConsole::status(const NinjaStep& step)
{
  if (m_style.quiet) {
    return;
  }
  std::string counter = fmt::format("[{}/{}]", step.finished, step.total);
  if (m_style.tty) {
    // Cut to the terminal's width: a wrapped line cannot be rewritten in place.
    size_t room = static_cast<size_t>(std::max(10, m_style.width - 1)) - counter.size() - 1;
    std::string text = step.description.size() > room ? step.description.substr(0, room) : step.description;
    m_line = m_style.color ? fmt::format("\x1b[1;32m{}\x1b[0m {}", counter, text) : counter + " " + text;
    draw_line();
  } else if (m_style.verbose) {
    fmt::print(m_out, "{} {}\n", counter, step.description);
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
  clear_line();
  if (earlier.empty()) {
    if (step.failed) {
      fmt::print(m_out, "{}FAILED:{} {}\n", m_style.color ? "\x1b[1;31m" : "", m_style.color ? "\x1b[0m" : "",
                 step.description);
    }
    std::string output = target ? rebase_diagnostic_paths(step.output, target->ninja_dir, m_cwd) : step.output;
    fmt::print(m_out, "{}", m_style.color ? output : strip_ansi(output));
  } else if (m_seen.first_mention(step.target, earlier)) {
    fmt::print(m_out, "{}: the same {} as {} (full log: {})\n", step.target, step.failed ? "errors" : "warnings",
               earlier, target ? shown_path(target->log) : std::string("its build.log"));
  }
  draw_line();
}

void
BuildConsole::end()
{
  clear_line();
  m_line.clear();
  std::fflush(m_out);
}

} // namespace opkit::build
