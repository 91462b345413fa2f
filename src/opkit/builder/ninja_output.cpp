#include "opkit/builder/ninja_output.hpp"

#include "opkit/util/strings.hpp"

#include <cstdlib>

namespace opkit::builder {

namespace {

constexpr std::string_view k_marker = "@opkit@ ";

// "CXX src/a.cc (tf-2.10.1)" -> "tf-2.10.1".
std::string
description_target(const std::string& description)
{
  if (description.empty() || description.back() != ')') {
    return {};
  }
  size_t open = description.rfind('(');
  return open == std::string::npos ? std::string() : description.substr(open + 1, description.size() - open - 2);
}

} // namespace

bool
NinjaStep::compile() const
{
  return starts_with(description, "CXX ") || starts_with(description, "NVCC ");
}

std::string
strip_ansi(std::string_view text)
{
  std::string result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && (text[i] < 0x40 || text[i] > 0x7e)) {
        ++i; // parameters and intermediates, up to the final byte
      }
      continue;
    }
    result += text[i];
  }
  return result;
}

NinjaOutputParser::NinjaOutputParser(std::function<void(const NinjaStep&)> on_status,
                                     std::function<void(const NinjaStep&)> on_step)
  : m_on_status(std::move(on_status))
  , m_on_step(std::move(on_step))
{
}

void
NinjaOutputParser::feed(std::string_view chunk)
{
  m_partial.append(chunk);
  size_t start = 0;
  for (size_t end = m_partial.find('\n'); end != std::string::npos; end = m_partial.find('\n', start)) {
    line(m_partial.substr(start, end - start));
    start = end + 1;
  }
  m_partial.erase(0, start);
}

void
NinjaOutputParser::finish()
{
  if (!m_partial.empty()) {
    line(m_partial);
    m_partial.clear();
  }
  flush();
}

void
NinjaOutputParser::flush()
{
  if (m_open && m_on_step) {
    m_on_step(m_step);
  }
  m_open = false;
  m_expect_command = false;
  m_step = {};
}

void
NinjaOutputParser::line(const std::string& text)
{
  if (starts_with(text, k_marker)) {
    flush();
    // "@opkit@ 5/12 @ CXX src/a.cc (tf-2.10.1)"
    std::string rest = text.substr(k_marker.size());
    size_t slash = rest.find('/');
    size_t at = rest.find(" @ ");
    if (slash != std::string::npos && at != std::string::npos && slash < at) {
      m_step.finished = std::atoi(rest.substr(0, slash).c_str());
      m_step.total = std::atoi(rest.substr(slash + 1, at - slash - 1).c_str());
      m_step.description = rest.substr(at + 3);
    } else {
      m_step.description = rest;
    }
    m_step.target = description_target(m_step.description);
    m_open = true;
    if (m_on_status) {
      m_on_status(m_step);
    }
    return;
  }
  std::string plain = strip_ansi(text);
  if (starts_with(plain, "ninja: ")) {
    flush();
    m_ninja_lines += plain + "\n";
    return;
  }
  if (!m_open) {
    m_ninja_lines += plain + "\n";
  } else if (!m_step.failed && m_step.output.empty() && starts_with(plain, "FAILED: ")) {
    m_step.failed = true;
    m_expect_command = true;
  } else if (m_expect_command) {
    m_step.command = text;
    m_expect_command = false;
  } else {
    m_step.output += text + "\n";
  }
}

} // namespace opkit::builder
