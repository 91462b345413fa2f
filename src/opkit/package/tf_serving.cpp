#include "opkit/package/tf_serving.hpp"

#include "opkit/package/package.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

long
bracket_depth_change(const std::string& line)
{
  long depth = 0;
  bool in_string = false;
  for (char c : line) {
    if (c == '"') {
      in_string = !in_string;
    } else if (!in_string && c == '#') {
      break;
    } else if (!in_string && (c == '[' || c == '(')) {
      ++depth;
    } else if (!in_string && (c == ']' || c == ')')) {
      --depth;
    }
  }
  return depth;
}

// The lines [first, last] of the SUPPORTED_TENSORFLOW_OPS assignment.
std::pair<size_t, size_t>
find_assignment(const std::vector<std::string>& lines, const std::string& name)
{
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!starts_with(lines[i], "SUPPORTED_TENSORFLOW_OPS =")) {
      continue;
    }
    long depth = 0;
    for (size_t j = i; j < lines.size(); ++j) {
      depth += bracket_depth_change(lines[j]);
      std::string text = trim(lines[j]);
      if (depth == 0 && !ends_with(text, "+") && !ends_with(text, "=")) {
        return {i, j};
      }
    }
    break;
  }
  fail(ExitCode::usage, "{}: no complete SUPPORTED_TENSORFLOW_OPS = [...] assignment found", name);
}

// The sources a CPU build compiles, of every library (TF Serving links them into one static library).
std::vector<std::string>
cpu_sources(const project::Manifest& manifest)
{
  std::vector<std::string> sources;
  for (const project::LibrarySpec& library : manifest.libraries) {
    for (const project::SettingsBlock& block : library.settings) {
      if (block.when.device == "gpu") {
        continue;
      }
      for (const std::string& source : block.sources) {
        if (!project::is_header(source) && std::find(sources.begin(), sources.end(), source) == sources.end()) {
          sources.push_back(source);
        }
      }
    }
  }
  return sources;
}

// (source, relative path) of every file of the op: its sources and the headers beside them.
std::vector<std::string>
headers_near(const project::Manifest& manifest)
{
  std::vector<std::string> headers;
  for (const std::string& source : cpu_sources(manifest)) {
    stdfs::path dir = (manifest.root / source).parent_path();
    for (const auto& entry : stdfs::directory_iterator(dir)) {
      std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".h" || ext == ".hpp")) {
        headers.push_back(entry.path().lexically_relative(manifest.root).generic_string());
      }
    }
  }
  std::sort(headers.begin(), headers.end());
  headers.erase(std::unique(headers.begin(), headers.end()), headers.end());
  return headers;
}

std::string
quoted_list(const std::vector<std::string>& items)
{
  std::string text;
  for (const std::string& item : items) {
    text += "        \"" + item + "\",\n";
  }
  return text;
}

std::vector<ArchiveMember>
bundle_members(const project::Manifest& manifest)
{
  std::vector<std::string> sources = cpu_sources(manifest);
  std::sort(sources.begin(), sources.end());
  std::vector<std::string> headers = headers_near(manifest);
  std::vector<ArchiveMember> members;
  members.reserve(sources.size() + headers.size() + 2);
  for (const std::string& file : sources) {
    members.push_back({file, manifest.root / file, {}, false});
  }
  for (const std::string& file : headers) {
    members.push_back({file, manifest.root / file, {}, false});
  }
  members.push_back({"BUILD", {}, bundle_build_file(manifest, sources, headers), false});
  Json manifest_json = make_manifest("tf-serving", manifest.name, members, {});
  members.push_back({k_manifest_name, {}, json_text(manifest_json, 2) + "\n", false});
  return members;
}

