#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opkit::builder {

// Escapes text for a ninja variable value: only '$' is special.
std::string
ninja_escape(std::string_view text);

// Escapes a path in a build line: '$', ' ' and ':' are special. ninja has no
// escape for '|' (it starts a build line's implicit part), so a '|' becomes
// ${opkit_pipe}, a variable NinjaWriter defines before the first line using it.
std::string
ninja_escape_path(std::string_view path);

// Builds a .ninja file as text, in the order calls are made, so the same calls
// give the same bytes.
class NinjaWriter
{
public:
  void comment(std::string_view text);
  void variable(std::string_view name, std::string_view value, int indent = 0);
  void rule(std::string_view name, std::string_view command, std::string_view description,
            std::string_view depfile = {}, std::string_view deps = {});
  // `implicit`: inputs that rebuild the outputs when they change without appearing in $in.
  void build(const std::vector<std::string>& outputs, std::string_view rule, const std::vector<std::string>& inputs,
             const std::vector<std::pair<std::string, std::string>>& variables = {},
             const std::vector<std::string>& implicit = {});
  void pool(std::string_view name, int depth);
  void default_target(const std::vector<std::string>& targets);
  // Includes another .ninja file in a scope of its own (its path relative to ninja's folder).
  void subninja(std::string_view path);
  void newline();

  const std::string& text() const { return m_text; }

private:
  // The paths escaped and joined by spaces; defines ${opkit_pipe} first when one holds a '|'.
  std::string paths(const std::vector<std::string>& list);

  std::string m_text;
  bool m_pipe_defined = false;
};

} // namespace opkit::builder
