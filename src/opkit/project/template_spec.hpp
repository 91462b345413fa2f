#pragma once

#include <string>
#include <vector>

namespace opkit::project {

struct TemplateFile
{
  std::string source; // relative to templates/<name>/
  std::string dest;   // mustache, relative to the new project
  std::string when;   // a flag ("cuda") the file needs; empty: always
};

// How opkit build and opkit test treat a template's projects.
enum class TemplateKind
{
  compiled, // opkit builds lib<name>.so per version of its framework; opkit test probes it in the real framework
  python,   // nothing to compile; opkit test runs the project's test script in a venv
  popart,   // opkit build runs the Makefile against a PopART SDK; opkit test runs the test script
};

// templates/<name>/template.yaml: what a template renders.
struct TemplateSpec
{
  std::string description;
  TemplateKind kind = TemplateKind::compiled;
  std::string framework = "tensorflow";  // of a compiled op: configs/frameworks/<framework>.yaml
  std::vector<std::string> requirements; // PyPI packages the test script needs (opkit test installs them)
  std::string test;                      // the test script, mustache, relative to the project
  std::string op;                        // how `opkit new` names the op, mustache (default: the CamelCase name)
  std::vector<std::string> flags;        // the flags `opkit new` accepts for it ("cuda")
  bool easyrec = false;                  // rendered for an EasyRec release (configs/packages/easyrec.yaml)
  std::vector<TemplateFile> files;
};

// templates/<name>/template.yaml of an embedded template; Error(usage)
// listing the templates when there is none.
TemplateSpec
load_template_spec(const std::string& name);

// The names of the embedded templates, sorted.
std::vector<std::string>
template_names();

// Parses template.yaml text; errors are Error(usage) "name:line:col: cause".
TemplateSpec
parse_template_spec(const std::string& text, const std::string& name);

} // namespace opkit::project
