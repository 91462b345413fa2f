#include "opkit/project/framework_table.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using opkit::project::FrameworkFlags;
using opkit::project::FrameworkOptionFacts;
using opkit::project::FrameworkTable;
using opkit::project::parse_version;

namespace {

FrameworkFlags
flags(const char* version)
{
  return FrameworkTable::tensorflow().flags_for(*parse_version(version));
}

} // namespace

TEST(FrameworkTable, Tf112UsesOldAbiCxx11AndUnversionedLibrary)
{
  FrameworkFlags f = flags("1.12.0");
  EXPECT_EQ(f.cxx_standard, 11);
  EXPECT_EQ(f.cxx11_abi, 0);
  EXPECT_EQ(f.eigen_max_align_bytes, 64);
  EXPECT_EQ(f.framework_library, "libtensorflow_framework.so");
  EXPECT_EQ(f.link, "-ltensorflow_framework");
  EXPECT_TRUE(f.verified);
}

TEST(FrameworkTable, Tf2101UsesNewAbiCxx17AndSoname2)
{
  FrameworkFlags f = flags("2.10.1");
  EXPECT_EQ(f.cxx_standard, 17);
  EXPECT_EQ(f.cxx11_abi, 1);
  EXPECT_EQ(f.framework_library, "libtensorflow_framework.so.2");
  EXPECT_EQ(f.link, "-l:libtensorflow_framework.so.2");
  EXPECT_TRUE(f.verified);
}

TEST(FrameworkTable, RangeBoundaries)
{
  EXPECT_EQ(flags("1.13.1").framework_library, "libtensorflow_framework.so");
  EXPECT_EQ(flags("1.14.0").link, "-l:libtensorflow_framework.so.1");
  EXPECT_EQ(flags("1.15.5").framework_library, "libtensorflow_framework.so.1");
  EXPECT_EQ(flags("2.6.0").cxx_standard, 11);
  EXPECT_EQ(flags("2.7.0").cxx_standard, 14);
  EXPECT_EQ(flags("2.8.4").cxx11_abi, 0);
  EXPECT_EQ(flags("2.9.0").cxx11_abi, 1);
  EXPECT_EQ(flags("2.9.3").cxx_standard, 14);
  EXPECT_EQ(flags("2.10.0").cxx_standard, 17);
  EXPECT_EQ(flags("2.11.0-rc1").cxx_standard, 17);
  EXPECT_EQ(flags("2.16.1").quirks.at(0).id, "no-eigen3-shim");
}

TEST(FrameworkTable, CommonFlagsComeWithEveryRange)
{
  FrameworkFlags f = flags("2.10.1");
  EXPECT_NE(std::find(f.compile_flags.begin(), f.compile_flags.end(), "-fPIC"), f.compile_flags.end());
  EXPECT_EQ(f.link_flags, std::vector<std::string>{"-shared"});
  EXPECT_EQ(f.include_dirs, std::vector<std::string>{"include"});
}

TEST(FrameworkTable, VersionsOfAFrameworkLibrary)
{
  const FrameworkTable& table = FrameworkTable::tensorflow();
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so"), ">=1.12,<1.14");
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so.1"), ">=1.14,<2.0");
  EXPECT_EQ(table.versions_with_framework_library("libtensorflow_framework.so.2"), ">=2.0");
  EXPECT_EQ(table.versions_with_framework_library("libc.so.6"), "");
  EXPECT_EQ(table.framework_libraries(),
            (std::vector<std::string>{"libtensorflow_framework.so", "libtensorflow_framework.so.1",
                                      "libtensorflow_framework.so.2"}));
}

TEST(FrameworkTable, OlderThanFirstRangeIsAnError)
{
  try {
    flags("1.11.0");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    EXPECT_STREQ(e.what(), "tensorflow 1.11.0: unsupported version (opkit supports 1.12 and later)");
  }
}

TEST(FrameworkTable, MalformedTableNamesTheLine)
{
  std::string text = "framework: tensorflow\nversions:\n  - since: \"1.12\"\n    cxx_standard: eleven\n";
  try {
    FrameworkTable::parse(text, "t.yaml");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_STREQ(e.what(), "t.yaml:4:19: 'cxx_standard' must be an integer, got 'eleven'");
  }
}

TEST(FrameworkTable, PythonEnvironmentRecipesOfTheVerifiedVersions)
{
  const auto& table = opkit::project::FrameworkTable::tensorflow();
  auto old = table.flags_for(*opkit::project::parse_version("1.12.0")).python_env;
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->python, "3.6");
  EXPECT_EQ(old->pip, "pip==21.3.1");
  EXPECT_EQ(old->pins, (std::vector<std::string>{"numpy<1.17", "protobuf<3.20"}));
  EXPECT_EQ(old->flags, std::vector<std::string>{"--prefer-binary"});
  EXPECT_EQ(table.flags_for(*opkit::project::parse_version("1.15.5")).python_env->python, "3.7");
  auto now = table.flags_for(*opkit::project::parse_version("2.10.1")).python_env;
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->python, "3.10");
  EXPECT_TRUE(now->pip.empty());
  EXPECT_FALSE(table.flags_for(*opkit::project::parse_version("2.7.0")).python_env.has_value())
    << "no recipe where none was checked";
}

