#include "opkit/sdk/facts.hpp"

#include "opkit/elf/elf_file.hpp"
#include "opkit/elf/mangled.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

bool
is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// The text after `#define NAME` on its line (spaces trimmed), or nullopt. A
// hand-written scan, linear in the text: version.h comes from an untrusted wheel.
std::optional<std::string>
define_value(std::string_view text, std::string_view name)
{
  for (const std::string& raw : split(text, '\n')) {
    std::string_view line = raw;
    size_t i = 0;
    auto skip_spaces = [&] {
      while (i < line.size() && is_space(line[i])) {
        ++i;
      }
    };
    skip_spaces();
    if (i >= line.size() || line[i] != '#') {
      continue;
    }
    ++i;
    skip_spaces();
    if (line.substr(i, 6) != "define") {
      continue;
    }
    i += 6;
    size_t before_name = i;
    skip_spaces();
    if (i == before_name || line.substr(i, name.size()) != name) {
      continue;
    }
    i += name.size();
    if (i < line.size() && !is_space(line[i])) {
      continue; // a longer name
    }
    return trim(std::string(line.substr(i)));
  }
  return std::nullopt;
}

// A line's "Key: value" value (trimmed) among the header lines of an email-style
// file (METADATA): those before the first empty line.
std::string
header_value(std::string_view text, std::string_view key)
{
  for (const std::string& line : split(text, '\n')) {
    std::string_view view = line;
    if (trim(line).empty()) {
      break;
    }
    if (view.size() > key.size() && view.substr(0, key.size()) == key && view[key.size()] == ':') {
      return trim(std::string(view.substr(key.size() + 1)));
    }
  }
  return {};
}

// The position after `separator` with the spaces around it, from `i`; npos
// when the next character that is not a space is something else.
size_t
after_separator(std::string_view text, size_t i, char separator)
{
  while (i < text.size() && is_space(text[i])) {
    ++i;
  }
  if (i >= text.size() || text[i] != separator) {
    return std::string_view::npos;
  }
  ++i;
  while (i < text.size() && is_space(text[i])) {
    ++i;
  }
  return i;
}

// build_info.py's value for `key`, written either as `('key', 'value')` in an
// OrderedDict (TF 2.x) or as `key = 'value'` (TF 1.x); "" when absent.
std::string
build_info_value(std::string_view text, std::string_view key)
{
  std::string quoted = "'" + std::string(key) + "'";
  for (size_t at = text.find(quoted); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    size_t i = after_separator(text, at + quoted.size(), ',');
    if (i == std::string_view::npos) {
      continue;
    }
    bool open_quote = i < text.size() && text[i] == '\'';
    i += open_quote ? 1 : 0;
    size_t end = text.find_first_of("')", i);
    if (end == std::string_view::npos) {
      continue;
    }
    size_t close = end + (text[end] == '\'' ? 1 : 0);
    if (close < text.size() && text[close] == ')') {
      return std::string(text.substr(i, end - i));
    }
  }
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    size_t i = after_separator(text, at + key.size(), '=');
    if (i == std::string_view::npos) {
      continue;
    }
    i += i < text.size() && text[i] == '\'' ? 1 : 0;
    size_t end = text.find_first_of("'\r\n", i);
    return std::string(text.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
  }
  return {};
}

// A value read from a wheel that opkit records (sdk.json) and prints: short
// and printable, else the wheel is refused.
void
require_plain(const std::string& value, const char* what, size_t limit)
{
  bool plain = value.size() <= limit && std::all_of(value.begin(), value.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(".-_+ ", c) != nullptr;
               });
  if (!plain) {
    fail(ExitCode::usage, "{} '{}': not a plausible value (at most {} letters, digits and . - _ +)", what,
         escape_clipped(value, 64), limit);
  }
}

stdfs::path
pick_framework_library(const stdfs::path& lib_dir, const project::FrameworkFlags& flags)
{
  std::vector<stdfs::path> found;
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(lib_dir, ec)) {
    found.push_back(entry.path());
  }
  if (found.empty()) {
    fail(ExitCode::usage, "no libtensorflow_framework.so* found");
  }
  for (const stdfs::path& path : found) {
    if (path.filename() == flags.framework_library) {
      return path;
    }
  }
  return found.front();
}

