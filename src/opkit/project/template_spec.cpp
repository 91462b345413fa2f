#include "opkit/project/template_spec.hpp"

#include "opkit/project/yaml_util.hpp"

namespace opkit::project {

TemplateSpec
parse_template_spec(const std::string& text, const std::string& name)
{
  YAML::Node root = yaml::load(text, name);
  yaml::expect_keys(root, {"description", "files"}, name);
  TemplateSpec spec;
  spec.description = yaml::get_string(root, "description", name);
  for (const YAML::Node& file : root["files"]) {
    yaml::expect_keys(file, {"source", "dest"}, name);
    spec.files.push_back({yaml::get_string(file, "source", name), yaml::get_string(file, "dest", name)});
  }
  return spec;
}

} // namespace opkit::project