bool
folder_matches(const stdfs::path& dir, const std::vector<ArchiveMember>& members)
{
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec)) {
    return false;
  }
  size_t files = 0;
  for (auto it = stdfs::recursive_directory_iterator(dir, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    files += it->is_regular_file() ? 1 : 0;
  }
  if (files != members.size()) {
    return false;
  }
  return std::all_of(members.begin(), members.end(), [&](const ArchiveMember& m) {
    std::string want = m.source.empty() ? m.content : fs::read_file(m.source);
    return stdfs::is_regular_file(dir / m.path, ec) && fs::read_file(dir / m.path) == want;
  });
}

// Writes the bundle to `dir` unless it is already exactly there. Returns whether it wrote.
bool
write_bundle(const stdfs::path& dir, const std::vector<ArchiveMember>& members)
{
  if (folder_matches(dir, members)) {
    return false;
  }
  fs::StagingDir staging(dir.parent_path());
  staging.fill(dir.string() + "/", [&] {
    for (const ArchiveMember& member : members) {
      fs::create_dirs((staging.path() / member.path).parent_path());
      fs::write_file_atomic(staging.path() / member.path,
                            member.source.empty() ? member.content : fs::read_file(member.source));
    }
  });
  staging.commit(dir, /*replace=*/true);
  return true;
}

void
apply_to_checkout(const TfServingOptions& options, const std::string& name, const std::vector<ArchiveMember>& members,
                  const stdfs::path& out_dir, TfServingResult& result)
{
  stdfs::path build = options.serving_dir / "tensorflow_serving" / "model_servers" / "BUILD";
  std::error_code ec;
  if (!stdfs::is_regular_file(build, ec)) {
    fail(ExitCode::usage, "{}: not a tensorflow/serving checkout (no tensorflow_serving/model_servers/BUILD)",
         options.serving_dir);
  }
  std::string before = fs::read_file(build);
  std::optional<std::string> after = add_supported_op(before, result.label, build.string());
  result.patch_file = out_dir / "model_servers_BUILD.patch";
  if (!options.dry_run) {
    fs::write_file_atomic(result.patch_file,
                          after ? unified_diff(before, *after, "tensorflow_serving/model_servers/BUILD") : "");
  }
  if (options.patch_only) {
    return;
  }
  result.serving_bundle = options.serving_dir / "tensorflow_serving" / "custom_ops" / name;
  result.build_changed = after.has_value();
  if (options.dry_run) {
    result.bundle_changed = !folder_matches(result.serving_bundle, members);
    return;
  }
  result.bundle_changed = write_bundle(result.serving_bundle, members);
  if (after) {
    fs::write_file_atomic(build, *after);
  }
}

} // namespace

std::string
bundle_build_file(const project::Manifest& manifest, const std::vector<std::string>& sources,
                  const std::vector<std::string>& headers)
{
  std::string text =
    fmt::format("# Generated by opkit package tf-serving: the {} op ({}) for TensorFlow Serving.\n"
                "# It lives in tensorflow_serving/custom_ops/{}/ and is listed in SUPPORTED_TENSORFLOW_OPS\n"
                "# in tensorflow_serving/model_servers/BUILD, so the model server links it statically.\n\n"
                "package(default_visibility = [\"//visibility:public\"])\n\n"
                "cc_library(\n"
                "    name = \"{}_ops\",\n"
                "    srcs = [\n{}    ],\n",
                manifest.primary_op().name, manifest.name, manifest.name, manifest.name, quoted_list(sources));
  if (!headers.empty()) {
    text += "    hdrs = [\n" + quoted_list(headers) + "    ],\n";
  }
  text += "    # Op and kernel registrations are static initializers nothing references:\n"
          "    # without alwayslink the linker would drop them.\n"
          "    alwayslink = 1,\n"
          "    deps = [\n"
          "        \"@org_tensorflow//tensorflow/core:framework\",\n"
          "    ],\n"
          ")\n";
  return text;
}

