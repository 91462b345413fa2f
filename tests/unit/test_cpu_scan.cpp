// The CPU-feature scan (cpu/scan over elf/elf_code): libraries compiled
// here with the system compiler (never run: the machine may lack AVX-512),
// load-time code told apart from the rest, baselines from configs/cpu/.

#include "opkit/cpu/isa.hpp"
#include "opkit/cpu/scan.hpp"
#include "opkit/project/cpu_baselines.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

namespace opkit::cpu {

namespace {

namespace stdfs = std::filesystem;

// An AVX-512 constructor, an AVX2 function nothing calls at load time, a
// plain one, and an EVEX instruction capstone 4 did not know (vpternlogd) followed by AVX2.
constexpr const char* k_mixed_source = R"(
__attribute__((constructor, target("avx512f"))) static void opkit_init_512(void)
{
  asm volatile("vpaddd %%zmm0, %%zmm1, %%zmm2" ::: "xmm2");
}
__attribute__((target("avx2"))) void opkit_avx2_kernel(void)
{
  asm volatile("vpaddd %%ymm0, %%ymm1, %%ymm2" ::: "xmm2");
}
__attribute__((target("avx512f,avx2"))) void opkit_ternlog(void)
{
  asm volatile("vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n\tvpaddd %%ymm3, %%ymm4, %%ymm5" ::: "xmm0", "xmm5");
}
int opkit_plain(int x) { return x * 3 + 1; }
)";

// A constructor that reaches AVX2 code only through calls: a static helper
// (a direct call) and an exported one (through the PLT in a -fPIC library).
constexpr const char* k_calling_source = R"(
__attribute__((target("avx2"), noinline)) static void opkit_static_helper(void)
{
  asm volatile("vpaddd %%ymm0, %%ymm1, %%ymm2" ::: "xmm2");
}
__attribute__((target("bmi2"), noinline)) void opkit_exported_helper(void)
{
  asm volatile("shlx %%eax, %%ebx, %%ecx" ::: "ecx");
}
__attribute__((constructor)) static void opkit_init(void)
{
  opkit_static_helper();
  opkit_exported_helper();
}
)";

// Plain C++ with a static constructor, compiled for the default target.
constexpr const char* k_plain_source = R"(
#include <string>
#include <vector>
static std::vector<std::string> names{"a", "b"};
int opkit_count(const char* text) { names.emplace_back(text); return static_cast<int>(names.size()); }
)";

// Chooses code with __builtin_cpu_supports.
constexpr const char* k_dispatch_source = R"(
__attribute__((target("avx2"))) static int opkit_fast(int x) { asm volatile("vpaddd %%ymm0, %%ymm1, %%ymm2" ::: "xmm2"); return x; }
int opkit_pick(int x) { return __builtin_cpu_supports("avx2") ? opkit_fast(x) : x + 1; }
)";

struct Fixtures
{
  fs::TempDir dir{"opkit-cpu-scan-test"};
  stdfs::path mixed, mixed_stripped, calling, plain, dispatch;
  std::string error;

  Fixtures()
  {
    mixed = build("mixed", "c", k_mixed_source);
    calling = build("calling", "c", k_calling_source);
    plain = build("plain", "c++", k_plain_source);
    dispatch = build("dispatch", "c", k_dispatch_source);
    mixed_stripped = dir.path() / "libmixed-stripped.so";
    run(fmt::format("strip --strip-all -o '{}' '{}'", mixed_stripped.string(), mixed.string()));
  }

  stdfs::path build(const std::string& name, const std::string& language, const char* source)
  {
    stdfs::path input = dir.path() / (name + (language == "c" ? ".c" : ".cpp"));
    stdfs::path output = dir.path() / ("lib" + name + ".so");
    fs::write_file_atomic(input, source);
    run(fmt::format("c++ -x {} -O2 -shared -fPIC -o '{}' '{}'", language, output.string(), input.string()));
    return output;
  }

  void run(const std::string& arguments)
  {
    if (!error.empty()) {
      return;
    }
    stdfs::path log = dir.path() / "compile.log";
    std::string command = fmt::format("{} >'{}' 2>&1", arguments, log.string());
    int status = std::system(command.c_str());
    if (status != 0) {
      error = fmt::format("`{}` failed with status {}:\n{}", command, status, fs::read_file(log));
    }
  }
};

