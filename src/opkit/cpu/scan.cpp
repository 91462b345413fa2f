#include "opkit/cpu/scan.hpp"

#include "opkit/check/checker.hpp"
#include "opkit/elf/elf_code.hpp"
#include "opkit/cpu/disassembler.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <utility>

namespace opkit::cpu {

namespace {

using detail::Decoded;
using detail::Flow;
using elf::CodeRegion;
using elf::ElfCode;

// libgcc's CPU model (elf::k_cpu_model_data), read by __builtin_cpu_supports and
// target_clones' resolvers, and the function that fills it.
constexpr std::string_view k_dispatch_symbols[] = {elf::k_cpu_model_data[0], "__cpu_indicator_init",
                                                   elf::k_cpu_model_data[1]};

// A PLT entry is at most endbr64 (or bnd) and then jmp [rip + d]: a few instructions in.
constexpr int k_plt_instructions = 2;

struct Function
{
  std::string name;
  uint64_t size = 0; // 0: unknown, scanned up to a return no branch jumps past
  bool scanned = false;
  bool load_time = false;
  bool behind_test = false; // reached at load only behind a CPU test
  FunctionUse use;
  std::vector<uint64_t> calls; // direct call and tail-jump targets, PLT slots resolved
  // Of a function that runs at load: what follows a CPU test's branch.
  std::map<std::string, Instruction> guarded_features;
  std::vector<uint64_t> guarded_calls;
  std::string test;   // that test: "__builtin_cpu_supports", "cpuid", "HasAvx512()"
  int tests_cpu = -1; // whether its own code asks the CPU (-1: not looked at yet)
};

// How far a function is read to learn whether it asks the CPU (a helper
// such as `bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }`).
constexpr int k_test_instructions = 256;
constexpr int k_test_depth = 3; // calls followed from such a helper

class Scanner
{
public:
  Scanner(const ElfCode& code, const ScanLimits& limits, CpuScan& result)
    : m_code(code)
    , m_limits(limits)
    , m_result(result)
  {
    for (const elf::CodeFunction& function : code.functions) {
      if (m_functions.size() >= m_limits.max_functions) {
        m_result.complete = false;
        break;
      }
      Function& added = m_functions[function.address];
      added.name = check::demangle(function.name);
      added.size = function.size;
      if (function.ifunc) {
        m_roots.push_back(function.address);
        evidence(fmt::format("ifunc {}", added.name));
      }
    }
    m_roots.insert(m_roots.begin(), code.init_functions.begin(), code.init_functions.end());
  }

  void run()
  {
    scan_load_time();
    scan_behind_tests();
    for (auto& [address, function] : m_functions) {
      scan(address, function);
      if (!function.load_time && !function.behind_test) {
        function.use.features.insert(function.guarded_features.begin(), function.guarded_features.end());
        if (!function.use.features.empty()) {
          m_result.other.push_back(function.use);
        }
      }
    }
    scan_gaps();
    std::sort(m_result.other.begin(), m_result.other.end(),
              [](const FunctionUse& a, const FunctionUse& b) { return a.address < b.address; });
    for (std::string_view name : k_dispatch_symbols) {
      if (m_code.symbol_names.count(std::string(name)) != 0) {
        evidence(std::string(name));
      }
    }
    m_result.cpuid_dispatch = !m_result.dispatch_evidence.empty();
  }

private:
  void evidence(std::string text)
  {
    std::vector<std::string>& all = m_result.dispatch_evidence;
    if (std::find(all.begin(), all.end(), text) == all.end()) {
      all.push_back(std::move(text));
    }
  }

  const CodeRegion* region_of(uint64_t address) const
  {
    for (const CodeRegion& region : m_code.regions) {
      if (address >= region.address && address - region.address < region.bytes.size()) {
        return &region;
      }
    }
    return nullptr;
  }

  // The bytes from `address` to `end` (or its region's end).
  std::string_view bytes_at(uint64_t address, uint64_t end) const
  {
    const CodeRegion* region = region_of(address);
    if (!region) {
      return {};
    }
    uint64_t offset = address - region->address;
    uint64_t length = std::min<uint64_t>(region->bytes.size() - offset, end > address ? end - address : 0);
    return std::string_view(region->bytes).substr(offset, length);
  }

  bool budget_left()
  {
    if (m_instructions >= m_limits.max_instructions) {
      m_result.complete = false;
      return false;
    }
    ++m_instructions;
    return true;
  }

