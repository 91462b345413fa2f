#include "opkit/cli/commands.hpp"
#include "opkit/package/easyrec.hpp"
#include "opkit/package/package.hpp"
#include "opkit/package/saved_model.hpp"
#include "opkit/package/tf_serving.hpp"
#include "opkit/package/wheel.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace {

void
print_notes(const std::vector<std::string>& notes)
{
  for (const std::string& note : notes) {
    log_info("note: {}", note);
  }
}

// --tf, -o and --build-dir: the options of the packages that gather the
// libraries of several TF versions.
void
add_gather_options(CLI::App* cmd, std::vector<std::string>& versions, std::filesystem::path& output_dir,
                   std::filesystem::path& build_root)
{
  cmd->add_option("--tf", versions, "TF versions to include (default: opkit.yaml's targets)");
  cmd->add_option("-o,--output-dir", output_dir, "Where to write it (default: dist/)");
  cmd->add_option("--build-dir", build_root, "Build folder (default: build/)");
}

void
print_package(const std::filesystem::path& file, const std::string& detail, const std::vector<std::string>& libraries)
{
  fmt::print("{} ({})\n", file, detail);
  for (const std::string& library : libraries) {
    fmt::print("  {}\n", library);
  }
}

// The path as typed from the current folder: relative inside it, else absolute.
std::string
display_path(const std::filesystem::path& file)
{
  std::filesystem::path absolute = std::filesystem::absolute(file).lexically_normal();
  std::filesystem::path relative = absolute.lexically_relative(std::filesystem::current_path());
  bool inside = !relative.empty() && *relative.begin() != "..";
  return (inside ? relative : absolute).string();
}

void
print_easyrec_next_steps(const package::EasyRecResult& result)
{
  std::string path = display_path(result.file);
  if (result.overlay) {
    fmt::print("next:    extract it over a complete EasyRec resource (tar xzf {} -C <an unpacked "
               "easy_rec_ext_<V>_res.tar.gz>), pack and upload that; uploaded alone it would replace the whole "
               "resource. Or pass --easyrec-dir to make the complete resource.\n",
               path);
    return;
  }
  fmt::print("upload:  odpscmd -e \"add archive {} -f;\"\n", path);
  fmt::print("run:     pai -name easy_rec_ext -Dres_project=<the project you uploaded to> -Dversion={} "
             "-Dcmd=train -Dconfig=<oss://.../pipeline.config> ...\n",
             result.version);
  for (const package::EasyRecLibrary& library : result.libraries) {
    if (!library.flavor.empty()) {
      fmt::print("flavor:  --flavor {} for TF {}: the job's TensorFlow loads easy_rec/python/ops/{}/\n", library.flavor,
                 library.tf, library.dir);
    }
  }
}

void
add_easyrec(CLI::App& package_app, int& exit_code)
{
  static package::EasyRecOptions options;
  static std::vector<std::string> versions;
  CLI::App* cmd = package_app.add_subcommand(
    "easyrec", "EasyRec resource easy_rec_ext_<V>_res.tar.gz (with --easyrec-dir), else an ops overlay");
  cmd->add_option("--version", options.version,
                  "Resource version ([0-9A-Za-z._-], e.g. 0.7.5; default: easy_rec/version.py's __version__)");
  cmd->add_option("--easyrec-dir", options.easyrec_dir, "Your EasyRec checkout, packed as deploy_ext.sh packs it");
  cmd->add_option("--flavor", options.flavor,
                  "pai (TF 1.12 -> ops/1.12_pai, the default for 1.12), stock (1.12 -> ops/1.12, 1.15 -> ops/1.15) "
                  "or deeprec (1.15 -> ops/DeepRec)");
  cmd->add_option("--protoc", options.protoc,
                  "protoc generating easy_rec/python/protos/*_pb2.py (default: $OPKIT_PROTOC, else PATH)");
  cmd->add_flag("--force", options.force, "Pack an op that disagrees with EasyRec's libraries in its folder");
  add_gather_options(cmd, versions, options.output_dir, options.build_root);
  cmd->callback([&exit_code] {
    options.tf_specs = split_versions(versions);
    package::EasyRecResult result = package::package_easyrec(project::load_manifest("."), options);
    print_notes(result.notes);
    for (const std::string& warning : result.warnings) {
      log_warning("{} (packed because of --force)", warning);
    }
    fmt::print("{} ({} files{})\n", display_path(result.file), result.files, result.overlay ? ", ops overlay" : "");
    for (const package::EasyRecLibrary& library : result.libraries) {
      fmt::print("  {}  <- TF {}: {}\n", library.path, library.tf, library.why);
    }
    print_easyrec_next_steps(result);
    exit_code = 0;
  });
}

