#include "opkit/builder/ninja_writer.hpp"
#include "opkit/builder/plan.hpp"
#include "opkit/builder/python_module.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/json.hpp"

#include <algorithm>

#include <gtest/gtest.h>

using namespace opkit;

namespace {

sdk::Sdk
fake_sdk_facts(const char* version, int abi, int standard)
{
  // Only the facts plan_library reads; no files are touched.
  sdk::Sdk sdk;
  sdk.root = std::string("/store/sdks/tensorflow-") + version;
  sdk.version = *project::parse_version(version);
  sdk.cxx11_abi = abi;
  sdk.cxx_standard = standard;
  return sdk;
}

builder::TargetPlan
plan_for(const char* version, int abi, int standard, builder::FlagOverrides overrides = {})
{
  sdk::Sdk sdk = fake_sdk_facts(version, abi, standard);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{
    {{}, "/usr/bin/g++", {}}, "/my project", {}, std::string("/my project/build/tf-") + version, false, {}, {}, {}, ""};
  builder::LibraryInput library{"zero_out", "libzero_out.so", {"src/b.cc", "src/a.cc"}, {}, {}, {}, {}, {}};
  return builder::plan_target(input, {library}, sdk, flags, overrides);
}

} // namespace

TEST(NinjaWriter, EscapesDollarEverywhereAndSpaceColonInPaths)
{
  EXPECT_EQ(builder::ninja_escape("a $b c:d"), "a $$b c:d");
  EXPECT_EQ(builder::ninja_escape_path("/my dir/c:d$e"), "/my$ dir/c$:d$$e");
}

TEST(NinjaWriter, APipeInAPathIsAVariableDefinedBeforeItsFirstUse)
{
  // ninja has no escape for '|', which starts a build line's implicit inputs.
  EXPECT_EQ(builder::ninja_escape_path("/a|b/c"), "/a${opkit_pipe}b/c");
  builder::NinjaWriter plain;
  plain.build({"x.o"}, "cxx", {"/a/x.cc"});
  EXPECT_EQ(plain.text(), "build x.o: cxx /a/x.cc\n");
  builder::NinjaWriter writer;
  writer.build({"x.o"}, "cxx", {"/a|b/x.cc"}, {}, {"/a|b/x.h"});
  writer.build({"y.o"}, "cxx", {"/a|b/y.cc"});
  EXPECT_EQ(writer.text(), "opkit_pipe = |\n"
                           "build x.o: cxx /a${opkit_pipe}b/x.cc | /a${opkit_pipe}b/x.h\n"
                           "build y.o: cxx /a${opkit_pipe}b/y.cc\n");
}

TEST(BuildPlan, NinjaFileIsDeterministic)
{
  std::string first = builder::render_ninja(plan_for("2.10.1", 1, 17));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(builder::render_ninja(plan_for("2.10.1", 1, 17)), first);
  }
  EXPECT_EQ(builder::render_compile_commands(plan_for("2.10.1", 1, 17)),
            builder::render_compile_commands(plan_for("2.10.1", 1, 17)));
}