std::optional<std::string>
add_supported_op(const std::string& build_text, const std::string& label, const std::string& name)
{
  std::vector<std::string> lines = split(build_text, '\n');
  auto [first, last] = find_assignment(lines, name);
  for (size_t i = first; i <= last; ++i) {
    if (lines[i].find("\"" + label + "\"") != std::string::npos) {
      return std::nullopt;
    }
  }
  size_t close = lines[last].rfind(']');
  if (close == std::string::npos) {
    fail(ExitCode::usage, "{}:{}: SUPPORTED_TENSORFLOW_OPS does not end with a list", name, last + 1);
  }
  if (trim(lines[last]) != "]") {
    // The list closes on a line with items: add ours just before the bracket.
    std::string head = lines[last].substr(0, close);
    std::string sep = trim(head).empty() || ends_with(trim(head), "[") || ends_with(trim(head), ",") ? "" : ", ";
    lines[last] = head + sep + "\"" + label + "\"" + lines[last].substr(close);
  } else {
    // Items one per line: match the previous item's indent, and make sure it ends with a comma.
    size_t prev = last;
    while (prev > first && (trim(lines[prev - 1]).empty() || starts_with(trim(lines[prev - 1]), "#"))) {
      --prev;
    }
    std::string indent = "    ";
    if (prev > first) {
      std::string& item = lines[prev - 1];
      indent = item.substr(0, item.find_first_not_of(' '));
      std::string body = trim(item);
      if (!ends_with(body, ",") && !ends_with(body, "[")) {
        item = item.substr(0, item.find_last_not_of(" \t") + 1) + ",";
      }
    }
    lines.insert(lines.begin() + static_cast<long>(last), indent + "\"" + label + "\",");
  }
  return join(lines, "\n");
}

std::string
unified_diff(const std::string& before, const std::string& after, const std::string& path)
{
  // A final newline ends the last line; it does not start an empty one.
  auto lines_of = [](const std::string& text) {
    std::vector<std::string> lines = split(text, '\n');
    if (!lines.empty() && lines.back().empty()) {
      lines.pop_back();
    }
    return lines;
  };
  std::vector<std::string> a = lines_of(before);
  std::vector<std::string> b = lines_of(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
    ++prefix;
  }
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix
         && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const size_t context = 3;
  size_t start = prefix > context ? prefix - context : 0;
  size_t end_a = std::min(a.size(), a.size() - suffix + context);
  size_t end_b = std::min(b.size(), b.size() - suffix + context);
  std::string text = fmt::format("--- a/{}\n+++ b/{}\n@@ -{},{} +{},{} @@\n", path, path, start + 1, end_a - start,
                                 start + 1, end_b - start);
  for (size_t i = start; i < prefix; ++i) {
    text += " " + a[i] + "\n";
  }
  for (size_t i = prefix; i < a.size() - suffix; ++i) {
    text += "-" + a[i] + "\n";
  }
  for (size_t i = prefix; i < b.size() - suffix; ++i) {
    text += "+" + b[i] + "\n";
  }
  for (size_t i = a.size() - suffix; i < end_a; ++i) {
    text += " " + a[i] + "\n";
  }
  return text;
}

TfServingResult
package_tf_serving(const project::Manifest& manifest, const TfServingOptions& options)
{
  TfServingResult result;
  result.label = "//tensorflow_serving/custom_ops/" + manifest.name + ":" + manifest.name + "_ops";
  std::vector<ArchiveMember> members = bundle_members(manifest);
  stdfs::path out_dir = output_folder(manifest, options.output_dir, "tf-serving");
  result.bundle_dir = out_dir / manifest.name;
  if (options.dry_run) {
    result.planned = packed_files(members);
  } else {
    fs::create_dirs(out_dir);
    write_bundle(result.bundle_dir, members);
  }
  if (!options.serving_dir.empty()) {
    apply_to_checkout(options, manifest.name, members, out_dir, result);
  }
  result.written = !options.dry_run;
  return result;
}

} // namespace opkit::package
