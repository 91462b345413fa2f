#pragma once

#include <fmt/core.h>

#include <stdexcept>
#include <string>

namespace opkit {

// Process exit codes; docs/commands.md ("Exit codes") documents them. Every command maps its outcome onto these.
enum class ExitCode : int
{
  ok = 0,
  failed = 1,  // the operation ran and its answer is "no": a target failed, a probe mismatched
  usage = 2,   // bad arguments or bad input: a CLI flag, an op name, opkit.yaml, a wheel
  missing = 3, // a prerequisite is absent: an SDK not imported, ninja or a compiler not found
  system = 4,  // the environment failed us: I/O, a subprocess that could not start
};

// The one error type. Thrown anywhere, caught once in cli::run, printed as
// "opkit: error: <message>" with an optional hint line.
class Error : public std::runtime_error
{
public:
  Error(ExitCode code, const std::string& message, std::string hint = {})
    : std::runtime_error(message)
    , m_code(code)
    , m_hint(std::move(hint))
  {
  }

  ExitCode code() const { return m_code; }
  const std::string& hint() const { return m_hint; }

private:
  ExitCode m_code;
  std::string m_hint;
};

template<typename... Args>
[[noreturn]] void
fail(ExitCode code, fmt::format_string<Args...> format, Args&&... args)
{
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

} // namespace opkit
