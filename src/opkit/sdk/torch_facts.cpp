#include "opkit/sdk/torch_facts.hpp"

#include "opkit/elf/elf_file.hpp"
#include "opkit/elf/mangled.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/index.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace opkit::sdk {

namespace {

bool
is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

size_t
skip_blanks(std::string_view line, size_t i)
{
  while (i < line.size() && is_blank(line[i])) {
    ++i;
  }
  return i;
}

bool
is_identifier_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The value of `name = value` on one line, when the line assigns `name` at
// the top level (no indent); an annotation (`: Optional[str]`) may come
// between. Nothing for another line or a value that is neither a plain quoted
// string nor None.
std::optional<std::string>
assignment_on_line(std::string_view line, std::string_view name)
{
  if (line.substr(0, name.size()) != name || (line.size() > name.size() && is_identifier_char(line[name.size()]))) {
    return std::nullopt;
  }
  size_t i = skip_blanks(line, name.size());
  if (i < line.size() && line[i] == ':') {
    size_t equals = line.find('=', i);
    if (equals == std::string_view::npos) {
      return std::nullopt;
    }
    i = equals;
  }
  if (i >= line.size() || line[i] != '=' || (i + 1 < line.size() && line[i + 1] == '=')) {
    return std::nullopt;
  }
  i = skip_blanks(line, i + 1);
  if (line.substr(i, 4) == "None") {
    return std::string();
  }
  if (i >= line.size() || (line[i] != '\'' && line[i] != '"')) {
    return std::nullopt;
  }
  size_t close = line.find(line[i], i + 1);
  if (close == std::string_view::npos) {
    return std::nullopt;
  }
  return std::string(line.substr(i + 1, close - i - 1));
}

// A value opkit records (sdk.json) and prints: short and plain, else the file is refused.
void
require_plain_value(const std::string& value, const char* what)
{
  constexpr size_t limit = 64;
  bool plain = value.size() <= limit && std::all_of(value.begin(), value.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(".-_+", c) != nullptr;
               });
  if (!plain) {
    fail(ExitCode::usage, "torch/version.py: {} '{}': not a plausible value (at most {} letters, digits and . - _ +)",
         what, escape_clipped(value, limit), limit);
  }
}

std::string
read_staged_file(const std::filesystem::path& path)
{
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? fs::read_file(path) : std::string();
}

// "torch/utils/cpp_extension.py": where in the wheel the fact file kept as facts/<name> is.
std::string
fact_file_path(const project::SdkLayout& layout, const std::string& name)
{
  for (const std::string& fact : layout.fact_files) {
    if (std::filesystem::path(fact).filename() == name) {
      return (layout.package_dirs.empty() ? std::string() : layout.package_dirs.front() + "/") + fact;
    }
  }
  return name;
}

// The ABI counts of the table's abi_libraries, summed, with the names read.
SpellingCounts
count_library_spellings(const std::filesystem::path& lib_dir, const project::SdkLayout& layout)
{
  SpellingCounts total;
  for (const std::string& library : layout.abi_libraries) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(lib_dir / library, ec)) {
      continue;
    }
    std::vector<std::string> names;
    for (const elf::ElfSymbol& symbol : elf::read_elf(lib_dir / library).dynamic_symbols) {
      if (symbol.defined) {
        names.push_back(symbol.name);
      }
    }
    SpellingCounts counts = count_abi_spellings(names, layout.abi_namespaces);
    total.cxx11 += counts.cxx11;
    total.old_string += counts.old_string;
  }
  return total;
}

} // namespace

std::optional<std::string>
python_assignment(const std::string& text, const std::string& name)
{
  for (const std::string& line : split(text, '\n')) {
    if (std::optional<std::string> value = assignment_on_line(line, name)) {
      return value;
    }
  }
  return std::nullopt;
}

