#include "opkit/sdk/facts.hpp"

#include "opkit/check/elf_file.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/strings.hpp"

#include <regex>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

std::string
match_group(const std::string& text, const std::string& pattern)
{
  std::smatch match;
  if (std::regex_search(text, match, std::regex(pattern))) {
    return match[1].str();
  }
  return {};
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
apply_abi(Sdk& sdk, const check::ElfInfo& elf, const project::FrameworkFlags& flags)
{
  std::vector<std::string> names;
  for (const check::ElfSymbol& symbol : elf.dynamic_symbols) {
    if (symbol.defined) {
      names.push_back(symbol.name);
    }
  }
  SpellingCounts counts = count_spellings(names);
  sdk.abi_evidence =
    fmt::format("tensorflow:: exports: {} with std::__cxx11 spellings, {} with the old std::string spelling, "
                "{} with std::string_view, {} with absl::string_view",
                counts.cxx11, counts.old_string, counts.std_string_view, counts.absl_string_view);
  std::optional<int> abi = abi_from_counts(counts);
  sdk.cxx11_abi = abi.value_or(flags.cxx11_abi);
  if (!abi) {
    sdk.warnings.push_back(fmt::format("the framework library's symbols do not show its C++11 ABI; using {} "
                                       "from configs/frameworks/tensorflow.yaml",
                                       flags.cxx11_abi));
  } else if (*abi != flags.cxx11_abi) {
    sdk.warnings.push_back(fmt::format("the framework library is built with _GLIBCXX_USE_CXX11_ABI={}, but "
                                       "configs/frameworks/tensorflow.yaml says {} for {}; using {}",
                                       *abi, flags.cxx11_abi, flags.since, *abi));
  }
  sdk.cxx_standard = flags.cxx_standard;
  bool symbols_say_17 = counts.std_string_view > 0 && counts.absl_string_view == 0;
  bool symbols_say_pre17 = counts.absl_string_view > 0 && counts.std_string_view == 0;
  if ((symbols_say_17 && flags.cxx_standard < 17) || (symbols_say_pre17 && flags.cxx_standard >= 17)) {
    sdk.warnings.push_back(fmt::format("the framework library's string_view spelling contradicts C++{} "
                                       "from configs/frameworks/tensorflow.yaml",
                                       flags.cxx_standard));
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
  std::string major = match_group(text, R"(#define\s+TF_MAJOR_VERSION\s+(\d+))");
  std::string minor = match_group(text, R"(#define\s+TF_MINOR_VERSION\s+(\d+))");
  std::string patch = match_group(text, R"(#define\s+TF_PATCH_VERSION\s+(\d+))");
  std::string suffix = match_group(text, R"(#define\s+TF_VERSION_SUFFIX\s+\"([^\"]*)\")");
  if (major.empty() || minor.empty() || patch.empty()) {
    return std::nullopt;
  }
  return project::parse_version(major + "." + minor + "." + patch + suffix);
}

WheelMetadata
parse_metadata(const std::string& text)
{
  return {trim(match_group(text, R"((?:^|\n)Name:\s*([^\r\n]+))")),
          trim(match_group(text, R"((?:^|\n)Version:\s*([^\r\n]+))"))};
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
  auto value = [&](const std::string& key) {
    std::string v = match_group(text, "'" + key + R"('\s*,\s*'?([^')]*)'?\))");
    return v.empty() ? match_group(text, key + R"(\s*=\s*'?([^'\r\n]*)'?)") : v;
  };
  CudaInfo info;
  info.is_cuda_build = trim(value("is_cuda_build")) == "True";
  info.cuda_version = trim(value("cuda_version"));
  info.cudnn_version = trim(value("cudnn_version"));
  return info;
}

SpellingCounts
count_spellings(const std::vector<std::string>& defined_symbols)
{
  // "Ss" is the old-ABI abbreviation of std::string; these are the positions it
  // takes as a parameter type, which an identifier's length prefix cannot fake.
  static const std::regex k_old_string("(R|P|RK|PK|E|I)Ss");
  static const std::regex k_absl_string_view("N4absl(12lts_[0-9]+)?11string_viewE");
  SpellingCounts counts;
  for (const std::string& name : defined_symbols) {
    if (!starts_with(name, "_ZN10tensorflow")) {
      continue;
    }
    if (name.find("St7__cxx11") != std::string::npos || name.find("B5cxx11") != std::string::npos) {
      ++counts.cxx11;
    } else if (std::regex_search(name, k_old_string)) {
      ++counts.old_string;
    }
    if (name.find("St17basic_string_view") != std::string::npos) {
      ++counts.std_string_view;
    }
    if (std::regex_search(name, k_absl_string_view)) {
      ++counts.absl_string_view;
    }
  }
  return counts;
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

Sdk
derive_facts(const stdfs::path& staged_root, const std::string& source)
{
  std::string header = read_if_exists(staged_root / "include/tensorflow/core/public/version.h");
  std::optional<project::Version> version = parse_version_header(header);
  if (!version) {
    fail(ExitCode::usage, "{}: not a TensorFlow SDK: no readable include/tensorflow/core/public/version.h", source);
  }
  Sdk sdk;
  sdk.source = source;
  sdk.version = *version;
  WheelMetadata metadata = parse_metadata(read_if_exists(staged_root / "dist-info/METADATA"));
  sdk.distribution = metadata.name.empty() ? "tensorflow" : metadata.name;
  if (!metadata.version.empty() && metadata.version != version->str()) {
    sdk.warnings.push_back(
      fmt::format("dist-info says version {}, version.h says {}; using version.h", metadata.version, version->str()));
  }
  sdk.wheel_tag = parse_wheel_tags(read_if_exists(staged_root / "dist-info/WHEEL"));
  sdk.cuda = parse_build_info(read_if_exists(staged_root / "build_info.py"));

  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  stdfs::path library = pick_framework_library(staged_root / "lib", flags);
  check::ElfInfo elf = check::read_elf(library);
  sdk.framework_library = library.filename().string();
  sdk.soname = elf.soname.empty() ? sdk.framework_library : elf.soname;
  if (sdk.soname != flags.framework_library) {
    sdk.warnings.push_back(
      fmt::format("framework library SONAME is {}, configs expect {}", sdk.soname, flags.framework_library));
  }
  apply_abi(sdk, elf, flags);
  sdk.id = fmt::format("tensorflow-{}{}", sdk.version.str(), sdk.cuda.is_cuda_build ? "-cuda" : "");
  return sdk;
}

} // namespace opkit::sdk