const Fixtures&
fixtures()
{
  static Fixtures instance;
  return instance;
}

const FunctionUse*
find(const std::vector<FunctionUse>& uses, const std::string& function)
{
  auto found = std::find_if(uses.begin(), uses.end(), [&](const FunctionUse& use) { return use.function == function; });
  return found == uses.end() ? nullptr : &*found;
}

std::string
names(const std::vector<FunctionUse>& uses)
{
  std::string text;
  for (const FunctionUse& use : uses) {
    text += use.function + " {";
    for (const auto& [feature, instruction] : use.features) {
      text += fmt::format(" {}: {:#x} {};", feature, instruction.address, instruction.text);
    }
    text += " }\n";
  }
  return text;
}

} // namespace

TEST(CpuScan, Avx512ConstructorIsLoadTimeAndAvx2FunctionIsNot)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.mixed);
  SCOPED_TRACE("load time:\n" + names(scan.load_time) + "other:\n" + names(scan.other));
  EXPECT_TRUE(scan.complete);
  const FunctionUse* init = find(scan.load_time, "opkit_init_512");
  ASSERT_NE(init, nullptr);
  ASSERT_EQ(init->features.count("avx512f"), 1u);
  EXPECT_EQ(init->features.at("avx512f").text.rfind("vpaddd zmm", 0), 0u) << init->features.at("avx512f").text;
  EXPECT_EQ(find(scan.other, "opkit_init_512"), nullptr);

  const FunctionUse* kernel = find(scan.other, "opkit_avx2_kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->features.count("avx2"), 1u);
  EXPECT_EQ(find(scan.load_time, "opkit_avx2_kernel"), nullptr);
  EXPECT_EQ(find(scan.other, "opkit_plain"), nullptr);

  // vpternlogd (EVEX, which capstone 4 could not decode): AVX-512, named as
  // it is, and the AVX2 instruction after it is still read.
  const FunctionUse* ternlog = find(scan.other, "opkit_ternlog");
  ASSERT_NE(ternlog, nullptr);
  ASSERT_EQ(ternlog->features.count("avx512f"), 1u);
  EXPECT_EQ(ternlog->features.at("avx512f").text.rfind("vpternlogd zmm0, zmm0, zmm0", 0), 0u);
  EXPECT_EQ(ternlog->features.count("avx2"), 1u);

  EXPECT_FALSE(scan.cpuid_dispatch);
  for (const char* feature : {"avx512f", "avx2"}) {
    EXPECT_EQ(scan.features_all.count(feature), 1u) << feature;
  }
}

TEST(CpuScan, ExceedingSeparatesLoadTimeFromOther)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.mixed);
  Exceeding v3 = exceeding(scan, project::cpu_baseline("x86-64-v3").features);
  ASSERT_EQ(v3.load_time.size(), 1u) << names(v3.load_time);
  EXPECT_EQ(v3.load_time[0].function, "opkit_init_512");
  EXPECT_EQ(v3.missing, (std::set<std::string>{"avx512f"}));
  EXPECT_EQ(find(v3.other, "opkit_avx2_kernel"), nullptr); // AVX2 is in v3
  EXPECT_NE(find(v3.other, "opkit_ternlog"), nullptr);

  Exceeding v2 = exceeding(scan, project::cpu_baseline("x86-64-v2").features);
  EXPECT_NE(find(v2.other, "opkit_avx2_kernel"), nullptr);
  EXPECT_EQ(v2.missing, (std::set<std::string>{"avx", "avx2", "avx512f"})); // avx: vzeroupper

  Exceeding v4 = exceeding(scan, project::cpu_baseline("x86-64-v4").features);
  EXPECT_TRUE(v4.load_time.empty() && v4.other.empty()) << names(v4.load_time) << names(v4.other);
}

TEST(CpuScan, StrippedLibraryStillShowsLoadTimeCode)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.mixed_stripped);
  SCOPED_TRACE("load time:\n" + names(scan.load_time) + "other:\n" + names(scan.other));
  auto load_512 = std::find_if(scan.load_time.begin(), scan.load_time.end(),
                               [](const FunctionUse& use) { return use.features.count("avx512f") != 0; });
  ASSERT_NE(load_512, scan.load_time.end());
  EXPECT_EQ(load_512->function.rfind("<code at 0x", 0), 0u);
  EXPECT_NE(find(scan.other, "opkit_avx2_kernel"), nullptr); // exported: .dynsym names it
}

