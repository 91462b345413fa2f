#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::scaffold {

struct TemplateInfo
{
  std::string name;
  std::string description;
};

// The templates embedded in this binary, by name.
std::vector<TemplateInfo>
list_templates();

struct NewOptions
{
  std::string name; // as typed; validated and derived
  std::string template_name = "tensorflow-op";
  std::filesystem::path output;             // empty: ./<snake name>
  std::vector<std::string> target_versions; // the project's default targets (empty: the framework's default_targets)
  std::vector<std::string> flags;           // template flags given, e.g. "cuda"
  // Templates rendered for an EasyRec release (easyrec-layer): the release, or
  // the checkout whose easy_rec/version.py names it; neither: the newest row
  // of configs/packages/easyrec.yaml.
  std::string easyrec_version;
  std::filesystem::path easyrec_dir;
};

struct NewResult
{
  std::filesystem::path root;
  std::string op_name;
  std::vector<std::string> files; // relative to root, sorted
  std::string easyrec_release;    // what an EasyRec template was rendered for ("0.7.1", ">= 0.8.2"); else empty
  std::string easyrec_route;      // how raw strings reach the component in that release
};

// Renders a template into a new project folder. The project is rendered into a
// staging folder and renamed into place, so a failure leaves nothing behind.
// An invalid name, an unknown template or an existing non-empty output folder
// is Error(usage).
NewResult
create_project(const NewOptions& options);

// Mustache rendering with no HTML escaping (the output is source code).
std::string
render_mustache(const std::string& text, const std::vector<std::pair<std::string, std::string>>& data);

} // namespace opkit::scaffold