  // What a PLT entry (endbr64 or bnd, then jmp [rip + d]) at `address` leads to.
  enum class Plt
  {
    none,     // not a PLT entry
    own,      // this library's function, in `own`
    external, // another library's, or one the loader binds elsewhere
  };
  Plt through_plt(uint64_t address, uint64_t& own)
  {
    for (int i = 0; i < k_plt_instructions; ++i) {
      std::string_view code = bytes_at(address, UINT64_MAX);
      if (code.empty() || !budget_left()) {
        return Plt::none;
      }
      Decoded insn = m_disassembler.decode(code, address);
      if (insn.flow == Flow::jump && insn.slot != 0) {
        auto found = m_code.own_got_functions.find(insn.slot);
        if (found == m_code.own_got_functions.end()) {
          return Plt::external;
        }
        own = found->second;
        return Plt::own;
      }
      if (!insn.valid || insn.flow != Flow::next) {
        return Plt::none;
      }
      address += insn.size;
    }
    return Plt::none;
  }

  // The function a call target belongs to: a symbol's function that holds
  // it, this library's function behind a PLT entry, or new code found here.
  std::optional<uint64_t> function_at(uint64_t target)
  {
    auto after = m_functions.upper_bound(target);
    if (after != m_functions.begin()) {
      auto holder = std::prev(after);
      if (holder->first == target || target - holder->first < holder->second.size) {
        return holder->first;
      }
    }
    if (!region_of(target)) {
      return std::nullopt;
    }
    uint64_t own = 0;
    switch (through_plt(target, own)) {
      case Plt::own:
        return own != target ? function_at(own) : std::nullopt;
      case Plt::external:
        return std::nullopt;
      case Plt::none:
        break;
    }
    if (m_functions.size() >= m_limits.max_functions) {
      m_result.complete = false;
      return std::nullopt;
    }
    m_functions[target].name = fmt::format("<code at {:#x}>", target);
    return target;
  }

  void scan_load_time()
  {
    std::deque<uint64_t> queue;
    auto reach = [&](uint64_t target) {
      std::optional<uint64_t> start = function_at(target);
      if (start && !m_functions[*start].load_time) {
        m_functions[*start].load_time = true;
        queue.push_back(*start);
      }
    };
    for (uint64_t root : m_roots) {
      reach(root);
    }
    while (!queue.empty()) {
      uint64_t start = queue.front();
      queue.pop_front();
      Function& function = m_functions[start];
      scan(start, function);
      m_result.load_time.push_back(function.use);
      m_load_time_order.push_back(start);
      for (uint64_t target : std::vector<uint64_t>(function.calls)) {
        reach(target);
      }
    }
  }

  // What load-time code runs only after testing the CPU, and all that the
  // code reached from there calls (unless it also runs unguarded).
  void scan_behind_tests()
  {
    struct Reached
    {
      uint64_t target;
      std::string by;
      std::string test;
    };
    std::deque<Reached> queue;
    for (uint64_t start : m_load_time_order) {
      Function& function = m_functions[start];
      if (!function.guarded_features.empty()) {
        m_result.load_time_guarded.push_back(
          {function.name, start, function.guarded_features, function.name, function.test});
      }
      for (uint64_t target : function.guarded_calls) {
        queue.push_back({target, function.name, function.test});
      }
    }
    while (!queue.empty()) {
      Reached reached = queue.front();
      queue.pop_front();
      std::optional<uint64_t> start = function_at(reached.target);
      if (!start) {
        continue;
      }
      Function& function = m_functions[*start];
      if (function.load_time || function.behind_test) {
        continue;
      }
      function.behind_test = true;
      scan(*start, function);
      FunctionUse use = function.use;
      use.features.insert(function.guarded_features.begin(), function.guarded_features.end());
      use.guarded_by = reached.by;
      use.test = reached.test;
      if (!use.features.empty()) {
        m_result.load_time_guarded.push_back(std::move(use));
      }
      for (const auto* calls : {&function.calls, &function.guarded_calls}) {
        for (uint64_t target : std::vector<uint64_t>(*calls)) {
          queue.push_back({target, reached.by, reached.test});
        }
      }
    }
  }

  bool reads_cpu_model(const Decoded& insn) const
  {
    if (insn.rip_data == 0 || m_code.cpu_model_data.empty()) {
      return false;
    }
    auto after = m_code.cpu_model_data.upper_bound(insn.rip_data);
    if (after == m_code.cpu_model_data.begin()) {
      return false;
    }
    auto model = std::prev(after);
    return insn.rip_data - model->first < model->second;
  }