std::optional<TorchVersionInfo>
parse_torch_version_py(const std::string& text)
{
  std::optional<std::string> version = python_assignment(text, "__version__");
  if (!version) {
    return std::nullopt;
  }
  require_plain_value(*version, "__version__");
  std::string cuda = python_assignment(text, "cuda").value_or("");
  require_plain_value(cuda, "cuda");
  size_t plus = version->find('+');
  std::string public_part = version->substr(0, plus);
  std::optional<project::Version> parsed = project::parse_version(public_part);
  if (!parsed || public_part.empty()) {
    fail(ExitCode::usage, "torch/version.py: __version__ '{}': not a version opkit reads", *version);
  }
  TorchVersionInfo info;
  info.version = *parsed;
  info.local = plus == std::string::npos ? std::string() : version->substr(plus + 1);
  info.cuda = cuda;
  return info;
}

namespace {

bool
known_standard(int standard)
{
  return standard == 11 || standard == 14 || standard == 17 || standard == 20 || standard == 23 || standard == 26;
}

// The NN of `marker` NN at or after `from` in `line` (marker "-std=c++", or
// "CXX_STANDARD" then blanks), when it is a known standard.
std::optional<int>
standard_after(std::string_view line, std::string_view marker)
{
  for (size_t at = line.find(marker); at != std::string_view::npos; at = line.find(marker, at + 1)) {
    size_t i = skip_blanks(line, at + marker.size());
    size_t end = i;
    while (end < line.size() && end - i < 3 && is_ascii_digit(line[end])) {
      ++end;
    }
    if (end == i || (end < line.size() && is_ascii_digit(line[end]))) {
      continue;
    }
    int standard = std::stoi(std::string(line.substr(i, end - i)));
    if (known_standard(standard)) {
      return standard;
    }
  }
  return std::nullopt;
}

// Whether a line is a comment of Python or CMake ('#' first), or a docstring's ("...").
bool
comment_line(std::string_view line)
{
  size_t i = skip_blanks(line, 0);
  return i < line.size() && (line[i] == '#' || line.substr(i, 3) == "...");
}

} // namespace

std::optional<int>
cxx_standard_from_cpp_extension(const std::string& text)
{
  std::optional<int> first;
  for (const std::string& raw : split(text, '\n')) {
    std::string_view line = raw;
    if (comment_line(line) || line.find("``") != std::string_view::npos) {
      continue; // a comment, or a docstring's example (``-std=c++20``)
    }
    std::optional<int> standard = standard_after(line, "-std=c++");
    if (standard && line.find("common_cflags") != std::string_view::npos) {
      return standard;
    }
    if (standard && !first) {
      first = standard;
    }
  }
  return first;
}

std::pair<std::optional<int>, std::string>
torch_cxx_standard(const std::filesystem::path& staged_root, const project::SdkLayout& layout)
{
  for (const auto& [file, read] : {std::pair{"cpp_extension.py", &cxx_standard_from_cpp_extension},
                                   std::pair{"TorchConfig.cmake", &cxx_standard_from_torch_config}}) {
    std::string text = read_staged_file(staged_root / "facts" / file);
    std::optional<int> standard = text.empty() ? std::nullopt : read(text);
    if (standard) {
      return {standard, fmt::format("the wheel's {}", fact_file_path(layout, file))};
    }
  }
  return {std::nullopt, ""};
}

std::optional<int>
cxx_standard_from_torch_config(const std::string& text)
{
  std::optional<int> flag;
  for (const std::string& raw : split(text, '\n')) {
    std::string_view line = raw;
    if (comment_line(line)) {
      continue;
    }
    if (std::optional<int> standard = standard_after(line, "CXX_STANDARD")) {
      return standard;
    }
    if (!flag) {
      flag = standard_after(line, "-std=c++");
    }
  }
  return flag;
}

SpellingCounts
count_abi_spellings(const std::vector<std::string>& defined_symbols, const std::vector<std::string>& namespaces)
{
  SpellingCounts counts;
  for (const std::string& name : defined_symbols) {
    bool ours = std::any_of(namespaces.begin(), namespaces.end(),
                            [&name](const std::string& prefix) { return starts_with(name, prefix); });
    if (!ours) {
      continue;
    }
    if (name.find("St7__cxx11") != std::string::npos || name.find("B5cxx11") != std::string::npos) {
      ++counts.cxx11;
    } else if (elf::has_old_std_string(name)) {
      ++counts.old_string;
    }
  }
  return counts;
}