void
apply_abi(Sdk& sdk, const elf::ElfInfo& elf, const project::FrameworkFlags& flags)
{
  std::vector<std::string> names;
  for (const elf::ElfSymbol& symbol : elf.dynamic_symbols) {
    if (symbol.defined) {
      names.push_back(symbol.name);
    }
  }
  SpellingCounts counts = count_spellings(names);
  sdk.abi_evidence =
    fmt::format("tensorflow:: exports: {} with std::__cxx11 spellings, {} with the old std::string spelling, "
                "{} with std::string_view, {} with absl::string_view",
                counts.cxx11, counts.old_string, counts.std_string_view, counts.absl_string_view);
  decide_abi(sdk, counts, flags, "the framework library's symbols do not show its C++11 ABI",
             "the framework library is");
  // TensorFlow's wheel holds its standard only compiled into pywrap_tf_session
  // (sysconfig.py's _CXX_VERSION): the table says it, the exports cross-check it.
  decide_standard(sdk, flags, std::nullopt, "");
  bool symbols_say_17 = counts.std_string_view > 0 && counts.absl_string_view == 0;
  bool symbols_say_pre17 = counts.absl_string_view > 0 && counts.std_string_view == 0;
  if ((symbols_say_17 && sdk.cxx_standard < 17) || (symbols_say_pre17 && sdk.cxx_standard >= 17)) {
    sdk.warnings.push_back(fmt::format("the framework library's string_view spelling contradicts C++{} from {}",
                                       sdk.cxx_standard, sdk.origins["cxx_standard"]));
  }
}

std::string
read_if_exists(const stdfs::path& path)
{
  std::error_code ec;
  return stdfs::is_regular_file(path, ec) ? fs::read_file(path) : std::string();
}

} // namespace

std::optional<project::Version>
parse_version_header(const std::string& text)
{
  auto number = [&](const char* name) -> std::string {
    std::string value = define_value(text, name).value_or("");
    bool digits = !value.empty() && value.size() <= 6 && std::all_of(value.begin(), value.end(), is_ascii_digit);
    return digits ? value : std::string();
  };
  std::string major = number("TF_MAJOR_VERSION");
  std::string minor = number("TF_MINOR_VERSION");
  std::string patch = number("TF_PATCH_VERSION");
  if (major.empty() || minor.empty() || patch.empty()) {
    return std::nullopt;
  }
  std::string suffix;
  if (std::optional<std::string> quoted = define_value(text, "TF_VERSION_SUFFIX")) {
    if (quoted->size() < 2 || quoted->front() != '"' || quoted->find('"', 1) == std::string::npos) {
      return std::nullopt;
    }
    suffix = quoted->substr(1, quoted->find('"', 1) - 1);
  }
  // parse_version refuses a suffix that is not a plain pre-release tag ("-rc0").
  return project::parse_version(major + "." + minor + "." + patch + suffix);
}

WheelMetadata
parse_metadata(const std::string& text)
{
  WheelMetadata metadata{header_value(text, "Name"), header_value(text, "Version")};
  require_plain(metadata.name, "dist-info/METADATA: Name", 128);
  require_plain(metadata.version, "dist-info/METADATA: Version", 64);
  return metadata;
}

std::string
pinned_version(const std::string& metadata, const std::string& distribution, const std::string& extra)
{
  const std::string_view key = "Requires-Dist:";
  for (const std::string& line : split(metadata, '\n')) {
    if (trim(line).empty()) {
      break; // the body (the long description) follows the headers
    }
    if (!starts_with(line, key)) {
      continue;
    }
    std::string requirement = trim(std::string_view(line).substr(key.size()));
    if (!starts_with(requirement, distribution)) {
      continue;
    }
    std::string rest = trim(std::string_view(requirement).substr(distribution.size()));
    if (!extra.empty()) { // "cuda-toolkit[cublas,cudart,...]==13.2.2": the extras must name it
      size_t close = rest.find(']');
      if (!starts_with(rest, "[") || close == std::string::npos) {
        continue;
      }
      std::vector<std::string> extras = split(rest.substr(1, close - 1), ',');
      if (std::none_of(extras.begin(), extras.end(), [&extra](const std::string& e) { return trim(e) == extra; })) {
        continue;
      }
      rest = trim(std::string_view(rest).substr(close + 1));
    }
    if (starts_with(rest, "(")) {
      rest = trim(std::string_view(rest).substr(1));
    }
    if (!starts_with(rest, "==")) {
      continue; // another distribution whose name starts the same, or no exact pin
    }
    rest = rest.substr(2);
    std::string version = rest.substr(0, rest.find_first_of(" );,\t"));
    return !version.empty()
               && std::all_of(
                 version.begin(), version.end(),
                 [](char c) { return is_ascii_digit(c) || c == '.' || (c >= 'a' && c <= 'z') || c == '+'; })
             ? version
             : std::string();
  }
  return {};
}

std::string
parse_wheel_tags(const std::string& text)
{
  std::vector<std::string> tags;
  for (const std::string& line : split(text, '\n')) {
    if (starts_with(line, "Tag:")) {
      tags.push_back(trim(line.substr(4)));
    }
  }
  return join(tags, ".");
}

