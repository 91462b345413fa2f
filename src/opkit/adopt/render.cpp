#include "opkit/adopt/adopt.hpp"
#include "opkit/project/attr_spec.hpp"
#include "opkit/project/framework_table.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <unistd.h>

namespace opkit::adopt {

namespace stdfs = std::filesystem;

namespace {

// A YAML scalar: plain when that reads back as the same string, else double-quoted.
std::string
scalar(const std::string& text)
{
  static const std::set<std::string> k_special = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  std::string lower = ascii_lower(text);
  bool plain = !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_' || text == ".")
               && k_special.count(lower) == 0 && std::all_of(text.begin(), text.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c))
                           || std::string_view("_./>+-").find(c) != std::string_view::npos;
                  });
  if (plain) {
    return text;
  }
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  }
  return quoted + "\"";
}

std::string
flow(const std::vector<std::string>& items)
{
  std::vector<std::string> scalars;
  scalars.reserve(items.size());
  for (const std::string& item : items) {
    scalars.push_back(scalar(item));
  }
  return "[" + join(scalars, ", ") + "]";
}

// "key: [a, b]" on one line when it fits, else a block list.
void
render_list(std::string& out, const std::string& indent, const char* key, const std::vector<std::string>& items)
{
  if (indent.size() + flow(items).size() < 100) {
    out += fmt::format("{}{}: {}\n", indent, key, flow(items));
    return;
  }
  out += fmt::format("{}{}:\n", indent, key);
  for (const std::string& item : items) {
    out += fmt::format("{}  - {}\n", indent, scalar(item));
  }
}

// The lists of a settings block; `first` starts the first line (a list item's "- ").
void
render_settings(std::string& out, const std::string& indent, const project::SettingsBlock& block, bool item,
                const std::string& framework)
{
  std::string lead = item ? indent + "- " : indent;
  std::string rest = item ? indent + "  " : indent;
  auto next = [&] {
    std::string current = lead;
    lead = rest;
    return current;
  };
  if (!block.when.versions.empty()) {
    out += fmt::format("{}{}: \"{}\"\n", next(), framework, block.when.versions.text);
  }
  if (!block.when.device.empty()) {
    out += fmt::format("{}device: {}\n", next(), block.when.device);
  }
  for (const auto& [key, list] : {std::pair{"sources", &block.sources}, std::pair{"include_dirs", &block.include_dirs},
                                  std::pair{"defines", &block.defines}, std::pair{"compat", &block.compat}}) {
    if (!list->empty()) {
      render_list(out, next(), key, *list);
    }
  }
}

void
render_op(std::string& out, const project::OpSpec& op)
{
  if (!op.schema.empty()) { // torch: the schema and the dispatch keys
    std::vector<std::string> keys;
    for (const project::KernelSpec& kernel : op.kernels) {
      keys.push_back(kernel.device);
    }
    out += fmt::format("      - schema: {}\n", scalar(op.schema));
    out += keys.empty() ? "" : fmt::format("        kernels: {}\n", flow(keys));
    return;
  }
  out += fmt::format("      - name: {}\n", scalar(op.name));
  for (const auto& [key, args] : {std::pair{"inputs", &op.inputs}, std::pair{"outputs", &op.outputs}}) {
    out += args->empty() ? "" : fmt::format("        {}:\n", key);
    for (const project::OpArg& arg : *args) {
      out += fmt::format("          - {{name: {}, type: {}}}\n", scalar(arg.name), scalar(arg.type));
    }
  }
  out += op.attrs.empty() ? "" : "        attrs:\n";
  for (const project::OpAttr& attr : op.attrs) {
    if (attr.full_spec) { // TensorFlow's own grammar: enum, default and minimum as the registry states them
      out += fmt::format("          - {}\n", scalar(project::render_attr_spec(attr)));
      continue;
    }
    out += fmt::format("          - {{name: {}, type: {}{}}}\n", scalar(attr.name), scalar(attr.type),
                       attr.allowed.empty() ? "" : ", allowed: " + flow(attr.allowed));
  }
  out += op.kernels.empty() ? "" : "        kernels:\n";
  for (const project::KernelSpec& kernel : op.kernels) {
    out += fmt::format("          - device: {}\n", kernel.device);
    std::vector<std::string> constraints;
    for (const auto& [attr, dtypes] : kernel.constraints) {
      constraints.push_back(scalar(attr) + ": " + flow(dtypes));
    }
    out += constraints.empty() ? "" : fmt::format("            constraints: {{{}}}\n", join(constraints, ", "));
  }
}