std::optional<WheelFileTags>
wheel_file_tags(const std::string& path)
{
  std::optional<WheelName> name = parse_wheel_name(std::filesystem::path(path).filename().string());
  if (!name || name->pythons.empty() || name->abis.empty() || name->platforms.empty() || name->pythons.front().empty()
      || name->abis.front().empty() || name->platforms.front().empty()) {
    return std::nullopt;
  }
  return WheelFileTags{name->pythons.front(), name->abis.front(), name->platforms.front()};
}

std::string
torch_sdk_id(const TorchVersionInfo& info)
{
  return fmt::format("torch-{}{}", info.version.str(), info.is_cuda_build() ? "-cuda" : "");
}

Sdk
derive_torch_facts(const std::filesystem::path& staged_root, const std::string& source)
{
  const project::FrameworkTable& table = project::FrameworkTable::get("torch");
  const project::SdkLayout& layout = table.sdk_layout();
  // The files' own errors name the file; the wheel is named before them.
  auto from_source = [&source](const auto& parse) {
    try {
      return parse();
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", source, e.what()), e.hint());
    }
  };
  std::optional<TorchVersionInfo> info =
    from_source([&] { return parse_torch_version_py(read_staged_file(staged_root / layout.version_file)); });
  if (!info) {
    fail(ExitCode::usage, "{}: not a PyTorch SDK: torch/{} has no __version__", source, layout.version_file);
  }
  Sdk sdk;
  sdk.framework = table.framework();
  sdk.source = source;
  sdk.version = info->version;
  std::string metadata_text = read_staged_file(staged_root / "dist-info/METADATA");
  WheelMetadata metadata = from_source([&] { return parse_metadata(metadata_text); });
  from_source([&] { apply_python(sdk, metadata_text); });
  sdk.origins["version"] = fmt::format("the wheel's {}/{}", layout.package_dirs.front(), layout.version_file);
  sdk.distribution = metadata.name.empty() ? table.framework() : metadata.name;
  std::string full_version = info->version.str() + (info->local.empty() ? "" : "+" + info->local);
  if (!metadata.version.empty() && metadata.version != full_version && metadata.version != info->version.str()) {
    sdk.warnings.push_back(fmt::format("dist-info says version {}, torch/{} says {}; using torch/{}", metadata.version,
                                       layout.version_file, full_version, layout.version_file));
  }
  std::optional<WheelFileTags> tags = wheel_file_tags(source);
  sdk.wheel_tag = tags ? tags->tag() : parse_wheel_tags(read_staged_file(staged_root / "dist-info/WHEEL"));
  if (!sdk.wheel_tag.empty()) {
    sdk.origins["platform"] = tags ? "the wheel's file name" : "the wheel's dist-info/WHEEL";
  }
  sdk.cuda.is_cuda_build = info->is_cuda_build();
  sdk.cuda.cuda_version = info->cuda;

  project::FrameworkFlags flags = table.flags_for(sdk.version);
  std::filesystem::path library = staged_root / "lib" / flags.framework_library;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(library, ec)) {
    fail(ExitCode::usage, "{}: not a PyTorch wheel: it lacks torch/{}/{}", source, layout.library_dir,
         flags.framework_library);
  }
  elf::ElfInfo elf = elf::read_elf(library);
  sdk.framework_library = flags.framework_library;
  sdk.soname = elf.soname.empty() ? sdk.framework_library : elf.soname;
  sdk.origins["framework_library"] = table_origin(sdk.framework, flags);

  SpellingCounts counts = count_library_spellings(staged_root / "lib", layout);
  sdk.abi_evidence =
    fmt::format("{} exports of {}: {} with std::__cxx11 spellings, {} with the old std::string "
                "spelling",
                join(layout.abi_namespaces, "/"), join(layout.abi_libraries, ", "), counts.cxx11, counts.old_string);
  decide_abi(sdk, counts, flags, "the libraries' symbols do not show their C++11 ABI", "the libraries are");
  auto [standard, standard_origin] = torch_cxx_standard(staged_root, layout);
  decide_standard(sdk, flags, standard, standard_origin);
  sdk.id = torch_sdk_id(*info);
  return sdk;
}

} // namespace opkit::sdk
