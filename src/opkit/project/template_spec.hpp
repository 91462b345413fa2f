#pragma once

#include <string>
#include <vector>

namespace opkit::project {

struct TemplateFile
{
  std::string source; // relative to templates/<name>/
  std::string dest;   // mustache, relative to the new project
};

// templates/<name>/template.yaml: what a template renders.
struct TemplateSpec
{
  std::string description;
  std::vector<TemplateFile> files;
};

// Parses template.yaml text; errors are Error(usage) "name:line:col: cause".
TemplateSpec parse_template_spec(const std::string& text, const std::string& name);

} // namespace opkit::project
