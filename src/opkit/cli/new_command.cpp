#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/names.hpp"
#include "opkit/scaffold/scaffold.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

void
add_new_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  static scaffold::NewOptions options;
  static FrameworkVersions versions;
  static bool list = false;
  CLI::App* cmd = app.add_subcommand("new", "Create an op project from a template");
  cmd->add_option("name", options.name, "The op's name: snake_case, kebab-case or CamelCase");
  CLI::Option* template_option =
    cmd->add_option("-t,--template", options.template_name, "The template (see --list)")->capture_default_str();
  offer_values(template_option, [] {
    std::vector<std::string> names;
    for (const scaffold::TemplateInfo& info : scaffold::list_templates()) {
      names.push_back(info.name);
    }
    return names;
  });
  cmd->add_option("-o,--output", options.output, "The project folder (default: ./<name>)");
  add_framework_versions(cmd, versions, "The TensorFlow versions the project targets (default: 1.12,2.10.1)", "target");
  cmd->add_flag("--list", list, "List the templates");
  cmd->add_option("--easyrec", options.easyrec_version,
                  "easyrec-layer: the EasyRec release to write for (e.g. 0.7.1; default: the newest known)");
  cmd->add_option(
    "--easyrec-dir", options.easyrec_dir,
    "easyrec-layer: the EasyRec checkout (or unpacked pai-easy-rec) to write for: its easy_rec/version.py");
  static bool cuda = false;
  cmd->add_flag("--cuda", cuda, "tensorflow-op: add a GPU kernel compiled by nvcc");
  add_json_flag(cmd, global.json, "opkit.new/1", "Print what was created as JSON");
  cmd->callback([&global, &exit_code] {
    if (list) {
      for (const scaffold::TemplateInfo& info : scaffold::list_templates()) {
        fmt::print("{:<20} {}\n", info.name, info.description);
      }
      return;
    }
    if (options.name.empty()) {
      throw Error(ExitCode::usage, "new: missing the op name", "usage: opkit new NAME [--template T] [--output DIR]");
    }
    project::TemplateSpec spec = project::load_template_spec(options.template_name);
    options.target_versions =
      versions.for_framework(spec.kind == project::TemplateKind::compiled ? spec.framework : std::string("tensorflow"));
    if (cuda) {
      options.flags.push_back("cuda");
    }
    scaffold::NewResult result = scaffold::create_project(options);
    exit_code = 0;
    if (global.json) {
      Json report = {{"schema", "opkit.new/1"},        {"project", project::derive_names(options.name).snake},
                     {"op", result.op_name},           {"template", options.template_name},
                     {"folder", result.root.string()}, {"tf_versions", options.target_versions},
                     {"files", result.files}};
      if (!result.easyrec_release.empty()) {
        report["easyrec"] = {{"release", result.easyrec_release}, {"route", result.easyrec_route}};
      }
      fmt::print("{}\n", json_text(report, 2));
      return;
    }
    fmt::print("created {} (op {}, template {})\n", result.root, result.op_name, options.template_name);
    for (const std::string& file : result.files) {
      fmt::print("  {}\n", file);
    }
    if (!result.easyrec_release.empty()) {
      fmt::print("for EasyRec {}: {}\n", result.easyrec_release, result.easyrec_route);
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
