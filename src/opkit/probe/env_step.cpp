#include "opkit/probe/env_step.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

namespace opkit::probe {

std::vector<std::string>
pip_output_flags()
{
  if (verbosity() < Verbosity::normal) {
    return {"--quiet"};
  }
  return {"--progress-bar=off"};
}

void
run_env_step(const std::vector<std::string>& argv, const std::string& what, progress::Step& step,
             const std::string& hint)
{
  step.detail(what);
  const bool echo = verbosity() >= Verbosity::normal && !progress::stderr_style().redraw;
  std::string said;    // everything, for the error
  std::string pending; // the line not yet ended (also in `said`)
  ProcessOptions options;
  options.on_stdout = [&](std::string_view piece) {
    said += piece;
    pending += piece;
    for (size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      std::string line = trim(pending.substr(0, end));
      pending.erase(0, end + 1);
      if (line.empty()) {
        continue;
      }
      step.detail(line);
      if (echo) {
        progress::write(line); // a log file keeps pip's own account
      }
    }
  };
  const NetLimits limits = settings::net_limits();
  options.deadline_s = limits.deadline_s;
  ProcessResult result = run_process(argv, options);
  if (result.timed_out) {
    throw past_net_deadline(what, "run", limits);
  }
  if (result.exit_code != 0) {
    std::string offline = network_failure_said(said + result.err);
    if (!offline.empty()) {
      throw network_unreachable(what, "", offline, hint);
    }
    std::string last = join(split(trim(tail_lines(said + result.err, 3)), '\n'), "; ");
    throw Error(ExitCode::missing, fmt::format("{}: failed (exit {}): {}", what, result.exit_code, last), hint);
  }
}

} // namespace opkit::probe
