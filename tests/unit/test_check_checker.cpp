#include "opkit/check/checker.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace opkit;
namespace stdfs = std::filesystem;

namespace {

void
sh(const std::string& command)
{
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

const check::Finding*
find_kind(const check::CheckReport& report, const std::string& kind)
{
  for (const check::Finding& finding : report.findings) {
    if (finding.kind == kind) {
      return &finding;
    }
  }
  return nullptr;
}

// A library that needs the CUDA 10.0 runtime, linked against a stand-in with that soname.
stdfs::path
library_needing_cudart10(const stdfs::path& dir)
{
  std::string d = dir.string();
  sh("echo 'extern \"C\" int cudaGetDeviceCount(int* n) { *n = 0; return 0; }' > " + d + "/cudart.cc");
  sh("g++ -shared -fPIC -Wl,-soname,libcudart.so.10.0 -o " + d + "/libcudart.so.10.0 " + d + "/cudart.cc");
  sh("echo 'extern \"C\" int cudaGetDeviceCount(int*); int gpus() { int n; cudaGetDeviceCount(&n); return n; }' > " + d
     + "/op.cc");
  sh("g++ -shared -fPIC -o " + d + "/libop.so " + d + "/op.cc -L" + d + " -l:libcudart.so.10.0");
  return dir / "libop.so";
}

} // namespace

TEST(CheckChecker, CudaRuntimeOfAnotherVersionIsNamed)
{
  fs::TempDir dir;
  stdfs::path op = library_needing_cudart10(dir.path());
  check::CheckTarget target;
  target.profile = check::host_profile();
  target.framework_version = "2.10.1";
  target.cuda_version = "11.2";
  check::CheckReport report = check::check_library(op, target);
  EXPECT_FALSE(report.loads);
  const check::Finding* finding = find_kind(report, "cuda-runtime-mismatch");
  ASSERT_NE(finding, nullptr) << check::to_json(report).dump(2);
  EXPECT_EQ(finding->summary, "needs libcudart.so.10.0, but the framework is built with CUDA 11.2 (libcudart.so.11.0)");
}

TEST(CheckChecker, WithoutCudaFactsItIsAMissingLibrary)
{
  fs::TempDir dir;
  stdfs::path op = library_needing_cudart10(dir.path());
  check::CheckTarget target;
  target.profile = check::host_profile();
  check::CheckReport report = check::check_library(op, target);
  EXPECT_FALSE(report.loads);
  // The stand-in sits next to the op, but nothing tells the loader to look there.
  ASSERT_NE(find_kind(report, "bundled-without-origin"), nullptr) << check::to_json(report).dump(2);
}

TEST(CheckChecker, PolicyCeilingsNameTheRelease)
{
  fs::TempDir dir;
  std::string d = dir.path().string();
  // std::string's C++11-ABI members come from GLIBCXX_3.4.21 (GCC 5.1) when not inlined.
  sh("echo '#include <string>\nstd::string make(const char* s) { return std::string(s) + s; }' > " + d + "/s.cc");
  sh("g++ -O0 -shared -fPIC -D_GLIBCXX_USE_CXX11_ABI=1 -o " + d + "/libs.so " + d + "/s.cc");
  check::CheckTarget target;
  target.profile = check::profile_from_policy(project::load_runtime_policy("manylinux2014"));
  check::CheckReport report = check::check_library(dir.path() / "libs.so", target);
  const check::Finding* finding = find_kind(report, "version-too-new");
  ASSERT_NE(finding, nullptr) << check::to_json(report).dump(2);
  EXPECT_NE(finding->summary.find("GLIBCXX_3.4.21, introduced in GCC 5.1.0 from libstdc++.so.6"), std::string::npos)
    << finding->summary;
  EXPECT_EQ(finding->diagnosis, "the target provides libstdc++.so.6 up to GLIBCXX_3.4.19 (GCC 4.8.3)");
  EXPECT_FALSE(finding->symbols.empty());
  // The same library loads on this machine.
  target.profile = check::host_profile();
  EXPECT_TRUE(check::check_library(dir.path() / "libs.so", target).loads);
}

TEST(CheckChecker, PolicyProcessHasTheFrameworksLibrariesUpToTheCeilings)
{
  fs::TempDir dir;
  std::string d = dir.path().string();
  // Built without -lm: the references carry no version; libm is in the real
  // process anyway (the framework needs it). sqrtf is in every glibc;
  // fmaxf64 only from glibc 2.27, after CentOS 7's 2.17.
  sh("printf '#include <math.h>\\nfloat root(volatile float x) { return sqrtf(x); }\\n' > " + d + "/m.c");
  sh("gcc -O0 -shared -fPIC -o " + d + "/libm_user.so " + d + "/m.c");
  sh("printf '#define __STDC_WANT_IEC_60559_TYPES_EXT__\\n#include <math.h>\\n"
     "double bigger(volatile double x) { return fmaxf64(x, 1.0); }\\n' > "
     + d + "/n.c");
  sh("gcc -O0 -shared -fPIC -o " + d + "/libnew_math.so " + d + "/n.c");
  check::CheckTarget target;
  target.profile = check::profile_from_policy(project::load_runtime_policy("tensorflow-2.10"));
  check::CheckReport report = check::check_library(dir.path() / "libm_user.so", target);
  EXPECT_TRUE(report.loads) << check::to_json(report).dump(2);
  report = check::check_library(dir.path() / "libnew_math.so", target);
  EXPECT_FALSE(report.loads);
  EXPECT_NE(check::to_json(report).dump().find("fmaxf64"), std::string::npos) << check::to_json(report).dump(2);
  target.profile = check::host_profile();
  EXPECT_TRUE(check::check_library(dir.path() / "libnew_math.so", target).loads);
}