  // The CPU test an instruction is, if any: "cpuid" (or xgetbv), a read of
  // libgcc's __cpu_model, or a call of a function whose own code does either.
  std::string test_in(const Decoded& insn)
  {
    if (insn.cpuid) {
      return "cpuid";
    }
    if (reads_cpu_model(insn)) {
      return "__builtin_cpu_supports";
    }
    if (insn.flow != Flow::call) {
      return {};
    }
    std::optional<uint64_t> target = branch_target(insn);
    std::optional<uint64_t> callee = target ? function_at(*target) : std::nullopt;
    if (!callee) {
      return {};
    }
    Function& function = m_functions[*callee];
    return asks_cpu(*callee, function) ? function.name : std::string();
  }

  // Whether a function's first instructions ask the CPU, or call a function
  // that does (cpuid.h's __get_cpuid_count calls __get_cpuid_max at -O0).
  bool asks_cpu(uint64_t start, Function& function, int depth = 0)
  {
    if (function.tests_cpu >= 0) {
      return function.tests_cpu == 1;
    }
    function.tests_cpu = 0; // a call back into it while it is read answers no
    std::string_view code = bytes_at(start, function.size != 0 ? start + function.size : UINT64_MAX);
    uint64_t address = start;
    bool asks = false;
    for (int i = 0; i < k_test_instructions && !asks && address - start < code.size() && budget_left(); ++i) {
      Decoded insn = m_disassembler.decode(code.substr(address - start), address);
      asks = insn.cpuid || reads_cpu_model(insn);
      if (!asks && insn.flow == Flow::call && insn.target != 0 && depth < k_test_depth) {
        std::optional<uint64_t> callee = function_at(insn.target);
        asks = callee && asks_cpu(*callee, m_functions[*callee], depth + 1);
      }
      address += insn.size;
      if (function.size == 0 && insn.flow == Flow::stop) {
        break;
      }
    }
    function.tests_cpu = asks ? 1 : 0;
    return asks;
  }

  void scan(uint64_t start, Function& function)
  {
    if (function.scanned) {
      return;
    }
    function.scanned = true;
    function.use.function = function.name;
    function.use.address = start;
    auto next = m_functions.upper_bound(start);
    uint64_t bound = next == m_functions.end() ? UINT64_MAX : next->first;
    uint64_t end = function.size != 0 ? start + function.size : bound;
    uint64_t stop = sweep(start, end, function.size == 0, function);
    m_covered.emplace_back(start, stop);
  }

  // Decodes [start, end); with `until_return`, stops after a return or jump
  // that no earlier branch of the function jumps past. Returns where it stopped.
  uint64_t sweep(uint64_t start, uint64_t end, bool until_return, Function& function)
  {
    std::string_view code = bytes_at(start, end);
    uint64_t address = start;
    uint64_t furthest = start; // the furthest branch target inside the function so far
    // Load-time code: the code a CPU test's branch decides on is kept apart.
    // A forward branch after a test guards the code it skips; when that code
    // ends in a return, the rest of the function is the other answer's (both
    // are guarded); when it ends in a jump past the target, the target's code
    // up to there is (if/else). Where the skipped code falls into the target,
    // the target's code runs either way.
    bool watch = function.load_time || function.behind_test;
    std::string test;
    bool guarded = false;
    uint64_t target = 0;    // the guarding branch's target, until the sweep reaches it
    uint64_t guard_end = 0; // where the guarded code ends
    Decoded previous;
    while (address - start < code.size() && budget_left()) {
      if (target != 0 && address >= target) {
        target = 0;
        if (previous.flow == Flow::stop) {
          guard_end = UINT64_MAX;
        } else if (previous.flow == Flow::jump && previous.target > address) {
          guard_end = previous.target;
        } else {
          guard_end = address;
        }
      }
      if (guarded && target == 0 && address >= guard_end) {
        guarded = false;
        test.clear();
      }
      Decoded insn = m_disassembler.decode(code.substr(address - start), address);
      for (std::string_view feature : insn.features) {
        (guarded ? function.guarded_features : function.use.features)
          .try_emplace(std::string(feature), Instruction{address, insn.text});
        m_result.features_all.insert(std::string(feature));
      }
      if (insn.cpuid) {
        evidence(fmt::format("cpuid in {}", function.name));
      }
      if (watch && !guarded) {
        if (test.empty()) {
          test = test_in(insn);
        } else if (insn.flow == Flow::conditional && insn.target > address) {
          guarded = true;
          function.test = test;
          target = insn.target;
        }
      }
      record_branch(insn, start, address + insn.size, guarded ? function.guarded_calls : function.calls, function,
                    furthest);
      address += insn.size;
      if (until_return && (insn.flow == Flow::stop || insn.flow == Flow::jump) && address > furthest) {
        break;
      }
      previous = std::move(insn);
    }
    return address;
  }