// Writes `path` only if it does not exist yet, atomically (a hard link of a complete file).
void
write_new_file(const stdfs::path& path, const std::string& text)
{
  stdfs::path staging = path.parent_path() / fmt::format(".{}.init-{}", path.filename().string(), ::getpid());
  fs::write_file_atomic(staging, text);
  std::error_code ec;
  stdfs::create_hard_link(staging, path, ec);
  if (ec && ec != std::errc::file_exists && !stdfs::exists(path)) {
    stdfs::rename(staging, path, ec); // a filesystem without hard links
  }
  std::error_code ignored;
  stdfs::remove(staging, ignored);
  if (ec == std::errc::file_exists) {
    fail(ExitCode::usage, "{}: already exists; opkit init never overwrites it", path);
  }
  if (ec) {
    fail(ExitCode::system, "{}: cannot write: {}", path, ec.message());
  }
}

} // namespace

std::string
render_manifest(const Adoption& adoption)
{
  std::string out = "# Written by `opkit init` from the op sources it found here (check what it printed as\n"
                    "# \"guessed\"); `opkit build` and `opkit test` use it. Edit it freely: opkit init never\n"
                    "# overwrites it.\n";
  out += fmt::format("name: {}\nversion: 0.1.0\n", scalar(adoption.name));
  out += adoption.package.empty() ? "" : fmt::format("package: {} # the tree's own Python package\n", adoption.package);
  if (adoption.framework != "tensorflow") { // the template says what the project builds for
    out += fmt::format("template: {}\n", project::FrameworkTable::get(adoption.framework).init_template());
  }
  if (!adoption.target_versions.empty()) {
    out += fmt::format("targets:\n  {}: {}\n", adoption.framework, flow(adoption.target_versions));
  }
  if (!adoption.include_dirs.empty() || !adoption.when.empty()) {
    out += "build:\n";
    if (!adoption.include_dirs.empty()) {
      render_list(out, "  ", "include_dirs", adoption.include_dirs);
    }
    out += adoption.when.empty() ? "" : "  when:\n";
    for (const project::SettingsBlock& block : adoption.when) {
      render_settings(out, "    ", block, true, adoption.framework);
    }
  }
  out += "libraries:\n";
  for (const project::LibrarySpec& library : adoption.libraries) {
    out += fmt::format("  - name: {}\n", scalar(library.name));
    if (library.output != "lib" + library.name + ".so") {
      out += fmt::format("    output: {}\n", scalar(library.output));
    }
    if (!library.python_module.empty()) {
      out += fmt::format("    python_module: {} # built per CPython, imported by this name\n",
                         scalar(library.python_module));
    }
    if (!library.versions.empty()) {
      out += fmt::format("    {}: {}\n", adoption.framework, scalar(library.versions.text));
    }
    if (!library.device.empty()) {
      out += fmt::format("    device: {} # GPU kernels only: CPU builds skip it\n", scalar(library.device));
    }
    render_list(out, "    ", "sources", library.settings.front().sources);
    out += library.settings.size() > 1 ? "    when:\n" : "";
    for (size_t i = 1; i < library.settings.size(); ++i) {
      render_settings(out, "      ", library.settings[i], true, adoption.framework);
    }
    // A torch op is declared by its schema: one torch infers from a C++ function is opkit.lock's alone.
    std::vector<const project::OpSpec*> ops;
    for (const project::OpSpec& op : library.ops) {
      if (adoption.framework != "torch" || !op.schema.empty()) {
        ops.push_back(&op);
      }
    }
    out += ops.empty() ? "" : "    ops:\n";
    for (const project::OpSpec* op : ops) {
      render_op(out, *op);
    }
    // A module's own functions (pybind11), each by the schema init read from its C++ function.
    std::string functions;
    for (const project::OpSpec& function : library.functions) {
      if (!function.schema.empty()) {
        render_op(functions, function);
      }
    }
    out += functions.empty() ? "" : "    functions:\n" + functions;
  }
  return out;
}

InitResult
init_project(const stdfs::path& dir, const AdoptOptions& options, bool dry_run)
{
  stdfs::path root = stdfs::absolute(dir).lexically_normal();
  if (root.filename().empty()) {
    root = root.parent_path();
  }
  std::error_code ec;
  if (!stdfs::is_directory(root, ec)) {
    fail(ExitCode::usage, "{}: no such folder", root);
  }
  InitResult result;
  result.manifest = root / "opkit.yaml";
  if (!dry_run && stdfs::exists(stdfs::symlink_status(result.manifest, ec))) {
    fail(ExitCode::usage, "{}: already exists; opkit init never overwrites it", result.manifest);
  }
  result.adoption = plan_adoption(read_tree(root), root.string(), options);
  Adoption written = result.adoption;
  for (project::LibrarySpec& library : written.libraries) {
    if (!options.write_ops) {
      library.ops.clear(); // opkit.lock records the interface; `ops:` (and `functions:`) only when asked (init --ops)
      library.functions.clear();
    }
  }
  result.text = render_manifest(written);
  try {
    project::parse_manifest(result.text, result.manifest.string(), root);
  } catch (const Error& e) {
    fail(ExitCode::system, "internal error: the opkit.yaml written for {} does not parse: {}", root, e.what());
  }
  if (!dry_run) {
    write_new_file(result.manifest, result.text);
  }
  return result;
}

} // namespace opkit::adopt
