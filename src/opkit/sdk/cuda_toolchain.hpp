#pragma once

// The CUDA toolchains opkit keeps beside its SDKs (configs/cuda/toolchains.yaml):
// fetched once, checked against their sha256, and unpacked into
// <cuda_toolchains>/cuda-<release>/, so a CUDA SDK's device code is built by
// nvcc of the CUDA major its framework was built with.
#include "opkit/project/cuda_table.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace opkit::sdk {

struct CudaToolchain
{
  std::filesystem::path root;
  std::filesystem::path nvcc;
  std::filesystem::path include_dir;
  std::filesystem::path lib_dir;
  std::string host_compiler; // nvcc's -ccbin
  std::string release;       // "11.8"
};

// The system's CUDA toolkit: the `cuda_home` setting's bin/nvcc, else the nvcc
// on PATH (its folder's parent); nothing when there is neither. Its release is
// what include/cuda.h declares ("13.0"; empty when unreadable).
std::optional<CudaToolchain>
system_cuda_toolchain();

// The toolchain that gives the CUDA runtime of a CUDA SDK's major (a check's
// model of the framework's process): the fetched one the table names, else
// the system's of that major; nothing when neither is here.
std::optional<CudaToolchain>
cuda_toolchain_of_major(int major);

// The `cuda_toolchains` setting: where they are kept.
std::filesystem::path
cuda_toolchain_store();

// The toolchain of `spec` where it would be, whether or not it is there.
CudaToolchain
cuda_toolchain_paths(const project::CudaToolchainSpec& spec);

// It, when it is there (unpacked whole).
std::optional<CudaToolchain>
stored_cuda_toolchain(const project::CudaToolchainSpec& spec);

// It, fetched and unpacked first when it is not there (`needed_by` says for
// what, in the log). Each package is verified against its sha256 (a mismatch
// is Error(failed), the file removed) and only its `keep` paths are unpacked,
// regular files and links to a file beside them (libcudart.so ->
// libcudart.so.12), none escaping the folder. The folder appears whole or
// not at all; a download cut off resumes on the next call. Network failures
// are NetworkError (exit 4).
CudaToolchain
ensure_cuda_toolchain(const project::CudaToolchainSpec& spec, const std::string& needed_by);

// Unpacks the kept paths of one Debian package into `root` (exposed for the
// tests: damaged and hostile packages). Returns the number of files written.
size_t
unpack_deb(const std::filesystem::path& deb, const project::ToolchainPackage& package,
           const std::filesystem::path& root);

} // namespace opkit::sdk