CudaInfo
parse_build_info(const std::string& text)
{
  CudaInfo info;
  info.is_cuda_build = trim(build_info_value(text, "is_cuda_build")) == "True";
  info.cuda_version = trim(build_info_value(text, "cuda_version"));
  info.cudnn_version = trim(build_info_value(text, "cudnn_version"));
  require_plain(info.cuda_version, "build_info.py: cuda_version", 32);
  require_plain(info.cudnn_version, "build_info.py: cudnn_version", 32);
  return info;
}

SpellingCounts
count_spellings(const std::vector<std::string>& defined_symbols)
{
  SpellingCounts counts;
  for (const std::string& name : defined_symbols) {
    if (!starts_with(name, "_ZN10tensorflow")) {
      continue;
    }
    if (name.find("St7__cxx11") != std::string::npos || name.find("B5cxx11") != std::string::npos) {
      ++counts.cxx11;
    } else if (elf::has_old_std_string(name)) {
      ++counts.old_string;
    }
    if (name.find("St17basic_string_view") != std::string::npos) {
      ++counts.std_string_view;
    }
    if (elf::has_absl_string_view(name)) {
      ++counts.absl_string_view;
    }
  }
  return counts;
}

void
decide_abi(Sdk& sdk, const SpellingCounts& counts, const project::FrameworkFlags& flags, const std::string& unread,
           const std::string& built)
{
  std::optional<int> abi = abi_from_counts(counts);
  sdk.cxx11_abi = abi.value_or(flags.cxx11_abi);
  sdk.origins["cxx11_abi"] =
    abi ? fmt::format("the wheel's exports ({})", sdk.abi_evidence) : table_origin(sdk.framework, flags);
  std::string table = "configs/frameworks/" + sdk.framework + ".yaml";
  if (!abi) {
    sdk.warnings.push_back(fmt::format("{}; using {} from {}", unread, flags.cxx11_abi, table));
  } else if (*abi != flags.cxx11_abi) {
    sdk.warnings.push_back(fmt::format("{} built with _GLIBCXX_USE_CXX11_ABI={}, but {} says {} for {}; using {}",
                                       built, *abi, table, flags.cxx11_abi, flags.since, *abi));
  }
}

std::optional<int>
abi_from_counts(const SpellingCounts& counts)
{
  if (counts.cxx11 > 0 && counts.old_string == 0) {
    return 1;
  }
  if (counts.old_string > 0 && counts.cxx11 == 0) {
    return 0;
  }
  return std::nullopt;
}

void
decide_standard(Sdk& sdk, const project::FrameworkFlags& flags, std::optional<int> derived, const std::string& origin)
{
  if (flags.cxx_standard_override) {
    sdk.cxx_standard = *flags.cxx_standard_override;
    sdk.origins["cxx_standard"] =
      fmt::format("the table's override (configs/frameworks/{}.yaml), range >={}", sdk.framework, flags.since);
    if (derived && *derived != sdk.cxx_standard) {
      sdk.warnings.push_back(
        fmt::format("{} says C++{}; the table's override C++{} wins", origin, *derived, sdk.cxx_standard));
    }
  } else if (derived) {
    sdk.cxx_standard = *derived;
    sdk.origins["cxx_standard"] = origin;
  } else {
    sdk.cxx_standard = flags.cxx_standard;
    sdk.origins["cxx_standard"] = table_origin(sdk.framework, flags);
  }
}

void
apply_python(Sdk& sdk, const std::string& metadata)
{
  std::string requires_python = header_value(metadata, "Requires-Python");
  bool plain = requires_python.size() <= 64 && std::all_of(requires_python.begin(), requires_python.end(), [](char c) {
                 return is_ascii_digit(c) || std::strchr(".<>=!~,* ", c) != nullptr;
               });
  if (!plain) {
    fail(ExitCode::usage,
         "dist-info/METADATA: Requires-Python '{}': not a plausible specifier (at most 64 digits "
         "and . < > = ! ~ , *)",
         escape_clipped(requires_python, 64));
  }
  sdk.requires_python = requires_python;
  if (!requires_python.empty()) {
    sdk.origins["python"] = "the wheel's dist-info/METADATA (Requires-Python)";
  }
}

std::string
table_origin(const std::string& framework, const project::FrameworkFlags& flags)
{
  return fmt::format("the table (configs/frameworks/{}.yaml), range >={}", framework, flags.since);
}

