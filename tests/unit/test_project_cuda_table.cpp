#include "opkit/project/cuda_table.hpp"

#include <gtest/gtest.h>

using namespace opkit::project;

TEST(ProjectCudaTable, Cuda11IsBuiltByDebiansCuda118WithItsHostCompiler)
{
  const CudaToolchainSpec* spec = cuda_toolchain_for_major(11);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->release, "11.8");
  EXPECT_EQ(spec->host_compiler, "g++-11");
  EXPECT_EQ(spec->archive.back(), '/');
  ASSERT_FALSE(spec->packages.empty());
  for (const ToolchainPackage& package : spec->packages) {
    EXPECT_EQ(package.sha256.size(), 64u) << package.file;
    EXPECT_FALSE(package.keep.empty()) << package.file;
  }
  EXPECT_NE(spec->profile.find("$(_HERE_)"), std::string::npos) << "relative to nvcc, so the folder can move";
  const CudaToolchainSpec* twelve = cuda_toolchain_for_major(12); // torch 2.5-2.9's
  ASSERT_NE(twelve, nullptr);
  EXPECT_EQ(twelve->release, "12.4");
  EXPECT_EQ(twelve->host_compiler, "g++-12");
  EXPECT_EQ(cuda_toolchain_for_major(13), nullptr) << "the system's CUDA 13 builds for CUDA 13 SDKs";
  EXPECT_EQ(cuda_toolchain_for_major(0), nullptr);
}

TEST(ProjectCudaTable, ThePtxIsaSaysTheCudaMajor)
{
  EXPECT_EQ(cuda_major_of_ptx_isa(7), 11);
  EXPECT_EQ(cuda_major_of_ptx_isa(8), 12);
  EXPECT_EQ(cuda_major_of_ptx_isa(9), 13);
  EXPECT_EQ(cuda_major_of_ptx_isa(5), 0);
  EXPECT_EQ(cuda_major("11.2"), 11);
  EXPECT_EQ(cuda_major("13"), 13);
  EXPECT_EQ(cuda_major(""), 0);
  EXPECT_EQ(cuda_major("x11"), 0);
  EXPECT_EQ(cuda_major("99999999999"), 0);
}