  // Where a call or jump leads in this library: its direct target, or this
  // library's function bound to the GOT slot it goes through; nothing for
  // another library's.
  std::optional<uint64_t> branch_target(const Decoded& insn) const
  {
    if (insn.slot != 0) {
      auto own = m_code.own_got_functions.find(insn.slot);
      return own != m_code.own_got_functions.end() ? std::optional<uint64_t>(own->second) : std::nullopt;
    }
    return insn.target != 0 ? std::optional<uint64_t>(insn.target) : std::nullopt;
  }

  void record_branch(const Decoded& insn, uint64_t start, uint64_t after, std::vector<uint64_t>& calls,
                     const Function& function, uint64_t& furthest)
  {
    if (insn.slot != 0 && insn.flow != Flow::conditional) {
      if (std::optional<uint64_t> own = branch_target(insn)) {
        calls.push_back(*own);
      }
      return;
    }
    if (insn.target == 0) {
      return;
    }
    bool inside = insn.target >= start && (function.size == 0 || insn.target - start < function.size);
    if (insn.flow == Flow::call || !inside) {
      calls.push_back(insn.target);
    } else if (insn.target >= after) {
      furthest = std::max(furthest, insn.target + 1);
    }
  }

  // Code no function covered (a stripped library's local functions): scanned
  // in pieces between the covered ranges.
  void scan_gaps()
  {
    std::sort(m_covered.begin(), m_covered.end());
    for (const CodeRegion& region : m_code.regions) {
      uint64_t at = region.address;
      uint64_t end = region.address + region.bytes.size();
      auto covered = m_covered.begin();
      while (at < end) {
        while (covered != m_covered.end() && covered->second <= at) {
          ++covered;
        }
        uint64_t gap_end = covered == m_covered.end() ? end : std::min(end, covered->first);
        if (gap_end > at) {
          Function piece;
          piece.name = fmt::format("<code at {:#x}>", at);
          piece.size = gap_end - at;
          piece.use.function = piece.name;
          piece.use.address = at;
          sweep(at, gap_end, false, piece);
          if (!piece.use.features.empty()) {
            m_result.other.push_back(std::move(piece.use));
          }
        }
        if (covered == m_covered.end()) {
          break;
        }
        at = std::max(at, covered->second);
      }
    }
  }

  const ElfCode& m_code;
  const ScanLimits& m_limits;
  CpuScan& m_result;
  detail::Disassembler m_disassembler;
  std::map<uint64_t, Function> m_functions;
  std::vector<uint64_t> m_roots;
  std::vector<uint64_t> m_load_time_order;              // the functions that run at load, as found
  std::vector<std::pair<uint64_t, uint64_t>> m_covered; // [start, end) scanned
  size_t m_instructions = 0;
};

CpuScan
scan_code(const ElfCode& code, const ScanLimits& limits)
{
  CpuScan result;
  Scanner(code, limits, result).run();
  return result;
}

// `use` with only its features outside the set; none when all are inside.
FunctionUse
outside(const FunctionUse& use, const std::set<std::string>& cpu_features, std::set<std::string>& missing)
{
  FunctionUse result = use;
  result.features.clear();
  for (const auto& [feature, instruction] : use.features) {
    if (cpu_features.count(feature) == 0) {
      result.features.emplace(feature, instruction);
      missing.insert(feature);
    }
  }
  return result;
}

} // namespace

CpuScan
scan_library(const std::filesystem::path& library, const ScanLimits& limits)
{
  return scan_code(elf::read_elf_code(library), limits);
}

CpuScan
scan_library_bytes(std::string_view bytes, std::string_view name, const ScanLimits& limits)
{
  return scan_code(elf::read_elf_code_bytes(bytes, name), limits);
}

Exceeding
exceeding(const CpuScan& scan, const std::set<std::string>& cpu_features)
{
  Exceeding result;
  std::pair<const std::vector<FunctionUse>*, std::vector<FunctionUse>*> lists[] = {
    {&scan.load_time, &result.load_time},
    {&scan.load_time_guarded, &result.load_time_guarded},
    {&scan.other, &result.other},
  };
  for (auto [from, to] : lists) {
    for (const FunctionUse& use : *from) {
      FunctionUse needs = outside(use, cpu_features, result.missing);
      if (!needs.features.empty()) {
        to->push_back(std::move(needs));
      }
    }
  }
  return result;
}

} // namespace opkit::cpu
