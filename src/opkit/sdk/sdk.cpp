#include "opkit/sdk/sdk.hpp"

#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace opkit::sdk {

Json
to_json(const Sdk& sdk)
{
  return Json{
    {"schema", "opkit.sdk/1"},
    {"id", sdk.id},
    {"framework", sdk.framework},
    {"distribution", sdk.distribution},
    {"version", sdk.version.str()},
    {"cxx11_abi", sdk.cxx11_abi},
    {"abi_evidence", sdk.abi_evidence},
    {"cxx_standard", sdk.cxx_standard},
    {"framework_library", sdk.framework_library},
    {"soname", sdk.soname},
    {"cuda",
     {{"is_cuda_build", sdk.cuda.is_cuda_build},
      {"cuda_version", sdk.cuda.cuda_version},
      {"cudnn_version", sdk.cuda.cudnn_version}}},
    {"wheel_tag", sdk.wheel_tag},
    {"requires_python", sdk.requires_python},
    {"defines", sdk.defines},
    {"origins", sdk.origins},
    {"source", sdk.source},
    {"warnings", sdk.warnings},
    {"path", sdk.root.string()},
  };
}

Sdk
sdk_from_json(const Json& json, const std::filesystem::path& root)
{
  try {
    Sdk sdk;
    sdk.root = root;
    sdk.id = json.at("id").get<std::string>();
    sdk.framework = json.at("framework").get<std::string>();
    sdk.distribution = json.at("distribution").get<std::string>();
    std::optional<project::Version> version = project::parse_version(json.at("version").get<std::string>());
    if (!version) {
      fail(ExitCode::usage, "{}: invalid version in sdk.json", root);
    }
    sdk.version = *version;
    sdk.cxx11_abi = json.at("cxx11_abi").get<int>();
    sdk.abi_evidence = json.at("abi_evidence").get<std::string>();
    sdk.cxx_standard = json.at("cxx_standard").get<int>();
    sdk.framework_library = json.at("framework_library").get<std::string>();
    sdk.soname = json.at("soname").get<std::string>();
    sdk.cuda.is_cuda_build = json.at("cuda").at("is_cuda_build").get<bool>();
    sdk.cuda.cuda_version = json.at("cuda").at("cuda_version").get<std::string>();
    sdk.cuda.cudnn_version = json.at("cuda").at("cudnn_version").get<std::string>();
    sdk.wheel_tag = json.at("wheel_tag").get<std::string>();
    sdk.source = json.at("source").get<std::string>();
    sdk.warnings = json.at("warnings").get<std::vector<std::string>>();
    // Recorded since opkit derives facts from the wheel; an older store's SDK has neither.
    sdk.requires_python = json.value("requires_python", std::string());
    if (json.contains("defines")) {
      sdk.defines = json.at("defines").get<std::vector<std::string>>();
    }
    if (json.contains("origins")) {
      sdk.origins = json.at("origins").get<std::map<std::string, std::string>>();
    }
    return sdk;
  } catch (const Json::exception& e) {
    fail(ExitCode::usage, "{}/sdk.json: malformed: {}", root, e.what());
  }
}

std::optional<SdkIdParts>
parse_sdk_id(const std::string& id)
{
  for (const std::string& framework : project::FrameworkTable::names()) {
    if (starts_with(id, framework + "-")) {
      SdkIdParts parts{framework, id.substr(framework.size() + 1), false};
      parts.cuda = ends_with(parts.version, "-cuda");
      parts.version = parts.version.substr(0, parts.version.size() - (parts.cuda ? std::string("-cuda").size() : 0));
      return parts;
    }
  }
  return std::nullopt;
}

std::string
python_of_wheel_tag(const std::string& tag)
{
  if (tag.size() < 4 || tag.compare(0, 2, "cp") != 0 || !std::isdigit(static_cast<unsigned char>(tag[2]))) {
    return "";
  }
  size_t end = tag.find_first_not_of("0123456789", 2);
  std::string digits = tag.substr(2, end == std::string::npos ? std::string::npos : end - 2);
  return digits.size() < 2 ? "" : digits.substr(0, 1) + "." + digits.substr(1);
}

bool
is_valid_sdk_id(const std::string& id)
{
  for (const std::string& framework : project::FrameworkTable::names()) {
    const std::string prefix = framework + "-";
    bool valid =
      id.size() > prefix.size() && id.size() <= prefix.size() + 96 && id.compare(0, prefix.size(), prefix) == 0
      && id.find("..") == std::string::npos && std::all_of(id.begin(), id.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-';
         });
    if (valid) {
      return true;
    }
  }
  return false;
}

} // namespace opkit::sdk
