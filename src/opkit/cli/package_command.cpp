#include "opkit/cli/autobuild.hpp"
#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/framework_options.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/builder/outdated.hpp"
#include "opkit/check/checker.hpp"
#include "opkit/package/easyrec.hpp"
#include "opkit/package/package.hpp"
#include "opkit/package/saved_model.hpp"
#include "opkit/package/tf_serving.hpp"
#include "opkit/package/wheel.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/json.hpp"
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

// --tf (--torch), -o and --build-dir: the options of the packages that gather
// the libraries of several framework versions.
struct GatherFlags
{
  FrameworkVersions versions;
  bool no_build = false;
  bool json = false;
};

void
add_gather_options(CLI::App* cmd, GatherFlags& flags, std::filesystem::path& output_dir,
                   std::filesystem::path& build_root, bool& dry_run, const char* schema)
{
  add_framework_versions(cmd, flags.versions, "TF versions to include (default: opkit.yaml's targets)", "include");
  cmd->add_option("-o,--output-dir", output_dir, "Where to write it (default: dist/)");
  cmd->add_option("--build-dir", build_root, "Build folder (default: build/)");
  cmd->add_flag("--dry-run", dry_run, "Print what would be written (file, members) and write nothing");
  add_no_build_flag(cmd, flags.no_build);
  add_json_flag(cmd, flags.json, schema, "Print what was written as JSON");
}

// Before gathering the built libraries: build what is out of date, or with
// --dry-run (which builds nothing) say what a real run would build first.
void
prepare_libraries(const project::Manifest& manifest, const std::vector<std::string>& specs,
                  const std::filesystem::path& build_root, bool no_build, bool dry_run)
{
  if (!dry_run) {
    build_out_of_date(manifest, specs, build_root, {}, no_build);
    return;
  }
  std::vector<std::string> unbuilt;
  for (const builder::OutdatedTarget& target : builder::outdated_targets(manifest, specs, build_root, {})) {
    if (target.reason == "not built yet") {
      unbuilt.push_back(target.spec);
      continue;
    }
    log_info("note: {} is out of date ({}); a run without --dry-run builds it first", target.sdk_id, target.reason);
  }
  // A library that is not there cannot be listed: the dry run stops before any note says otherwise.
  if (!unbuilt.empty()) {
    const std::string& flag = project::FrameworkTable::get(manifest.framework).short_name();
    throw Error(ExitCode::missing,
                fmt::format("--dry-run: {} {} not built yet, and a dry run builds nothing: it cannot list "
                            "libraries that are not there",
                            join(unbuilt, " and "), unbuilt.size() == 1 ? "is" : "are"),
                fmt::format("run `opkit build --{} {}` first, or package without --dry-run, which builds first", flag,
                            join(unbuilt, ",")));
  }
}

Json
files_json(const std::vector<package::PackedFile>& files)
{
  Json list = Json::array();
  for (const package::PackedFile& file : files) {
    list.push_back({{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}});
  }
  return list;
}

// What every archive package's JSON starts with: the file (its size and
// sha256 once written) and its members.
Json
archive_json(const char* schema, const std::filesystem::path& file, bool written,
             const std::vector<package::PackedFile>& members)
{
  Json json = {{"schema", schema}, {"file", file.string()}, {"written", written}};
  json["bytes"] = written ? Json(std::filesystem::file_size(file)) : Json();
  json["sha256"] = written ? Json(sha256_hex_file(file)) : Json();
  json["members"] = files_json(members);
  return json;
}

Json
next_steps_json(const std::vector<std::pair<std::string, std::string>>& steps)
{
  Json list = Json::array();
  for (const auto& [what, text] : steps) {
    list.push_back({{"step", what}, {"text", text}});
  }
  return list;
}

