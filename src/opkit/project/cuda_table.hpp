#pragma once

// configs/cuda/toolchains.yaml: the CUDA toolchain that builds each CUDA
// major's device code, and which CUDA major a fatbinary's PTX ISA stands for.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opkit::project {

// One .deb of a toolchain: where it is, its sha256, and the paths of it kept
// (a path ending in '/' keeps the folder's files).
struct ToolchainPackage
{
  std::string file; // relative to the toolchain's archive URL
  std::string sha256;
  std::vector<std::string> keep;
};

struct CudaToolchainSpec
{
  std::string release; // "11.8": the folder is cuda-<release>
  int major = 0;
  std::string host_compiler; // "g++-11"
  std::string nvcc;          // paths inside the toolchain
  std::string include;
  std::string lib;
  std::string archive; // URL ending in '/'
  std::vector<ToolchainPackage> packages;
  std::string profile; // nvcc.profile's text
};

// The toolchain for SDKs of CUDA `major`; nothing when the table has none.
const CudaToolchainSpec*
cuda_toolchain_for_major(int major);

// The CUDA major whose nvcc writes PTX ISA `ptx_major`.x; 0 when unknown.
int
cuda_major_of_ptx_isa(int ptx_major);

// The major of a CUDA version text ("11.2" -> 11, "13" -> 13); 0 when it has none.
int
cuda_major(const std::string& version);

} // namespace opkit::project