TEST(BuildPlan, NinjaFileForTf2101)
{
  std::string text = builder::render_ninja(plan_for("2.10.1", 1, 17));
  EXPECT_NE(text.find("build obj/zero_out/src/b.cc.o: cxx /my$ project/src/b.cc\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  flags = -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -DEIGEN_MAX_ALIGN_BYTES=64 -fPIC"),
            std::string::npos)
    << text;
  // The SDK include folder is quoted for the shell, escaped for ninja.
  EXPECT_NE(text.find("-I/store/sdks/tensorflow-2.10.1/include\n"), std::string::npos) << text;
  EXPECT_NE(text.find("build libzero_out.so: link obj/zero_out/src/b.cc.o obj/zero_out/src/a.cc.o\n"
                      "  link_flags = -shared -L/store/sdks/tensorflow-2.10.1/lib -l:libtensorflow_framework.so.2\n"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("  deps = gcc\n"), std::string::npos);
  EXPECT_NE(text.find("default libzero_out.so\n"), std::string::npos);
}

// The portable archives come after the framework library: a libstdc++ symbol
// the framework exports (TF 2.10.1's random_device::_M_init) binds to it, and
// only what nothing else gives is taken from an archive member.
TEST(BuildPlan, PortableArchivesComeAfterTheFramework)
{
  sdk::Sdk sdk = fake_sdk_facts("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{
    {{}, "/usr/bin/g++", {}}, "/p", {}, "/p/build/tf-2.10.1", false, {"/h/libstdc++_x.a"}, {}, {}, ""};
  builder::LibraryInput library{"zero_out", "libzero_out.so", {"src/a.cc"}, {}, {}, {}, {}, {}};
  std::string text = builder::render_ninja(builder::plan_target(input, {library}, sdk, flags, {}));
  size_t framework = text.find("-l:libtensorflow_framework.so.2");
  size_t archive = text.find("/h/libstdc++_x.a -Wl,--exclude-libs,libstdc++_x.a");
  ASSERT_NE(framework, std::string::npos) << text;
  ASSERT_NE(archive, std::string::npos) << text;
  EXPECT_LT(framework, archive) << text;
  EXPECT_EQ(text.find("-l:libtensorflow_framework.so.2", framework + 1), std::string::npos) << "linked twice: " << text;
}

TEST(BuildPlan, Tf112LinksUnversionedFramework)
{
  std::string text = builder::render_ninja(plan_for("1.12.0", 0, 11));
  EXPECT_NE(text.find("-std=c++11 -D_GLIBCXX_USE_CXX11_ABI=0"), std::string::npos);
  EXPECT_NE(text.find("link_flags = -shared -L/store/sdks/tensorflow-1.12.0/lib -ltensorflow_framework\n"),
            std::string::npos)
    << text;
}

TEST(BuildPlan, OverridesReplaceTheSdkFacts)
{
  builder::FlagOverrides overrides;
  overrides.cxx11_abi = 1;
  overrides.cxx_standard = 14;
  std::string text = builder::render_ninja(plan_for("1.12.0", 0, 11, overrides));
  EXPECT_NE(text.find("-std=c++14 -D_GLIBCXX_USE_CXX11_ABI=1"), std::string::npos) << text;
}

TEST(BuildPlan, CompileCommandsListEverySource)
{
  Json commands = Json::parse(builder::render_compile_commands(plan_for("2.10.1", 1, 17)));
  ASSERT_EQ(commands.size(), 2U);
  EXPECT_EQ(commands[0]["file"], "/my project/src/b.cc");
  EXPECT_EQ(commands[0]["directory"], "/my project/build/tf-2.10.1");
  std::vector<std::string> args = commands[0]["arguments"];
  EXPECT_EQ(args.front(), "/usr/bin/g++");
  EXPECT_EQ(std::vector<std::string>(args.end() - 4, args.end()),
            (std::vector<std::string>{"-c", "/my project/src/b.cc", "-o", "obj/zero_out/src/b.cc.o"}));
}

TEST(BuildPlan, LibrarySettingsBecomeFlagsOfItsStepsOnly)
{
  sdk::Sdk sdk = fake_sdk_facts("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{{{"/usr/bin/ccache"}, "/usr/bin/g++", {"-m64"}},
                             "/r",
                             {"/r/build/opkit/compat.cc"},
                             "/r/build",
                             false,
                             {},
                             {},
                             {},
                             ""};
  builder::LibraryInput fast{
    "fast",           "_fast_ops.so", {"fast/a.cc"}, {"/r", "/r/third_party/x"}, {"USE_FMA", "tstring=std::string"},
    {"-O3", "-mfma"}, {"-fopenmp"},   {"gomp"}};
  builder::LibraryInput plain{"plain", "libplain.so", {"plain/b.cc"}, {}, {}, {}, {}, {}};
  builder::TargetPlan plan = builder::plan_target(input, {fast, plain}, sdk, flags, {});
  ASSERT_EQ(plan.compiles.size(), 3U);
  const std::vector<std::string>& a = plan.compiles[1].flags;
  auto at = [&](const std::string& flag) { return std::find(a.begin(), a.end(), flag) - a.begin(); };
  ASSERT_LT(at("-O3"), static_cast<long>(a.size()));
  EXPECT_GT(at("-O3"), at("-O2")) << "the library's -O3 comes after the SDK's -O2";
  EXPECT_LT(at("-DUSE_FMA"), static_cast<long>(a.size()));
  EXPECT_LT(at("-Dtstring=std::string"), static_cast<long>(a.size()));
  EXPECT_GT(at("-I/r"), at("-I/store/sdks/tensorflow-2.10.1/include")) << "the SDK's headers first";
  const std::vector<std::string>& b = plan.compiles[2].flags;
  EXPECT_EQ(std::find(b.begin(), b.end(), "-O3"), b.end()) << "settings stay with their library";
  ASSERT_EQ(plan.links.size(), 2U);
  EXPECT_EQ(plan.links[0].output, "_fast_ops.so");
  EXPECT_EQ(plan.links[0].objects, (std::vector<std::string>{"obj/fast/fast/a.cc.o", "obj/opkit/compat.cc.o"}));
  EXPECT_EQ(plan.links[0].flags.back(), "-lgomp");
  std::string text = builder::render_ninja(plan);
  EXPECT_NE(text.find("cxx = /usr/bin/g++ -m64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("launcher = /usr/bin/ccache\n"), std::string::npos) << text;
  EXPECT_NE(text.find("default _fast_ops.so libplain.so\n"), std::string::npos) << text;
  Json commands = Json::parse(builder::render_compile_commands(plan));
  EXPECT_EQ(commands[1]["arguments"][1], "-m64");
}

TEST(BuildPlan, DeviceSourcesGetTheToolkitAndTensorFlowsCudaPath)
{
  sdk::Sdk sdk = fake_sdk_facts("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/r", {}, "/r/build", false, {}, {}, {}, ""};
  builder::LibraryInput gpu{"gpu", "libgpu.so", {"k.cc", "k.cu.cc"}, {}, {}, {"-O3"}, {}, {}};
  builder::CudaToolkit cuda{"/cuda/bin/nvcc", "/cuda/include", "/cuda/lib64", "/r/build/opkit/cuda", "", "", ""};
  builder::TargetPlan plan = builder::plan_target(input, {gpu}, sdk, flags, {}, cuda);
  ASSERT_EQ(plan.compiles.size(), 2U);
  EXPECT_FALSE(plan.compiles[0].device);
  EXPECT_TRUE(plan.compiles[1].device);
  for (const builder::CompileStep& step : plan.compiles) {
    EXPECT_NE(std::find(step.flags.begin(), step.flags.end(), "-I/r/build/opkit/cuda"), step.flags.end());
  }
  const std::vector<std::string>& d = plan.compiles[1].flags;
  EXPECT_NE(std::find(d.begin(), d.end(), "-Xcompiler=-O3"), d.end()) << "host flags reach nvcc through -Xcompiler";
}

TEST(BuildPlan, APortableTargetBindsDeviceCodeAndTheCudaRuntimeToo)
{
  sdk::Sdk sdk = fake_sdk_facts("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{{{}, "/usr/bin/g++", {}},
                             "/r",
                             {},
                             "/r/build",
                             false,
                             {"/store/portable/a/libx.a"},
                             {"/r/build/opkit/symbol_versions.h"},
                             {"/store/portable/b"},
                             ""};
  builder::LibraryInput gpu{"gpu", "libgpu.so", {"k.cc", "k.cu.cc"}, {}, {}, {}, {}, {}};
  builder::CudaToolkit cuda{"/cuda/bin/nvcc", "/cuda/include", "/cuda/lib64", "/r/build/opkit/cuda", "", "", ""};
  builder::TargetPlan plan = builder::plan_target(input, {gpu}, sdk, flags, {}, cuda);
  const std::vector<std::string>& host = plan.compiles[0].flags;
  const std::vector<std::string>& device = plan.compiles[1].flags;
  EXPECT_EQ(host.back(), "/r/build/opkit/symbol_versions.h");
  EXPECT_EQ(device.back(), "-Xcompiler=-include,/r/build/opkit/symbol_versions.h");
  const std::vector<std::string>& link = plan.links[0].flags;
  auto at = [&](const std::string& flag) { return std::find(link.begin(), link.end(), flag) - link.begin(); };
  ASSERT_LT(at("-L/store/portable/b"), static_cast<long>(link.size()));
  EXPECT_LT(at("-L/store/portable/b"), at("-L/cuda/lib64")) << "the pinned CUDA runtime is found first";
  EXPECT_LT(at("-L/cuda/lib64"), at("-lcudart_static"));
  EXPECT_LT(at("-lcudart_static"), at("-l:libtensorflow_framework.so.2"))
    << "the static runtime takes the CUDA calls, not the CUDA framework's own stub";
  EXPECT_LT(at("-Wl,--exclude-libs,libx.a"), static_cast<long>(link.size()));
}

TEST(BuildPlan, NvccGetsTheHostCompilerItsToolkitNames)
{
  sdk::Sdk sdk = fake_sdk_facts("2.10.1", 1, 17);
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/r", {}, "/r/build", false, {}, {}, {}, ""};
  builder::LibraryInput gpu{"gpu", "libgpu.so", {"k.cu.cc"}, {}, {}, {}, {}, {}};
  builder::CudaToolkit cuda{"/tc/bin/nvcc", "/tc/include", "/tc/lib", "/r/build/opkit/cuda", "g++-11", "11.8", "x"};
  builder::TargetPlan plan = builder::plan_target(input, {gpu}, sdk, flags, {}, cuda);
  const std::vector<std::string>& d = plan.compiles[0].flags;
  auto ccbin = std::find(d.begin(), d.end(), "-ccbin");
  ASSERT_NE(ccbin, d.end());
  EXPECT_EQ(*(ccbin + 1), "g++-11");
  cuda.host_compiler.clear(); // the system's nvcc: its own choice
  plan = builder::plan_target(input, {gpu}, sdk, flags, {}, cuda);
  EXPECT_EQ(std::find(plan.compiles[0].flags.begin(), plan.compiles[0].flags.end(), "-ccbin"),
            plan.compiles[0].flags.end());
}

TEST(BuildPlan, OneNinjaOverEveryTargetFromTheBuildRoot)
{
  builder::TargetPlan plan = plan_for("2.10.1", 1, 17);
  plan.ninja_dir = "/my project/build";
  plan.link_jobs = 2;
  EXPECT_EQ(builder::output_prefix(plan), "tf-2.10.1/");
  std::string text = builder::render_ninja(plan);
  EXPECT_NE(text.find("build tf-2.10.1/obj/zero_out/src/b.cc.o: cxx /my$ project/src/b.cc\n"), std::string::npos)
    << text;
  EXPECT_NE(text.find("  name = src/b.cc\n"), std::string::npos) << "described by the project's path";
  EXPECT_NE(text.find("description = CXX $name ($opkit_target)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("opkit_target = tf-2.10.1\n"), std::string::npos) << text;
  // Pools are global across subninjas: each target's its own.
  EXPECT_NE(text.find("pool link_pool_tf-2.10.1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("build tf-2.10.1/libzero_out.so: link tf-2.10.1/obj/zero_out/src/b.cc.o"), std::string::npos);
  EXPECT_NE(text.find("default tf-2.10.1/libzero_out.so\n"), std::string::npos);
  // Colours come from the environment, through the shell: no command changes with them.
  EXPECT_NE(text.find("$flags $$OPKIT_DIAGNOSTICS_FLAGS -c $in"), std::string::npos) << text;
  Json commands = Json::parse(builder::render_compile_commands(plan));
  EXPECT_EQ(commands[0]["directory"], "/my project/build");
  EXPECT_EQ(commands[0]["output"], "tf-2.10.1/obj/zero_out/src/b.cc.o");
  EXPECT_EQ(builder::render_top_ninja({"tf-1.12.0/build.ninja", "tf-2.10.1/build.ninja"})
              .substr(builder::render_top_ninja({}).size()),
            "subninja tf-1.12.0/build.ninja\nsubninja tf-2.10.1/build.ninja\n");
  std::vector<builder::PlannedStep> steps = builder::planned_steps(plan);
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_EQ(steps[0].kind, "compile");
  EXPECT_NE(steps[0].command.find("-c '/my project/src/b.cc' -o tf-2.10.1/obj/zero_out/src/b.cc.o"), std::string::npos)
    << steps[0].command;
  EXPECT_EQ(steps[2].kind, "link");
  EXPECT_EQ(steps[2].output, "tf-2.10.1/libzero_out.so");
}

// A torch SDK's plan: torch.yaml's flags, each library its own
// TORCH_EXTENSION_NAME (after the library's own flags, so the PCH still
// applies), no Eigen alignment, -lc10 -ltorch_cpu -ltorch after --as-needed.
TEST(BuildPlan, TorchLibrariesGetTheirExtensionNameAndTorchsLibraries)
{
  sdk::Sdk sdk = fake_sdk_facts("2.5.1", 0, 17);
  sdk.framework = "torch";
  sdk.root = "/store/sdks/torch-2.5.1-cuda";
  project::FrameworkFlags flags = project::FrameworkTable::get("torch").flags_for(sdk.version);
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/p", {}, "/p/build/torch-2.5.1-cuda", false, {}, {}, {}, ""};
  builder::LibraryInput scatter{"scatter", "libscatter.so", {"csrc/scatter.cpp"}, {}, {}, {}, {}, {}};
  builder::LibraryInput sparse{"sparse", "libsparse.so", {"csrc/sparse.cpp"}, {"/p/csrc"}, {}, {}, {}, {}};
  builder::PchUse pch{"/pch/opkit_pch.h", builder::sdk_compile_flags(sdk, flags, {}), {"csrc/scatter.cpp"}};
  builder::TargetPlan plan = builder::plan_target(input, {scatter, sparse}, sdk, flags, {}, {}, pch);
  ASSERT_EQ(plan.compiles.size(), 2U);
  const std::vector<std::string>& first = plan.compiles[0].flags;
  EXPECT_NE(std::find(first.begin(), first.end(), "-DTORCH_EXTENSION_NAME=scatter"), first.end());
  EXPECT_NE(std::find(first.begin(), first.end(), "-include"), first.end()) << "the PCH still applies";
  EXPECT_EQ(std::count_if(first.begin(), first.end(),
                          [](const std::string& f) { return f.rfind("-DEIGEN_MAX_ALIGN_BYTES", 0) == 0; }),
            0);
  const std::vector<std::string>& second = plan.compiles[1].flags;
  auto name = std::find(second.begin(), second.end(), "-DTORCH_EXTENSION_NAME=sparse");
  ASSERT_NE(name, second.end());
  EXPECT_LT(name - second.begin(), std::find(second.begin(), second.end(), "-I/p/csrc") - second.begin())
    << "before the library's own folders";
  EXPECT_EQ(plan.links[0].flags,
            (std::vector<std::string>{"-shared", "-Wl,--as-needed", "-L/store/sdks/torch-2.5.1-cuda/lib", "-lc10",
                                      "-ltorch_cpu", "-ltorch"}));
}

// A Python module (opkit.yaml's python_module): one library input per CPython,
// its own objects, the file that Python imports, Python's headers, the
// extension's name in TORCH_EXTENSION_NAME (its PyInit_), torch's module
// flags, and libtorch_python after the framework's libraries. A plain library
// of the same SDK gets none of that: <torch/torch.h> is then torch's C++ API alone.
TEST(BuildPlan, APythonModuleIsBuiltForItsPythonWithItsHeadersAndName)
{
  sdk::Sdk sdk = fake_sdk_facts("2.5.1", 0, 17);
  sdk.framework = "torch";
  sdk.root = "/store/sdks/torch-2.5.1-cuda";
  project::FrameworkFlags flags = project::FrameworkTable::get("torch").flags_for(sdk.version);
  project::LibrarySpec spec;
  spec.name = "fused";
  spec.python_module = "fusedkit._C";
  spec.output = "_C.so";
  sdk::PythonBuildFacts python{"3.10", "/py/bin/python3.10", "/py/include/python3.10",
                               ".cpython-310-x86_64-linux-gnu.so"};
  builder::LibraryInput base{"fused", "_C.so", {"fusedkit/csrc/fused.cpp"}, {"/p/inc"}, {}, {"-O3"}, {}, {}};
  builder::LibraryInput module = builder::module_input(base, spec, python, flags);
  EXPECT_EQ(module.name, "fused-cp310");
  EXPECT_EQ(module.output, "_C.cpython-310-x86_64-linux-gnu.so");
  EXPECT_EQ(module.include_dirs, (std::vector<std::string>{"/p/inc", "/py/include/python3.10"}));
  builder::LibraryInput plain{"plain", "libplain.so", {"csrc/plain.cpp"}, {}, {}, {}, {}, {}};
  builder::TargetInput input{{{}, "/usr/bin/g++", {}}, "/p", {}, "/p/build/torch-2.5.1-cuda", false, {}, {}, {}, ""};
  builder::TargetPlan plan = builder::plan_target(input, {module, plain}, sdk, flags, {});
  ASSERT_EQ(plan.compiles.size(), 2U);
  const std::vector<std::string>& flags_of_module = plan.compiles[0].flags;
  auto has = [](const std::vector<std::string>& list, const std::string& flag) {
    return std::find(list.begin(), list.end(), flag) != list.end();
  };
  EXPECT_EQ(plan.compiles[0].object, "obj/fused-cp310/fusedkit/csrc/fused.cpp.o");
  EXPECT_TRUE(has(flags_of_module, "-DTORCH_EXTENSION_NAME=_C"));
  EXPECT_TRUE(has(flags_of_module, "-DTORCH_API_INCLUDE_EXTENSION_H"));
  EXPECT_TRUE(has(flags_of_module, "-I/py/include/python3.10"));
  EXPECT_FALSE(has(plan.compiles[1].flags, "-DTORCH_API_INCLUDE_EXTENSION_H"));
  EXPECT_FALSE(has(plan.compiles[1].flags, "-I/py/include/python3.10"));
  EXPECT_EQ(plan.links[0].output, "_C.cpython-310-x86_64-linux-gnu.so");
  EXPECT_EQ(plan.links[0].flags.back(), "-ltorch_python");
  EXPECT_FALSE(has(plan.links[1].flags, "-ltorch_python"));
}

// The CPythons a module is built for: the release's venv Python by default,
// else those asked for, each one the release has a wheel for.
TEST(BuildPlan, AModulesPythonsAreTheReleasesOwnOrOnesItHasWheelsFor)
{
  sdk::Sdk sdk = fake_sdk_facts("2.5.1", 0, 17);
  sdk.framework = "torch";
  EXPECT_EQ(builder::module_pythons(sdk, {}), (std::vector<std::string>{"3.10"}));
  EXPECT_EQ(builder::module_pythons(sdk, {"3.11", "3.12"}), (std::vector<std::string>{"3.11", "3.12"}));
  try {
    builder::module_pythons(sdk, {"3.8"});
    FAIL() << "torch 2.5.1 has no wheel for Python 3.8";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("--python 3.8: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cp310"), std::string::npos) << e.what();
  }
}