// --dry-run's listing: the file (or folder) it would write and each member.
void
print_dry_run(const std::filesystem::path& file, const std::vector<package::PackedFile>& members,
              const char* bytes_are = "bytes before compression")
{
  int64_t bytes = 0;
  for (const package::PackedFile& member : members) {
    bytes += member.size;
  }
  fmt::print("would write {} ({} files, {} {}); nothing written (--dry-run)\n", file, members.size(), bytes, bytes_are);
  for (const package::PackedFile& member : members) {
    fmt::print("  {:>10}  {}\n", member.size, member.path);
  }
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

// (what, text): "upload", "odpscmd -e ..."
std::vector<std::pair<std::string, std::string>>
easyrec_next_steps(const package::EasyRecResult& result)
{
  std::string path = display_path(result.file);
  if (result.overlay) {
    return {{"next", fmt::format("extract it over a complete EasyRec resource (tar xzf {} -C <an unpacked "
                                 "easy_rec_ext_<V>_res.tar.gz>), pack and upload that; uploaded alone it would replace "
                                 "the whole resource. Or pass --easyrec-dir to make the complete resource.",
                                 path)}};
  }
  // Where the 1.12 library went decides which TF 1.12 runs the resource:
  // PAI-TF reads ops/1.12_pai/, stock TF ops/1.12/.
  std::string flavor_112;
  for (const package::EasyRecLibrary& library : result.libraries) {
    if (starts_with(library.tf, "1.12")) {
      flavor_112 = library.flavor;
    }
  }
  std::string local = fmt::format("mkdir run && tar xzf {} -C run && cd run, add your pipeline.config and data, then "
                                  "PYTHONPATH=$PWD python -m easy_rec.python.train_eval --pipeline_config_path "
                                  "pipeline.config (and .eval, .export --export_dir export) in a Python with TF 1.12",
                                  path);
  std::vector<std::pair<std::string, std::string>> steps;
  if (flavor_112 == "pai") {
    steps.emplace_back("local", "off PAI, stock TF 1.12 reads easy_rec/python/ops/1.12/, not 1.12_pai/: pack again "
                                "with --flavor stock, then "
                                  + local);
  } else {
    steps.emplace_back("local", local);
  }
  std::string pai_first =
    flavor_112 == "stock" ? "PAI-TF 1.12 reads easy_rec/python/ops/1.12_pai/: pack again without --flavor stock, then "
                          : "";
  steps.emplace_back("upload", pai_first + fmt::format("odpscmd -e \"add archive {} -f;\"", path));
  steps.emplace_back("run",
                     fmt::format("pai -name easy_rec_ext -Dres_project=<the project you uploaded to> -Dversion={} "
                                 "-Dcmd=train -Dconfig=<oss://.../pipeline.config> ... (then -Dcmd=evaluate, "
                                 "-Dcmd=export)",
                                 result.version));
  steps.emplace_back("serve", "opkit package saved-model <the export> --tf <the serving TF, 2.10.1 for EAS>: the "
                              "library in the export's assets/, which the EasyRec Processor loads");
  for (const package::EasyRecLibrary& library : result.libraries) {
    if (!library.flavor.empty()) {
      steps.emplace_back("flavor",
                         fmt::format("--flavor {} for TF {}: the job's TensorFlow loads easy_rec/python/ops/{}/",
                                     library.flavor, library.tf, library.dir));
    }
  }
  return steps;
}

Json
easyrec_json(const package::EasyRecResult& result)
{
  Json json = archive_json("opkit.package-easyrec/1", result.file, result.written, result.members);
  json["version"] = result.version;
  json["overlay"] = result.overlay;
  Json libraries = Json::array();
  for (const package::EasyRecLibrary& library : result.libraries) {
    libraries.push_back({{"path", library.path},
                         {"tf_version", library.tf},
                         {"dir", library.dir},
                         {"flavor", library.flavor},
                         {"why", library.why}});
  }
  json["libraries"] = libraries;
  json["notes"] = result.notes;
  json["warnings"] = result.warnings;
  json["next_steps"] = next_steps_json(easyrec_next_steps(result));
  return json;
}

void
add_easyrec(CLI::App& package_app, int& exit_code)
{
  static package::EasyRecOptions options;
  static GatherFlags flags;
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
  add_gather_options(cmd, flags, options.output_dir, options.build_root, options.dry_run, "opkit.package-easyrec/1");
  cmd->callback([&exit_code] {
    project::Manifest manifest = project::load_manifest(".");
    if (manifest.framework != "tensorflow") {
      fail(ExitCode::usage, "opkit package easyrec: EasyRec runs TensorFlow ops; this project's template is for {}",
           project::FrameworkTable::get(manifest.framework).display_name());
    }
    options.tf_specs = flags.versions.for_framework(manifest.framework);
    prepare_libraries(manifest, options.tf_specs, options.build_root, flags.no_build, options.dry_run);
    package::EasyRecResult result = package::package_easyrec(manifest, options);
    print_notes(result.notes);
    for (const std::string& warning : result.warnings) {
      log_warning("{} (packed because of --force)", warning);
    }
    exit_code = 0;
    if (flags.json) {
      fmt::print("{}\n", json_text(easyrec_json(result), 2));
      return;
    }
    if (options.dry_run) {
      print_dry_run(result.file, result.members);
      return;
    }
    fmt::print("{} ({} files{})\n", display_path(result.file), result.files, result.overlay ? ", ops overlay" : "");
    for (const package::EasyRecLibrary& library : result.libraries) {
      fmt::print("  {}  <- TF {}: {}\n", library.path, library.tf, library.why);
    }
    for (const auto& [what, text] : easyrec_next_steps(result)) {
      fmt::print("{:<9}{}\n", what + ":", text);
    }
  });
}

// Which TF wrote the model and which TF's library it gets.
void
print_model_versions(const package::SavedModelResult& result)
{
  if (result.model_tf.empty()) {
    fmt::print("exported by: (the model does not say); library for TF {}\n", result.serving_tf);
  } else {
    fmt::print("exported by TF {}; library for TF {}{}\n", result.model_tf, result.serving_tf,
               result.model_tf == result.serving_tf ? "" : " (a TF loads SavedModels of its own and older versions)");
  }
}

void
add_saved_model(CLI::App& package_app, int& exit_code)
{
  static package::SavedModelOptions options;
  static std::vector<std::string> assets;
  CLI::App* cmd = package_app.add_subcommand("saved-model", "Add the op library (and files) to a SavedModel's assets/");
  cmd->add_option("export_dir", options.export_dir, "The exported SavedModel folder")->required();
  cmd->add_option("--tf", options.tf_spec,
                  "The serving runtime's TF version (default: the target matching the TF that exported the model)");
  cmd->add_option("--asset", assets, "Another file to add, e.g. fg.json (repeatable)");
  cmd->add_option("--runtime", options.runtime, "Check against this runtime (default: the TF version's own)");
  cmd->add_flag("--force", options.force, "Add the library even if opkit check says it will not load");
  cmd->add_option("--build-dir", options.build_root, "Build folder (default: build/)");
  static bool no_build = false;
  static bool json = false;
  add_no_build_flag(cmd, no_build);
  cmd->add_flag("--dry-run", options.dry_run, "Print what assets/ would hold (and check the library); write nothing");
  add_json_flag(cmd, json, "opkit.package-saved-model/1", "Print what was written as JSON");
  cmd->callback([&exit_code] {
    options.assets.assign(assets.begin(), assets.end());
    project::Manifest manifest = project::load_manifest(".");
    // The export decides the TF first (and refuses a library older than the model), before anything is built.
    package::SavedModelTarget target = package::saved_model_target(manifest, options);
    prepare_libraries(manifest, {target.spec}, options.build_root, no_build, options.dry_run);
    package::SavedModelResult result = package::package_saved_model(manifest, options, target);
    if (!result.check.loads) {
      log_warning("{} will not load in {} (added because of --force)", result.check.library, result.check.target);
    }
    for (const std::string& file : result.changed) {
      log_warning("{}: added by an earlier run but changed since: kept, as your own file now",
                  result.assets_dir / file);
    }
    exit_code = 0;
    if (json) {
      fmt::print(
        "{}\n",
        json_text({{"schema", "opkit.package-saved-model/1"},
                   {"export_dir", options.export_dir.string()},
                   {"model", result.model},
                   {"model_tf", result.model_tf.empty() ? Json() : Json(result.model_tf)},
                   {"serving_tf", result.serving_tf},
                   {"assets_dir", result.assets_dir.string()},
                   {"written", result.written},
                   {"assets", files_json(result.written ? package::folder_files(result.assets_dir) : result.planned)},
                   {"removed", result.removed},
                   {"changed", result.changed},
                   {"check", check::to_json(result.check)}},
                  2));
      return;
    }
    if (options.dry_run) {
      fmt::print("{}\n", result.model);
      print_model_versions(result);
      print_dry_run(result.assets_dir, result.planned, "bytes");
      for (const std::string& file : result.removed) {
        fmt::print("would remove {} (an earlier run added it; this one would not)\n", file);
      }
      return;
    }
    fmt::print("{}\n", result.model);
    print_model_versions(result);
    fmt::print("{}:\n", result.assets_dir);
    for (const std::string& asset : result.assets) {
      fmt::print("  {}\n", asset);
    }
    for (const std::string& file : result.removed) {
      fmt::print("removed {} (an earlier run added it; this one did not)\n", file);
    }
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
  static bool json = false;
  cmd->add_flag("--dry-run", options.dry_run, "Print what would be written or changed; write nothing");
  add_json_flag(cmd, json, "opkit.package-tf-serving/1", "Print what was written as JSON");
  cmd->callback([&exit_code] {
    package::TfServingResult result = package::package_tf_serving(project::load_manifest("."), options);
    exit_code = 0;
    if (json) {
      bool serving = !options.serving_dir.empty();
      Json out = {{"schema", "opkit.package-tf-serving/1"},
                  {"bundle_dir", result.bundle_dir.string()},
                  {"label", result.label},
                  {"written", result.written},
                  {"files", files_json(result.written ? package::folder_files(result.bundle_dir) : result.planned)},
                  {"serving_dir", serving ? Json(options.serving_dir.string()) : Json()},
                  {"patch_file", serving ? Json(result.patch_file.string()) : Json()},
                  {"serving_bundle", serving && !options.patch_only ? Json(result.serving_bundle.string()) : Json()},
                  {"bundle_changed", result.bundle_changed},
                  {"build_changed", result.build_changed}};
      fmt::print("{}\n", json_text(out, 2));
      return;
    }
    if (options.dry_run) {
      print_dry_run(result.bundle_dir, result.planned, "bytes");
      fmt::print("label:   {}\n", result.label);
      if (!options.serving_dir.empty()) {
        fmt::print("would write {}\n", result.patch_file);
      }
      if (!options.serving_dir.empty() && !options.patch_only) {
        fmt::print("{}: {}\n", result.serving_bundle, result.bundle_changed ? "would be written" : "unchanged");
        fmt::print("model_servers/BUILD: {}\n", result.build_changed ? "would get the label in SUPPORTED_TENSORFLOW_OPS"
                                                                     : "unchanged (label already listed)");
      }
      return;
    }
    fmt::print("bundle:  {}\nlabel:   {}\n", result.bundle_dir, result.label);
    if (!options.serving_dir.empty()) {
      fmt::print("patch:   {}\n", result.patch_file);
    }
    if (!options.serving_dir.empty() && !options.patch_only) {
      fmt::print("{}: {}\n", result.serving_bundle, result.bundle_changed ? "written" : "unchanged");
      fmt::print("model_servers/BUILD: {}\n",
                 result.build_changed ? "label added to SUPPORTED_TENSORFLOW_OPS" : "unchanged (label already listed)");
    }
  });
}

Json
wheel_json(const package::WheelResult& result)
{
  Json json = archive_json("opkit.package-wheel/1", result.file, result.written, result.members);
  json["requirement"] = result.requirement;
  json["libraries"] = result.libraries;
  json["platform_tag"] = result.platform.tag;
  Json verdicts = Json::array();
  for (const package::PolicyVerdict& verdict : result.platform.verdicts) {
    verdicts.push_back({{"policy", verdict.policy}, {"passes", verdict.passes}, {"failure", verdict.failure}});
  }
  json["policies"] = verdicts;
  std::vector<std::pair<std::string, std::string>> steps = {
    {"install", fmt::format("pip install {}", display_path(result.file))}};
  if (result.platform.tag.rfind("linux_", 0) == 0) {
    steps.emplace_back("note", "no manylinux policy passes, so PyPI will refuse this wheel; install it from a file or "
                               "a private index");
  }
  json["next_steps"] = next_steps_json(steps);
  return json;
}

void
print_wheel(const package::WheelResult& result, bool dry_run, const project::Manifest& manifest)
{
  if (dry_run) {
    print_dry_run(result.file, result.members);
  }
  print_package(result.file,
                result.requirement.empty()
                  ? fmt::format("requires no {} distribution: uses the installed one",
                                project::FrameworkTable::get(manifest.framework).display_name())
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
}

void
add_wheel(CLI::App& package_app, int& exit_code)
{
  static package::WheelOptions options;
  static GatherFlags flags;
  CLI::App* cmd =
    package_app.add_subcommand("wheel", "A pip wheel with the wrapper and a library per framework version");
  cmd
    ->add_option("--requires", options.requirement,
                 "A Requires-Dist line (default: none; the wheel plugs into the installed framework)")
    ->type_name("REQUIREMENT");
  add_gather_options(cmd, flags, options.output_dir, options.build_root, options.dry_run, "opkit.package-wheel/1");
  cmd->callback([&exit_code] {
    project::Manifest manifest = project::load_manifest(".");
    options.tf_specs = flags.versions.for_framework(manifest.framework);
    // A tree with its own package (python_module:) gets a wheel per release; a template project one wheel.
    bool own = !package::own_package(manifest).empty();
    if (!own) {
      package::require_wrapper(manifest); // before a build it would not use
    }
    prepare_libraries(manifest, options.tf_specs, options.build_root, flags.no_build, options.dry_run);
    std::vector<package::WheelResult> results =
      own ? package::package_own_wheels(manifest, options)
          : std::vector<package::WheelResult>{package::package_wheel(manifest, options)};
    exit_code = 0;
    if (flags.json) {
      Json json = wheel_json(results.front());
      if (own) {
        json["wheels"] = Json::array();
        for (const package::WheelResult& result : results) {
          json["wheels"].push_back(wheel_json(result));
        }
      }
      fmt::print("{}\n", json_text(json, 2));
      return;
    }
    for (const package::WheelResult& result : results) {
      print_wheel(result, options.dry_run, manifest);
    }
  });
}

void
add_verify(CLI::App& package_app, int& exit_code)
{
  static std::string file;
  CLI::App* cmd = package_app.add_subcommand("verify", "Check a package (file or folder) against its manifest");
  cmd->add_option("package", file, "A .tar.gz, .whl, or a folder holding opkit-manifest.json")->required();
  static bool json = false;
  add_json_flag(cmd, json, "opkit.package-verify/1", "Print the verdict as JSON");
  cmd->callback([&exit_code] {
    std::vector<std::string> problems = package::verify_package(file);
    exit_code = static_cast<int>(problems.empty() ? ExitCode::ok : ExitCode::failed);
    if (json) {
      fmt::print("{}\n", json_text({{"schema", "opkit.package-verify/1"},
                                    {"package", file},
                                    {"verified", problems.empty()},
                                    {"problems", problems}},
                                   2));
      return;
    }
    for (const std::string& problem : problems) {
      fmt::print("{}: {}\n", file, problem);
    }
    if (problems.empty()) {
      fmt::print("{}: verified against its manifest\n", file);
    }
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
