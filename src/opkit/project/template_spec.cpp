#include "opkit/project/template_spec.hpp"

#include "opkit/project/framework_table.hpp"
#include "opkit/project/yaml_util.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"
#include "opkit/util/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace opkit::project {

namespace {

// `kind:` a framework's name (tensorflow, torch: opkit compiles the op for it), python or popart.
TemplateKind
parse_kind(const Node& root, const std::string& name, std::string& framework)
{
  std::string kind = yaml::get_string_or(root, "kind", name, "tensorflow");
  std::vector<std::string> frameworks = FrameworkTable::names();
  if (std::find(frameworks.begin(), frameworks.end(), kind) != frameworks.end()) {
    framework = kind;
    return TemplateKind::compiled;
  }
  if (kind == "python") {
    return TemplateKind::python;
  }
  if (kind == "popart") {
    return TemplateKind::popart;
  }
  fail(ExitCode::usage, "{}: unknown kind '{}' (expected {}, python or popart)", yaml::where(name, root["kind"]), kind,
       join(frameworks, ", "));
}

TemplateSpec
spec_from_node(const Node& root, const std::string& name)
{
  yaml::expect_keys(root, {"description", "kind", "requirements", "test", "op", "flags", "easyrec", "files"}, name);
  TemplateSpec spec;
  spec.description = yaml::get_string(root, "description", name);
  spec.kind = parse_kind(root, name, spec.framework);
  spec.requirements = yaml::get_string_list(root, "requirements", name);
  spec.test = yaml::get_string_or(root, "test", name, "");
  spec.op = yaml::get_string_or(root, "op", name, "");
  spec.flags = yaml::get_string_list(root, "flags", name);
  spec.easyrec = yaml::get_bool_or(root, "easyrec", name, false);
  if (spec.kind != TemplateKind::compiled && spec.test.empty()) {
    fail(ExitCode::usage, "{}: a {} template needs a test script ('test')", yaml::where(name, root),
         yaml::get_string(root, "kind", name));
  }
  for (const Node& file : root["files"]) {
    yaml::expect_keys(file, {"source", "dest", "when"}, name);
    spec.files.push_back({yaml::get_string(file, "source", name), yaml::get_string(file, "dest", name),
                          yaml::get_string_or(file, "when", name, "")});
  }
  return spec;
}

} // namespace

TemplateSpec
parse_template_spec(const std::string& text, const std::string& name)
{
  return spec_from_node(yaml::load(text, name), name);
}

std::vector<std::string>
template_names()
{
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embedded_under("templates/")) {
    std::vector<std::string> parts = split(file.path, '/');
    if (parts.size() == 3 && parts[2] == "template.yaml") {
      names.push_back(parts[1]);
    }
  }
  return names;
}

TemplateSpec
load_template_spec(const std::string& name)
{
  std::string path = "templates/" + name + "/template.yaml";
  if (!find_embedded(path)) {
    std::optional<std::string> meant = nearest(name, template_names());
    fail(ExitCode::usage, "'{}': unknown template ({}available: {})", name,
         meant ? fmt::format("did you mean {}? ", *meant) : "", join(template_names(), ", "));
  }
  return spec_from_node(yaml::load_embedded(path), path); // from its MessagePack twin
}

} // namespace opkit::project