std::vector<std::string>
release_version_defines(const std::string& release_version_h, const project::Version& version)
{
  if (release_version_h.find("#ifndef TF_MAJOR_VERSION") == std::string::npos
      || define_value(release_version_h, "TF_MAJOR_VERSION")) {
    return {};
  }
  std::vector<std::string> numbers(3, "0");
  for (size_t i = 0; i < 3 && i < version.parts.size(); ++i) {
    numbers[i] = std::to_string(version.parts[i]);
  }
  return {"TF_MAJOR_VERSION=" + numbers[0], "TF_MINOR_VERSION=" + numbers[1], "TF_PATCH_VERSION=" + numbers[2],
          "TF_VERSION_SUFFIX=\"" + version.suffix + "\""};
}

std::pair<project::Version, std::string>
tensorflow_version(const stdfs::path& staged_root, const std::string& source, const WheelMetadata& metadata)
{
  const std::string headers = "include/tensorflow/core/public/";
  std::error_code ec;
  if (!stdfs::is_regular_file(staged_root / (headers + "version.h"), ec)) {
    fail(ExitCode::usage, "{}: not a TensorFlow SDK: no readable {}version.h", source, headers);
  }
  for (const char* name : {"version.h", "release_version.h"}) {
    std::string header = read_if_exists(staged_root / (headers + name));
    if (std::optional<project::Version> version = parse_version_header(header)) {
      return {*version, fmt::format("the wheel's {}{}", headers, name)};
    }
    if (define_value(header, "TF_MAJOR_VERSION") && define_value(header, "TF_VERSION_SUFFIX")) {
      fail(ExitCode::usage,
           "{}: {}{}: its defines make no plain version (numbers of at most 6 digits; TF_VERSION_SUFFIX a quoted "
           "tag of at most 32 letters, digits and . _ + -); refusing the wheel",
           source, headers, name);
    }
  }
  std::optional<project::Version> version =
    metadata.version.empty() ? std::nullopt : project::parse_version(metadata.version);
  if (!version) {
    fail(ExitCode::usage,
         "{}: not a TensorFlow SDK: no version in {}version.h, {}release_version.h or dist-info/METADATA{}", source,
         headers, headers,
         metadata.version.empty() ? "" : fmt::format(" (its '{}' is no plain version)", metadata.version));
  }
  return {*version, "the wheel's dist-info/METADATA (its headers define no version numbers)"};
}

Sdk
derive_facts(const stdfs::path& staged_root, const std::string& source)
{
  // The files' own errors name the file; the wheel is named before them.
  auto from_source = [&source](const auto& parse) {
    try {
      return parse();
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", source, e.what()), e.hint());
    }
  };
  std::string metadata_text = read_if_exists(staged_root / "dist-info/METADATA");
  WheelMetadata metadata = from_source([&] { return parse_metadata(metadata_text); });
  auto [version, version_origin] = tensorflow_version(staged_root, source, metadata);
  Sdk sdk;
  sdk.source = source;
  sdk.version = version;
  sdk.origins["version"] = version_origin;
  sdk.defines =
    release_version_defines(read_if_exists(staged_root / "include/tensorflow/core/public/release_version.h"), version);
  if (!sdk.defines.empty()) {
    sdk.origins["defines"] = "the wheel's include/tensorflow/core/public/release_version.h (#error without them)";
  }
  sdk.distribution = metadata.name.empty() ? "tensorflow" : metadata.name;
  if (!metadata.version.empty() && metadata.version != version.str()) {
    sdk.warnings.push_back(
      fmt::format("dist-info says version {}, version.h says {}; using version.h", metadata.version, version.str()));
  }
  sdk.wheel_tag = parse_wheel_tags(read_if_exists(staged_root / "dist-info/WHEEL"));
  if (!sdk.wheel_tag.empty()) {
    sdk.origins["platform"] = "the wheel's dist-info/WHEEL";
  }
  from_source([&] { apply_python(sdk, metadata_text); });
  sdk.cuda = from_source([&] { return parse_build_info(read_if_exists(staged_root / "build_info.py")); });

  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  stdfs::path library = pick_framework_library(staged_root / "lib", flags);
  elf::ElfInfo elf = elf::read_elf(library);
  sdk.framework_library = library.filename().string();
  sdk.soname = elf.soname.empty() ? sdk.framework_library : elf.soname;
  sdk.origins["framework_library"] = fmt::format("the wheel's {}", sdk.framework_library);
  if (sdk.soname != flags.framework_library) {
    sdk.warnings.push_back(
      fmt::format("framework library SONAME is {}, configs expect {}", sdk.soname, flags.framework_library));
  }
  apply_abi(sdk, elf, flags);
  sdk.id = fmt::format("tensorflow-{}{}", sdk.version.str(), sdk.cuda.is_cuda_build ? "-cuda" : "");
  return sdk;
}

} // namespace opkit::sdk