namespace {

FrameworkFlags
torch_flags(const char* version)
{
  return FrameworkTable::get("torch").flags_for(*parse_version(version));
}

} // namespace

TEST(FrameworkTable, GetByNameGivesTensorFlowsOwnTable)
{
  EXPECT_EQ(&FrameworkTable::get("tensorflow"), &FrameworkTable::tensorflow());
  EXPECT_EQ(FrameworkTable::tensorflow().framework(), "tensorflow");
  EXPECT_TRUE(FrameworkTable::tensorflow().sdk_layout().libraries.empty()) << "TF's layout stays in sdk/importer";
  EXPECT_EQ(flags("2.10.1").link_libraries, std::vector<std::string>{});
  EXPECT_EQ(flags("2.10.1").gomp_soname, "");
}

TEST(FrameworkTable, UnknownFrameworkIsAUsageError)
{
  for (const char* name : {"jax", "../frameworks/tensorflow", "", "Torch"}) {
    try {
      FrameworkTable::get(name);
      FAIL() << "expected an error for '" << name << "'";
    } catch (const opkit::Error& e) {
      EXPECT_EQ(e.code(), opkit::ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("tensorflow, torch"), std::string::npos) << e.what();
    }
  }
}

TEST(FrameworkTable, TorchSdkLayout)
{
  const FrameworkTable& table = FrameworkTable::get("torch");
  EXPECT_EQ(table.framework(), "torch");
  const opkit::project::SdkLayout& layout = table.sdk_layout();
  EXPECT_EQ(layout.package_dirs, std::vector<std::string>{"torch"});
  EXPECT_EQ(layout.include_dir, "include");
  EXPECT_EQ(layout.library_dir, "lib");
  EXPECT_EQ(layout.libraries, (std::vector<std::string>{"libc10.so", "libtorch_cpu.so", "libtorch.so",
                                                        "libgomp-a34b3233.so.1", "libgomp.so.1", "libc10_cuda.so"}));
  EXPECT_EQ(layout.version_file, "version.py");
  EXPECT_EQ(layout.abi_libraries, (std::vector<std::string>{"libc10.so", "libtorch_cpu.so"}));
  EXPECT_EQ(layout.abi_namespaces, (std::vector<std::string>{"_ZN3c10", "_ZN2at", "_ZN5torch"}));
}

TEST(FrameworkTable, TorchAbiSwitchesAt27)
{
  EXPECT_EQ(torch_flags("2.5.1").cxx11_abi, 0);
  EXPECT_EQ(torch_flags("2.6.0").cxx11_abi, 0);
  EXPECT_EQ(torch_flags("2.6.0").gomp_soname, "libgomp-a34b3233.so.1");
  EXPECT_EQ(torch_flags("2.6.0").runtime, "manylinux2014");
  EXPECT_EQ(torch_flags("2.7.0").cxx11_abi, 1);
  EXPECT_EQ(torch_flags("2.7.1").runtime, "manylinux_2_28");
  EXPECT_EQ(torch_flags("2.7.1").gomp_soname, "libgomp.so.1");
  EXPECT_EQ(torch_flags("2.8.0").cxx11_abi, 1);
  EXPECT_EQ(torch_flags("2.8.0").quirks.at(0).id, "no-abi-flag");
  EXPECT_EQ(torch_flags("2.9.1").cxx11_abi, 1);
  for (const char* version : {"2.5.1", "2.7.0", "2.9.1"}) {
    FrameworkFlags f = torch_flags(version);
    EXPECT_EQ(f.cxx_standard, 17) << version;
    EXPECT_EQ(f.framework_library, "libtorch_cpu.so") << version;
    EXPECT_TRUE(f.verified) << version;
    EXPECT_EQ(f.eigen_max_align_bytes, 0) << version;
    EXPECT_EQ(f.link, "") << version;
  }
}

TEST(FrameworkTable, TorchBuildFlagsFollowCppExtension)
{
  FrameworkFlags f = torch_flags("2.5.1");
  // Not for every library: with it, <torch/torch.h> includes Python.h (a Python module's business).
  EXPECT_EQ(std::find(f.compile_flags.begin(), f.compile_flags.end(), "-DTORCH_API_INCLUDE_EXTENSION_H"),
            f.compile_flags.end());
  EXPECT_EQ(f.link_flags, (std::vector<std::string>{"-shared", "-Wl,--as-needed"}));
  EXPECT_EQ(f.link_libraries, (std::vector<std::string>{"c10", "torch_cpu", "torch"}));
  EXPECT_EQ(f.include_dirs, (std::vector<std::string>{"include", "include/torch/csrc/api/include"}));
  EXPECT_EQ(f.pch_headers, (std::vector<std::string>{"torch/library.h", "ATen/ATen.h"}));
  EXPECT_NE(std::find(f.nvcc_flags.begin(), f.nvcc_flags.end(), "--expt-relaxed-constexpr"), f.nvcc_flags.end());
}

