#include "opkit/package/easyrec_protos.hpp"

#include "opkit/project/package_rules.hpp"
#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstdlib>
#include <regex>

namespace opkit::package {

namespace stdfs = std::filesystem;
using project::Version;

namespace {

const char* k_protos_dir = "easy_rec/python/protos";

// A protoc to try, and where it was named.
struct Protoc
{
  stdfs::path path;
  std::string from; // "--protoc", "$OPKIT_PROTOC", "PATH"
};

std::optional<Protoc>
find_protoc(const stdfs::path& option)
{
  if (!option.empty()) {
    return Protoc{option, "--protoc"};
  }
  if (settings::Value set = settings::current().resolve("protoc"); set.is_set()) {
    return Protoc{set.value, set.source == settings::Source::environment ? "$" + set.variable : set.origin()};
  }
  stdfs::path found = find_program("protoc");
  if (found.empty()) {
    return std::nullopt;
  }
  return Protoc{found, "PATH"};
}

// The stems of easy_rec/python/protos/*.proto, sorted.
std::vector<std::string>
proto_stems(const stdfs::path& protos)
{
  std::vector<std::string> stems;
  std::error_code ec;
  for (auto it = stdfs::directory_iterator(protos, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".proto" && it->is_regular_file(ec)) {
      stems.push_back(it->path().stem().string());
    }
  }
  std::sort(stems.begin(), stems.end());
  return stems;
}

[[noreturn]] void
fail_protoc(const std::string& message, const ProtocBound& bound)
{
  throw Error(ExitCode::missing,
              fmt::format("{}; a protoc from {} to {} is needed (TensorFlow {} requires protobuf>={})", message,
                          project::easyrec_rules().protoc_min.str(), bound.max.str(), bound.tf, bound.max.str()),
              "get one: " + project::easyrec_rules().protoc_install);
}

} // namespace

std::optional<Version>
parse_protoc_version(std::string_view output)
{
  static const std::regex k_line("^libprotoc ([0-9]+(\\.[0-9]+){1,2})\\s*$");
  std::string text = trim(output);
  std::smatch match;
  if (text.size() > 64 || !std::regex_match(text, match, k_line)) { // bounded before std::regex
    return std::nullopt;
  }
  std::optional<Version> version = project::parse_version(match.str(1));
  if (version && version->parts.at(0) >= 4) { // the new numbering: 22.0 is 3.22.0
    version->parts.insert(version->parts.begin(), 3);
  }
  while (version && version->parts.size() < 3) {
    version->parts.push_back(0);
  }
  return version;
}

ProtocBound
protoc_bound(const std::vector<Version>& tf_versions)
{
  ProtocBound bound{project::easyrec_rules().protobuf.back().min, ""};
  for (const Version& tf : tf_versions) {
    Version min = project::easyrec_protobuf_min(project::easyrec_rules(), tf);
    if (bound.tf.empty() || min < bound.max) {
      bound = {min, tf.str()};
    }
  }
  return bound;
}

bool
protoc_fits(const Version& protoc, const ProtocBound& bound)
{
  return !(protoc < project::easyrec_rules().protoc_min) && !(bound.max < protoc);
}

ProtoFiles
easyrec_proto_files(const stdfs::path& easyrec_dir, const std::vector<Version>& tf_versions,
                    const stdfs::path& protoc_option)
{
  ProtoFiles result;
  stdfs::path protos = easyrec_dir / k_protos_dir;
  std::vector<std::string> stems = proto_stems(protos);
  if (stems.empty()) {
    result.note = fmt::format("no {}/*.proto in the EasyRec checkout: no *_pb2.py to generate", k_protos_dir);
    return result;
  }
  std::error_code ec;
  size_t present = std::count_if(stems.begin(), stems.end(), [&](const std::string& stem) {
    return stdfs::is_regular_file(protos / (stem + "_pb2.py"), ec);
  });
  if (present == stems.size()) {
    result.note = fmt::format("packed the checkout's {} {}/*_pb2.py as they are (generated before, e.g. by "
                              "scripts/gen_proto.sh); delete them to have opkit generate them",
                              present, k_protos_dir);
    return result;
  }

  ProtocBound bound = protoc_bound(tf_versions);
  std::string subject =
    fmt::format("{}: {} of {} *.proto have no *_pb2.py", protos.string(), stems.size() - present, stems.size());
  std::optional<Protoc> protoc = find_protoc(protoc_option);
  if (!protoc) {
    fail_protoc(subject + " and no protoc was found (--protoc, $OPKIT_PROTOC, PATH)", bound);
  }
  if (!stdfs::is_regular_file(protoc->path, ec)) {
    fail_protoc(fmt::format("{} and protoc {} (from {}) does not exist", subject, protoc->path, protoc->from), bound);
  }
  ProcessResult probe = run_process({protoc->path.string(), "--version"});
  std::optional<Version> version = probe.exit_code == 0 ? parse_protoc_version(probe.out) : std::nullopt;
  if (!version) {
    fail_protoc(fmt::format("{} and {} (from {}) --version printed '{}', not 'libprotoc X.Y.Z'", subject, protoc->path,
                            protoc->from, trim(probe.out + probe.err)),
                bound);
  }
  if (!protoc_fits(*version, bound)) {
    bool too_old = *version < bound.max;
    fail_protoc(fmt::format("{} and protoc {} ({}, from {}) is {} than {}", subject, version->str(), protoc->path,
                            protoc->from, too_old ? "older" : "newer",
                            too_old ? project::easyrec_rules().protoc_min.str() : bound.max.str()),
                bound);
  }

  fs::TempDir out("opkit-protos");
  std::vector<std::string> argv = {protoc->path.string(), "--proto_path=.", "--python_out=" + out.path().string()};
  for (const std::string& stem : stems) {
    argv.push_back(std::string(k_protos_dir) + "/" + stem + ".proto");
  }
  ProcessOptions options;
  options.cwd = easyrec_dir;
  ProcessResult run = run_process(argv, options);
  if (run.exit_code != 0) {
    std::vector<std::string> lines = split(trim(run.err + run.out), '\n');
    fail(ExitCode::usage, "{}: protoc {} failed (exit {}): {}", protos, version->str(), run.exit_code,
         lines.empty() ? "no output" : lines.front());
  }
  for (const std::string& stem : stems) {
    std::string path = std::string(k_protos_dir) + "/" + stem + "_pb2.py";
    if (!stdfs::is_regular_file(out.path() / path, ec)) {
      fail(ExitCode::system, "{}: protoc {} exited 0 but wrote no {}", protoc->path, version->str(), path);
    }
    result.members.push_back({path, {}, fs::read_file(out.path() / path), false});
  }
  result.note = fmt::format("generated {} {}/*_pb2.py with protoc {} ({}, from {}; at most {}: TensorFlow {} "
                            "requires protobuf>={})",
                            stems.size(), k_protos_dir, version->str(), protoc->path, protoc->from, bound.max.str(),
                            bound.tf, bound.max.str());
  return result;
}

} // namespace opkit::package