TEST(CpuScan, ConstructorReachesHelpersThroughCalls)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.calling);
  SCOPED_TRACE("load time:\n" + names(scan.load_time) + "other:\n" + names(scan.other));
  ASSERT_NE(find(scan.load_time, "opkit_init"), nullptr);
  const FunctionUse* direct = find(scan.load_time, "opkit_static_helper");
  ASSERT_NE(direct, nullptr);
  EXPECT_EQ(direct->features.count("avx2"), 1u);
  const FunctionUse* plt = find(scan.load_time, "opkit_exported_helper");
  ASSERT_NE(plt, nullptr);
  ASSERT_EQ(plt->features.count("bmi2"), 1u);
  EXPECT_EQ(plt->features.at("bmi2").text.rfind("shlx", 0), 0u);
  EXPECT_TRUE(scan.other.empty());
}

TEST(CpuScan, PlainLibraryNeedsNothingAboveX8664)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.plain);
  EXPECT_TRUE(scan.features_all.empty()) << names(scan.load_time) << names(scan.other);
  EXPECT_FALSE(scan.load_time.empty()); // the static constructor
  Exceeding v1 = exceeding(scan, project::cpu_baseline("x86-64").features);
  EXPECT_TRUE(v1.load_time.empty() && v1.other.empty() && v1.missing.empty());
  EXPECT_FALSE(scan.cpuid_dispatch);
}

TEST(CpuScan, BuiltinCpuSupportsIsDispatch)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  CpuScan scan = scan_library(f.dispatch);
  EXPECT_TRUE(scan.cpuid_dispatch);
  EXPECT_FALSE(scan.dispatch_evidence.empty());
  EXPECT_EQ(scan.features_all.count("avx2"), 1u);
}

TEST(CpuScan, InstructionLimitEndsTheScan)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ScanLimits limits;
  limits.max_instructions = 10;
  EXPECT_FALSE(scan_library(f.mixed, limits).complete);
}

TEST(CpuScan, BadFilesAreErrorsNeverCrashes)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  EXPECT_THROW(scan_library_bytes("garbage, not ELF", "garbage.so"), Error);
  std::string bytes = fs::read_file(f.mixed);
  for (size_t size : {size_t{0}, size_t{16}, size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      scan_library_bytes(bytes.substr(0, size), "truncated.so");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::usage) << size << ": " << error.what();
    }
  }
  EXPECT_THROW(scan_library_bytes(bytes.substr(0, bytes.size() / 2), "truncated.so"), Error);
  std::mt19937 rng(20261130); // fixed seed: failures must reproduce
  size_t rejected = 0;
  for (int variant = 0; variant < 1500; ++variant) {
    std::string damaged = bytes;
    for (size_t i = 0, n = 1 + rng() % 8; i < n; ++i) {
      // The first 4 KiB hold the headers, the symbol tables and the dynamic section's neighbours.
      size_t position = rng() % std::min<size_t>(damaged.size(), rng() % 2 ? 4096 : damaged.size());
      damaged[position] = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
    }
    try {
      scan_library_bytes(damaged, "fuzz.so");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::usage) << "variant " << variant << ": " << error.what();
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0u);
}

TEST(CpuBaselines, LevelsNestAndNameKnownFeatures)
{
  const std::vector<project::CpuBaseline>& all = project::cpu_baselines();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].name, "x86-64");
  EXPECT_EQ(all[3].march, "x86-64-v4");
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_TRUE(std::includes(all[i].features.begin(), all[i].features.end(), all[i - 1].features.begin(),
                              all[i - 1].features.end()))
      << all[i].name;
    EXPECT_GT(all[i].features.size(), all[i - 1].features.size());
  }
  const std::set<std::string>& v3 = project::cpu_baseline("x86-64-v3").features;
  const std::set<std::string>& v4 = project::cpu_baseline("x86-64-v4").features;
  EXPECT_EQ(v3.count("avx2"), 1u);
  EXPECT_EQ(v3.count("avx512f"), 0u);
  EXPECT_EQ(v4.count("avx512f"), 1u);
  EXPECT_EQ(project::cpu_baseline("x86-64-v2").features.count("popcnt"), 1u);
  for (const project::CpuBaseline& baseline : all) {
    for (const std::string& feature : baseline.features) {
      EXPECT_TRUE(is_known_feature(feature)) << baseline.name << ": " << feature;
    }
  }
}