TEST(FrameworkTable, TorchOlderThanFirstRangeNamesTorch)
{
  try {
    torch_flags("2.4.1");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_STREQ(e.what(), "torch 2.4.1: unsupported version (opkit supports 2.5 and later)");
  }
}

TEST(FrameworkTable, LinkWithoutEigenAlignmentIsAnError)
{
  std::string text = "framework: tensorflow\nversions:\n  - since: \"1.12\"\n    cxx_standard: 11\n    cxx11_abi: 0\n"
                     "    framework_library: libtensorflow_framework.so\n    link: -ltensorflow_framework\n";
  try {
    FrameworkTable::parse(text, "t.yaml");
    FAIL() << "expected an error";
  } catch (const opkit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("eigen_max_align_bytes"), std::string::npos) << e.what();
  }
}

// What build, check, test and the CLI read of the torch table besides the flags.
TEST(FrameworkTable, TorchNamesItsProcessAndProbe)
{
  const FrameworkTable& torch = FrameworkTable::get("torch");
  EXPECT_EQ(torch.short_name(), "torch");
  EXPECT_EQ(torch.label(), "torch");
  EXPECT_EQ(torch.display_name(), "PyTorch");
  EXPECT_EQ(torch.default_targets(), (std::vector<std::string>{"2.5", "2.8"}));
  EXPECT_EQ(torch.example_versions(), (std::vector<std::string>{"2.5", "2.12"}));
  EXPECT_EQ(torch.symbol_namespaces(), (std::vector<std::string>{"3c10", "2at", "5torch"}));
  EXPECT_EQ(torch.probe_reporter(), "torch_probe_report.cc");
  EXPECT_EQ(torch.probe_runtime(),
            (std::vector<std::pair<std::string, std::string>>{{"libcudart.so.12", "nvidia-cuda-runtime-cu12"},
                                                              {"libcupti.so.12", "nvidia-cuda-cupti-cu12"},
                                                              {"libcudart.so.13", "cuda-toolkit[cudart]"},
                                                              {"libcupti.so.13", "cuda-toolkit[cupti]"}}));
  FrameworkFlags f = torch_flags("2.8.0");
  EXPECT_EQ(f.library_defines, (std::vector<std::string>{"TORCH_EXTENSION_NAME={library}"}));
  EXPECT_EQ(f.process_libraries, (std::vector<std::string>{"libc10.so", "libtorch.so", "libc10_cuda.so"}));
  EXPECT_EQ(f.pch_include_prefixes, (std::vector<std::string>{"torch/", "ATen/", "c10/"}));

  const FrameworkTable& tf = FrameworkTable::tensorflow();
  EXPECT_EQ(tf.short_name(), "tf");
  EXPECT_EQ(tf.label(), "TF");
  EXPECT_EQ(tf.probe_reporter(), "tf_probe_report.cc");
  EXPECT_TRUE(tf.probe_runtime().empty());
  EXPECT_EQ(tf.flags_for(*opkit::project::parse_version("2.10.1")).process_libraries,
            (std::vector<std::string>{"_pywrap_tensorflow_internal.so", "libtensorflow_cc.so.2"}));
}

TEST(FrameworkTable, CpuFloorOfEveryTensorflowReleaseIsAvx)
{
  // TF's install pages: "Starting with TensorFlow 1.6, binaries use AVX instructions".
  const auto& tf = opkit::project::FrameworkTable::tensorflow();
  for (const char* v : {"1.12.0", "1.15.5", "2.10.1", "2.21.0"}) {
    EXPECT_EQ(tf.flags_for(*opkit::project::parse_version(v)).cpu_floor, std::vector<std::string>{"avx"}) << v;
  }
  // torch documents none: what libtorch_cpu runs at load decides alone.
  const auto& torch = opkit::project::FrameworkTable::get("torch");
  EXPECT_TRUE(torch.flags_for(*opkit::project::parse_version("2.8.0")).cpu_floor.empty());
}

// The option facts read from the twin alone say what the parsed table says.
TEST(FrameworkTable, OptionFactsAreTheTablesOwn)
{
  for (const std::string& name : FrameworkTable::names()) {
    FrameworkOptionFacts facts = FrameworkTable::option_facts(name);
    const FrameworkTable& table = FrameworkTable::get(name);
    EXPECT_EQ(facts.short_name, table.short_name()) << name;
    EXPECT_EQ(facts.display_name, table.display_name()) << name;
    EXPECT_EQ(facts.example_versions, table.example_versions()) << name;
    EXPECT_EQ(facts.example_versions.size(), 2U) << name;
  }
}