void
add_saved_model(CLI::App& package_app, int& exit_code)
{
  static package::SavedModelOptions options;
  static std::vector<std::string> assets;
  CLI::App* cmd = package_app.add_subcommand("saved-model", "Add the op library (and files) to a SavedModel's assets/");
  cmd->add_option("export_dir", options.export_dir, "The exported SavedModel folder")->required();
  cmd->add_option("--tf", options.tf_spec, "The serving runtime's TF version (default: the newest target)");
  cmd->add_option("--asset", assets, "Another file to add, e.g. fg.json (repeatable)");
  cmd->add_option("--runtime", options.runtime, "Check against this runtime (default: the TF version's own)");
  cmd->add_flag("--force", options.force, "Add the library even if opkit check says it will not load");
  cmd->add_option("--build-dir", options.build_root, "Build folder (default: build/)");
  cmd->callback([&exit_code] {
    options.assets.assign(assets.begin(), assets.end());
    package::SavedModelResult result = package::package_saved_model(project::load_manifest("."), options);
    if (!result.check.loads) {
      log_warning("{} will not load in {} (added because of --force)", result.check.library, result.check.target);
    }
    for (const std::string& file : result.changed) {
      log_warning("{}: added by an earlier run but changed since: kept, as your own file now",
                  result.assets_dir / file);
    }
    fmt::print("{}\n", result.model);
    fmt::print("{}:\n", result.assets_dir);
    for (const std::string& asset : result.assets) {
      fmt::print("  {}\n", asset);
    }
    for (const std::string& file : result.removed) {
      fmt::print("removed {} (an earlier run added it; this one did not)\n", file);
    }
    exit_code = 0;
  });
}

void
add_tf_serving(CLI::App& package_app, int& exit_code)
{
  static package::TfServingOptions options;
  CLI::App* cmd = package_app.add_subcommand("tf-serving", "Bazel package for tensorflow_serving/custom_ops/<name>/");
  cmd->add_option("--serving-dir", options.serving_dir,
                  "A tensorflow/serving checkout: copy the package in and add it to SUPPORTED_TENSORFLOW_OPS");
  cmd->add_flag("--patch", options.patch_only, "With --serving-dir: write the BUILD patch instead of editing it");
  cmd->add_option("-o,--output-dir", options.output_dir, "Where to write it (default: dist/tf-serving)");
  cmd->callback([&exit_code] {
    package::TfServingResult result = package::package_tf_serving(project::load_manifest("."), options);
    fmt::print("bundle:  {}\nlabel:   {}\n", result.bundle_dir, result.label);
    if (!options.serving_dir.empty()) {
      fmt::print("patch:   {}\n", result.patch_file);
    }
    if (!options.serving_dir.empty() && !options.patch_only) {
      fmt::print("{}: {}\n", result.serving_bundle, result.bundle_changed ? "written" : "unchanged");
      fmt::print("model_servers/BUILD: {}\n",
                 result.build_changed ? "label added to SUPPORTED_TENSORFLOW_OPS" : "unchanged (label already listed)");
    }
    exit_code = 0;
  });
}

void
add_wheel(CLI::App& package_app, int& exit_code)
{
  static package::WheelOptions options;
  static std::vector<std::string> versions;
  CLI::App* cmd = package_app.add_subcommand("wheel", "A pip wheel with the wrapper and a library per TF version");
  cmd->add_option("--requires", options.requirement,
                  "A Requires-Dist line (default: none; the wheel plugs into the installed TensorFlow)");
  add_gather_options(cmd, versions, options.output_dir, options.build_root);
  cmd->callback([&exit_code] {
    options.tf_specs = split_versions(versions);
    package::WheelResult result = package::package_wheel(project::load_manifest("."), options);
    print_package(result.file,
                  result.requirement.empty() ? "requires no TensorFlow distribution: uses the installed one"
                                             : "requires " + result.requirement,
                  result.libraries);
    for (const package::PolicyVerdict& verdict : result.platform.verdicts) {
      fmt::print("{}: {}\n", verdict.policy, verdict.passes ? "every library passes" : "fails: " + verdict.failure);
    }
    fmt::print("platform tag: {}\n", result.platform.tag);
    if (result.platform.tag.rfind("linux_", 0) == 0) {
      fmt::print("note: no manylinux policy passes, so PyPI will refuse this wheel; install it from a file or a "
                 "private index\n");
    }
    exit_code = 0;
  });
}

void
add_verify(CLI::App& package_app, int& exit_code)
{
  static std::string file;
  CLI::App* cmd = package_app.add_subcommand("verify", "Check a package (file or folder) against its manifest");
  cmd->add_option("package", file, "A .tar.gz, .whl, or a folder holding opkit-manifest.json")->required();
  cmd->callback([&exit_code] {
    std::vector<std::string> problems = package::verify_package(file);
    for (const std::string& problem : problems) {
      fmt::print("{}: {}\n", file, problem);
    }
    if (problems.empty()) {
      fmt::print("{}: verified against its manifest\n", file);
    }
    exit_code = static_cast<int>(problems.empty() ? ExitCode::ok : ExitCode::failed);
  });
}

} // namespace

void
add_package_command(CLI::App& app, GlobalOptions& /*global*/, int& exit_code)
{
  CLI::App* cmd = app.add_subcommand("package", "Bundle built libraries for EasyRec, SavedModels, TF Serving, pip");
  cmd->require_subcommand(1);
  add_easyrec(*cmd, exit_code);
  add_saved_model(*cmd, exit_code);
  add_tf_serving(*cmd, exit_code);
  add_wheel(*cmd, exit_code);
  add_verify(*cmd, exit_code);
}

} // namespace opkit::cli