TEST(CpuBaselines, UnknownNameIsAUsageErrorNamingTheKnownOnes)
{
  try {
    project::cpu_baseline("x86-64-v5");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::usage);
    EXPECT_NE(std::string(error.what()).find("x86-64-v4"), std::string::npos) << error.what();
  }
}

TEST(CpuIsa, CpuinfoFlagsMapToFeatureNames)
{
  EXPECT_EQ(feature_from_cpuinfo_flag("pni"), "sse3");
  EXPECT_EQ(feature_from_cpuinfo_flag("sse4_2"), "sse4.2");
  EXPECT_EQ(feature_from_cpuinfo_flag("avx512bw"), "avx512bw");
  EXPECT_EQ(feature_from_cpuinfo_flag("bmi1"), "bmi");
  EXPECT_EQ(feature_from_cpuinfo_flag("amx_tile"), "amx_tile"); // named by the scan as /proc/cpuinfo names it
}

} // namespace opkit::cpu

namespace opkit::cpu {

namespace {

// Constructors that reach AVX-512 code behind a CPU test (libgcc's
// __builtin_cpu_supports, cpuid.h, a helper doing either), and two that test
// the CPU but run it either way: after an unrelated test's `if`, and after
// an if/else. Each shape compiled at -O0 and -O2.
constexpr const char* k_guarded_source = R"(
#include <cpuid.h>
int lanes, flag;
__attribute__((target("avx512f"), noinline)) void opkit_wide(int seed)
{
  asm volatile("vpbroadcastd %0, %%zmm0" :: "r"(seed) : "xmm0");
  lanes = seed;
}
__attribute__((noinline)) int opkit_has_512(void) { return __builtin_cpu_supports("avx512f"); }
static int opkit_cpuid_512(void)
{
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F);
}
__attribute__((constructor)) static void opkit_init(void)
{
#if SHAPE == 0
  if (__builtin_cpu_supports("avx512f")) opkit_wide(1);
#elif SHAPE == 1
  if (opkit_has_512()) opkit_wide(1); else lanes = 1;
#elif SHAPE == 2
  if (opkit_cpuid_512()) opkit_wide(1);
#elif SHAPE == 3
  if (__builtin_cpu_supports("sse4.2")) flag = 1;
  opkit_wide(2);
#else
  if (__builtin_cpu_supports("avx512f")) flag = 1; else flag = 2;
  opkit_wide(flag);
#endif
}
)";

CpuScan
scan_shape(int shape, const char* level)
{
  fs::TempDir dir{"opkit-cpu-guard-test"};
  stdfs::path input = dir.path() / "guarded.c";
  stdfs::path output = dir.path() / "libguarded.so";
  fs::write_file_atomic(input, k_guarded_source);
  std::string command =
    fmt::format("cc {} -DSHAPE={} -shared -fPIC -o '{}' '{}'", level, shape, output.string(), input.string());
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return scan_library(output);
}

} // namespace

TEST(CpuScan, CodeBehindACpuTestAtLoadIsKeptApart)
{
  for (const char* level : {"-O0", "-O2"}) {
    for (int shape = 0; shape < 5; ++shape) {
      SCOPED_TRACE(fmt::format("shape {} at {}", shape, level));
      CpuScan scan = scan_shape(shape, level);
      SCOPED_TRACE("load time:\n" + names(scan.load_time) + "guarded:\n" + names(scan.load_time_guarded));
      const FunctionUse* unguarded = find(scan.load_time, "opkit_wide");
      const FunctionUse* guarded = find(scan.load_time_guarded, "opkit_wide");
      if (shape < 3) {
        EXPECT_TRUE(unguarded == nullptr || unguarded->features.empty());
        ASSERT_NE(guarded, nullptr);
        EXPECT_EQ(guarded->features.count("avx512f"), 1u);
        EXPECT_FALSE(guarded->test.empty());
        EXPECT_FALSE(guarded->guarded_by.empty());
        EXPECT_EQ(find(scan.other, "opkit_wide"), nullptr); // not also a plain warning
      } else {
        ASSERT_NE(unguarded, nullptr); // runs on every CPU: still a load-time need
        EXPECT_EQ(unguarded->features.count("avx512f"), 1u);
        EXPECT_EQ(guarded, nullptr);
      }
    }
  }
}

} // namespace opkit::cpu
