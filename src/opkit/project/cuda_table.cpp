#include "opkit/project/cuda_table.hpp"

#include "opkit/project/version.hpp"
#include "opkit/project/yaml_util.hpp"
#include "opkit/util/error.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace opkit::project {

namespace {

const char* k_cuda_file = "configs/cuda/toolchains.yaml";

struct CudaTableData
{
  std::vector<CudaToolchainSpec> toolchains;
  std::map<int, int> ptx_isa_cuda_major;
};

int
cuda_table_number(const std::string& text, const std::string& where)
{
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end == nullptr || *end != '\0' || value <= 0 || value > 1000) {
    fail(ExitCode::usage, "{}: '{}' is not a CUDA or PTX major", where, text);
  }
  return static_cast<int>(value);
}

CudaToolchainSpec
load_cuda_toolchain(const Node& node)
{
  yaml::expect_keys(node,
                    {"release", "major", "host_compiler", "nvcc", "include", "lib", "archive", "packages", "profile"},
                    k_cuda_file);
  CudaToolchainSpec spec;
  spec.release = yaml::get_string(node, "release", k_cuda_file);
  spec.major = yaml::get_int(node, "major", k_cuda_file);
  spec.host_compiler = yaml::get_string(node, "host_compiler", k_cuda_file);
  spec.nvcc = yaml::get_string(node, "nvcc", k_cuda_file);
  spec.include = yaml::get_string(node, "include", k_cuda_file);
  spec.lib = yaml::get_string(node, "lib", k_cuda_file);
  spec.archive = yaml::get_string(node, "archive", k_cuda_file);
  spec.profile = yaml::get_string(node, "profile", k_cuda_file);
  if (spec.archive.empty() || spec.archive.back() != '/') {
    fail(ExitCode::usage, "{}: archive must end in '/'", yaml::where(k_cuda_file, node));
  }
  for (const Node& package : yaml::get_list(node, "packages", k_cuda_file)) {
    yaml::expect_keys(package, {"file", "sha256", "keep"}, k_cuda_file);
    spec.packages.push_back({yaml::get_string(package, "file", k_cuda_file),
                             yaml::get_string(package, "sha256", k_cuda_file),
                             yaml::get_string_list(package, "keep", k_cuda_file)});
  }
  return spec;
}

CudaTableData
load_cuda_table()
{
  Node root = yaml::load_embedded(k_cuda_file);
  yaml::expect_keys(root, {"schema", "toolchains", "ptx_isa_cuda_major"}, k_cuda_file);
  CudaTableData table;
  for (const Node& node : yaml::get_list(root, "toolchains", k_cuda_file)) {
    table.toolchains.push_back(load_cuda_toolchain(node));
  }
  for (const Node::Entry& entry : root["ptx_isa_cuda_major"]) {
    std::string where = yaml::where(k_cuda_file, entry.second);
    table.ptx_isa_cuda_major[cuda_table_number(entry.first.scalar(), where)] =
      cuda_table_number(entry.second.scalar(), where);
  }
  return table;
}

const CudaTableData&
cuda_table()
{
  static const CudaTableData loaded = load_cuda_table();
  return loaded;
}

} // namespace

const CudaToolchainSpec*
cuda_toolchain_for_major(int major)
{
  for (const CudaToolchainSpec& spec : cuda_table().toolchains) {
    if (spec.major == major) {
      return &spec;
    }
  }
  return nullptr;
}

int
cuda_major_of_ptx_isa(int ptx_major)
{
  auto found = cuda_table().ptx_isa_cuda_major.find(ptx_major);
  return found == cuda_table().ptx_isa_cuda_major.end() ? 0 : found->second;
}

int
cuda_major(const std::string& version)
{
  std::optional<Version> parsed = parse_version(version); // "11.2", "13": its first part
  return parsed ? parsed->parts.front() : 0;
}

} // namespace opkit::project
