#pragma once

// Reading what one ninja over every target prints, step by step, as it prints it.
#include <functional>
#include <string>
#include <string_view>

namespace opkit::builder {

// NINJA_STATUS while opkit runs ninja: marks each step's line, so compiler
// output can never be mistaken for one.
inline constexpr const char* k_ninja_status = "@opkit@ %f/%t @ ";

// One step ninja finished.
struct NinjaStep
{
  int finished = 0;        // steps finished so far, this one included
  int total = 0;           // steps ninja plans to run
  std::string description; // "CXX src/a.cc (tf-2.10.1)"
  std::string target;      // the description's last parenthesised word: "tf-2.10.1"
  bool failed = false;
  std::string command; // the command of a failed step
  std::string output;  // what the step printed (the compiler's diagnostics), whole

  bool compile() const; // a CXX or NVCC step
};

// Text without its ANSI escape sequences (colours, clearing).
std::string
strip_ansi(std::string_view text);

// Splits ninja's stdout into steps. `on_status` hears each step as soon as its
// status line arrives (for progress), `on_step` once its output is complete
// (at the next step, or at the end). Ninja's own lines ("ninja: build stopped:
// subcommand failed.") are kept apart.
class NinjaOutputParser
{
public:
  NinjaOutputParser(std::function<void(const NinjaStep&)> on_status, std::function<void(const NinjaStep&)> on_step);
  void feed(std::string_view chunk);
  void finish();
  const std::string& ninja_lines() const { return m_ninja_lines; }

private:
  void line(const std::string& text);
  void flush();

  std::function<void(const NinjaStep&)> m_on_status;
  std::function<void(const NinjaStep&)> m_on_step;
  std::string m_partial;
  bool m_open = false;
  bool m_expect_command = false;
  NinjaStep m_step;
  std::string m_ninja_lines;
};

} // namespace opkit::builder
