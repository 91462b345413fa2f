#include "opkit/scaffold/scaffold.hpp"

#include "opkit/project/framework_table.hpp"
#include "opkit/project/names.hpp"
#include "opkit/project/package_rules.hpp"
#include "opkit/project/template_spec.hpp"
#include "opkit/project/version.hpp"
#include "opkit/util/embedded.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <kainjow/mustache.hpp>

#include <algorithm>
#include <set>

namespace opkit::scaffold {

namespace stdfs = std::filesystem;

namespace {

void
check_output_free(const stdfs::path& output)
{
  std::error_code ec;
  if (stdfs::exists(output, ec) && !(stdfs::is_directory(output, ec) && stdfs::is_empty(output, ec))) {
    // The ways out: the project already there, the sources there adopted, another folder.
    bool project = stdfs::is_regular_file(output / "opkit.yaml", ec);
    stdfs::path relative = stdfs::proximate(output, ec);
    std::string shown =
      shell_quote(ec || relative.empty() || *relative.begin() == ".." ? output.string() : relative.string());
    throw Error(ExitCode::usage, fmt::format("{}: already exists and is not an empty folder", output),
                project ? fmt::format("it holds an opkit project: work in it (opkit -C {} build), or give opkit new "
                                      "another folder with --output DIR",
                                      shown)
                        : fmt::format("to use the sources there: opkit init {}; for a new project elsewhere: "
                                      "--output DIR",
                                      shown));
  }
}

std::vector<std::pair<std::string, std::string>>
template_data(const project::ProjectNames& names, const std::vector<std::string>& target_versions,
              const std::string& framework)
{
  std::vector<std::string> quoted;
  for (const std::string& version : target_versions) {
    if (!project::parse_version(version)) {
      fail(ExitCode::usage, "'{}': invalid {} version (expected e.g. 2.10.1 or 2.10)", version,
           project::FrameworkTable::get(framework).display_name());
    }
    quoted.push_back("\"" + version + "\"");
  }
  return {{"name", names.snake},
          {"op_name", names.camel},
          {"tf_versions", join(quoted, ", ")},
          {"tf_versions_cli", join(target_versions, ",")},
          {"versions", join(quoted, ", ")}, // the same, for a template of another framework
          {"versions_cli", join(target_versions, ",")}};
}

// The EasyRec release an EasyRec template is rendered for, and what it offers
// (configs/packages/easyrec.yaml), as template data.
void
add_easyrec_data(const NewOptions& options, std::vector<std::pair<std::string, std::string>>& data, NewResult& result)
{
  const project::EasyRecRules& rules = project::easyrec_rules();
  std::string text = options.easyrec_version;
  if (text.empty() && !options.easyrec_dir.empty()) {
    text = project::easyrec_checkout_version(options.easyrec_dir, "pass --easyrec VERSION");
  }
  std::optional<project::Version> release;
  if (text.empty()) {
    release = rules.releases.back().since;
  } else {
    release = project::parse_version(text);
    if (!release) {
      fail(ExitCode::usage, "'{}': not an EasyRec release (expected e.g. 0.7.1){}", text,
           options.easyrec_dir.empty() ? std::string()
                                       : fmt::format(" in {}", options.easyrec_dir / "easy_rec/version.py"));
    }
  }
  const project::EasyRecRules::Release& row = project::easyrec_release(rules, *release);
  result.easyrec_release = text.empty() ? ">= " + row.since.str() : text;
  result.easyrec_route = row.route;
  data.emplace_back("easyrec_release", result.easyrec_release);
  data.emplace_back("easyrec_route", row.route);
  if (row.raw_input) {
    data.emplace_back("raw_input", "true");
  }
}

} // namespace

std::string
render_mustache(const std::string& text, const std::vector<std::pair<std::string, std::string>>& data)
{
  kainjow::mustache::mustache view(text);
  if (!view.is_valid()) {
    fail(ExitCode::system, "template error: {}", view.error_message());
  }
  view.set_custom_escape([](const std::string& s) { return s; });
  kainjow::mustache::data values;
  for (const auto& [key, value] : data) {
    // "true" is a flag: a section ({{#cuda}}...{{/cuda}}) renders; absent keys render nothing.
    if (value == "true") {
      values.set(key, kainjow::mustache::data::type::bool_true);
    } else {
      values.set(key, value);
    }
  }
  return view.render(values);
}

std::vector<TemplateInfo>
list_templates()
{
  std::vector<TemplateInfo> templates;
  for (const std::string& name : project::template_names()) {
    templates.push_back({name, project::load_template_spec(name).description});
  }
  return templates;
}

NewResult
create_project(const NewOptions& options)
{
  project::ProjectNames names = project::derive_names(options.name);
  project::TemplateSpec spec = project::load_template_spec(options.template_name);
  for (const std::string& flag : options.flags) {
    if (std::find(spec.flags.begin(), spec.flags.end(), flag) == spec.flags.end()) {
      fail(ExitCode::usage, "--{}: template {} does not take it", flag, options.template_name);
    }
  }
  stdfs::path output = options.output.empty() ? stdfs::path(names.snake) : options.output;
  output = stdfs::absolute(output).lexically_normal();
  if (output.filename().empty()) {
    output = output.parent_path();
  }
  bool easyrec_asked = !options.easyrec_version.empty() || !options.easyrec_dir.empty();
  if (easyrec_asked && !spec.easyrec) {
    fail(ExitCode::usage, "--easyrec/--easyrec-dir: template {} is not rendered for an EasyRec release",
         options.template_name);
  }
  check_output_free(output);
  // A template of no framework (EasyRec's, python ones) targets TensorFlow.
  std::string framework = spec.kind == project::TemplateKind::compiled ? spec.framework : "tensorflow";
  std::vector<std::string> versions = options.target_versions;
  if (versions.empty()) {
    versions = project::FrameworkTable::get(framework).default_targets();
  }
  auto data = template_data(names, versions, framework);
  for (const std::string& flag : options.flags) {
    data.emplace_back(flag, "true");
  }
  NewResult result{output, spec.op.empty() ? names.camel : render_mustache(spec.op, data), {}, {}, {}};
  if (spec.easyrec) {
    add_easyrec_data(options, data, result);
  }

  fs::StagingDir staging(output.parent_path());
  for (const project::TemplateFile& file : spec.files) {
    if (!file.when.empty() && std::find(options.flags.begin(), options.flags.end(), file.when) == options.flags.end()) {
      continue;
    }
    // Templates may share files ("../tensorflow-op/op.cc"): normalise before the lookup.
    std::string source_path =
      stdfs::path("templates/" + options.template_name + "/" + file.source).lexically_normal().generic_string();
    std::optional<std::string_view> source = find_embedded(source_path);
    if (!source) {
      fail(ExitCode::system, "{}: listed in template.yaml but not embedded", source_path);
    }
    std::string dest = render_mustache(file.dest, data);
    if (!fs::stays_inside(dest)) {
      fail(ExitCode::system, "{}: destination '{}' leaves the project", source_path, dest);
    }
    fs::create_dirs((staging.path() / dest).parent_path());
    fs::write_file_atomic(staging.path() / dest, render_mustache(std::string(*source), data));
    result.files.push_back(dest);
  }
  std::error_code ec;
  stdfs::remove(output, ec); // an empty folder given as --output is replaced
  staging.commit(output);
  std::sort(result.files.begin(), result.files.end());
  return result;
}

} // namespace opkit::scaffold
