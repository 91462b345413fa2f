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

// libgcc's CPU model, read by __builtin_cpu_supports and target_clones' resolvers.
constexpr std::string_view k_dispatch_symbols[] = {"__cpu_model", "__cpu_indicator_init", "__cpu_features2"};

// A PLT entry is at most endbr64 (or bnd) and then jmp [rip + d]: a few instructions in.
constexpr int k_plt_instructions = 2;

struct Function
{
  std::string name;
  uint64_t size = 0; // 0: unknown, scanned up to a return no branch jumps past
  bool scanned = false;
  bool load_time = false;
  FunctionUse use;
  std::vector<uint64_t> calls; // direct call and tail-jump targets, PLT slots resolved
};

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
    for (auto& [address, function] : m_functions) {
      scan(address, function);
      if (!function.load_time && !function.use.features.empty()) {
        m_result.other.push_back(function.use);
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
      for (uint64_t target : std::vector<uint64_t>(function.calls)) {
        reach(target);
      }
    }
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
    while (address - start < code.size() && budget_left()) {
      Decoded insn = m_disassembler.decode(code.substr(address - start), address);
      for (std::string_view feature : insn.features) {
        function.use.features.try_emplace(std::string(feature), Instruction{address, insn.text});
        m_result.features_all.insert(std::string(feature));
      }
      if (insn.cpuid) {
        evidence(fmt::format("cpuid in {}", function.name));
      }
      record_branch(insn, start, address + insn.size, function, furthest);
      address += insn.size;
      if (until_return && (insn.flow == Flow::stop || insn.flow == Flow::jump) && address > furthest) {
        break;
      }
    }
    return address;
  }

  void record_branch(const Decoded& insn, uint64_t start, uint64_t after, Function& function, uint64_t& furthest)
  {
    if (insn.slot != 0 && insn.flow != Flow::conditional) {
      auto own = m_code.own_got_functions.find(insn.slot);
      if (own != m_code.own_got_functions.end()) {
        function.calls.push_back(own->second);
      }
      return;
    }
    if (insn.target == 0) {
      return;
    }
    bool inside = insn.target >= start && (function.size == 0 || insn.target - start < function.size);
    if (insn.flow == Flow::call || !inside) {
      function.calls.push_back(insn.target);
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
          piece.use = {piece.name, at, {}};
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

// The features of `use` outside the set; empty when none.
FunctionUse
outside(const FunctionUse& use, const std::set<std::string>& cpu_features, std::set<std::string>& missing)
{
  FunctionUse result{use.function, use.address, {}};
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
  for (const auto* list : {&scan.load_time, &scan.other}) {
    for (const FunctionUse& use : *list) {
      FunctionUse needs = outside(use, cpu_features, result.missing);
      if (!needs.features.empty()) {
        (list == &scan.load_time ? result.load_time : result.other).push_back(std::move(needs));
      }
    }
  }
  return result;
}

} // namespace opkit::cpu
