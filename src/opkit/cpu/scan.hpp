#pragma once

// Which x86-64 instruction-set extensions a shared library's code uses
// (isa.hpp's names), function by function, with the code that runs while the
// library loads kept apart: a constructor that needs AVX-512 kills the
// process that loads the library on an older CPU, before any op could choose.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::cpu {

// The first instruction of a function that needs a feature.
struct Instruction
{
  uint64_t address = 0;
  std::string text; // Intel syntax: "vpaddd zmm2, zmm1, zmm0"
};

struct FunctionUse
{
  std::string function; // demangled; "<code at 0x1234>" where no symbol names it
  uint64_t address = 0;
  std::map<std::string, Instruction> features; // feature -> its first instruction in the function
  // In CpuScan::load_time_guarded: the function whose CPU test the code runs
  // behind ("Init()"), and the test ("__builtin_cpu_supports", "cpuid").
  std::string guarded_by;
  std::string test;
};

struct CpuScan
{
  // The code that runs before dlopen returns: DT_INIT, DT_INIT_ARRAY and
  // .ctors entries, ifunc resolvers, and the functions they reach by direct
  // call or jump (through the PLT only to this library's own functions).
  // Every one is listed, also those that need no extension; roots first.
  std::vector<FunctionUse> load_time;
  // Code that runs at load only behind a test of the CPU in the same
  // function (a cpuid or xgetbv, a read of libgcc's __cpu_model, or a call of
  // a function that does either, and then a conditional branch), and what is
  // called only from there: run only on a CPU that has what it tests for.
  // Each function with the features of that part only.
  std::vector<FunctionUse> load_time_guarded;
  // The other functions that need at least one extension, by address. Code
  // that no symbol covers is scanned too, in pieces named "<code at 0x...>".
  std::vector<FunctionUse> other;
  std::set<std::string> features_all;
  // The library chooses code at run time: some function executes cpuid or
  // xgetbv, it has ifunc symbols, or it uses libgcc's __cpu_model /
  // __cpu_indicator_init (__builtin_cpu_supports). A warning, not a failure:
  // `other` may hold code that never runs on a CPU without the feature.
  bool cpuid_dispatch = false;
  std::vector<std::string> dispatch_evidence; // "cpuid in foo()", "ifunc bar", "__cpu_model"
  bool complete = true;                       // false: a limit cut the scan short
};

// Caps on the work a hostile (or huge) file can cause.
struct ScanLimits
{
  size_t max_instructions = 50'000'000; // decoded, in all
  size_t max_functions = 1'000'000;     // symbols plus code found by calls
};

// Reads an x86-64 shared library (elf/elf_code) and disassembles it.
// Not ELF, truncated, malformed or another machine: Error(usage).
CpuScan
scan_library(const std::filesystem::path& library, const ScanLimits& limits = {});

// The same over bytes in memory; `name` is used in error messages (fuzzing, tests).
CpuScan
scan_library_bytes(std::string_view bytes, std::string_view name, const ScanLimits& limits = {});

// The functions that need features outside a CPU's set, each with only those
// features (and their first instructions).
struct Exceeding
{
  std::vector<FunctionUse> load_time;         // the library cannot even be loaded on that CPU
  std::vector<FunctionUse> load_time_guarded; // at load, behind a CPU test: runs only where the test allows
  std::vector<FunctionUse> other;             // fails when called, unless cpuid_dispatch keeps it from running
  std::set<std::string> missing;              // every feature outside the set, load-time or not
};

Exceeding
exceeding(const CpuScan& scan, const std::set<std::string>& cpu_features);

} // namespace opkit::cpu
