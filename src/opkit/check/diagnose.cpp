#include "opkit/check/diagnose.hpp"

#include "opkit/elf/mangled.hpp"
#include "opkit/project/framework_table.hpp"

#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace opkit::check {

namespace {

std::string
replace_all(std::string text, const std::string& from, const std::string& to)
{
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

// What changes between TF versions without changing the API: the namespace of
// Status (tensorflow:: -> tsl:: -> absl::) and abseil's inline lts_YYYYMMDD namespace.
std::string
without_version_skew(const std::string& demangled)
{
  std::string text = elf::without_abseil_lts(demangled);
  for (const char* status : {"tensorflow::Status", "tsl::Status", "absl::Status"}) {
    text = replace_all(text, status, "Status");
  }
  return replace_all(text, "tsl::", "tensorflow::");
}

// An abseil symbol from another lts release than the framework's: built against other headers.
bool
other_abseil(const SymbolRef& symbol, const std::unordered_set<std::string>& framework_abseil)
{
  std::string lts = framework_abseil.empty() ? std::string() : elf::abseil_lts(symbol.mangled);
  return !lts.empty() && framework_abseil.count(lts) == 0;
}

// Normalised names of the framework exports that could be an unresolved
// symbol's twin, and the abseil lts namespace the frameworks use.
struct ExportIndex
{
  std::unordered_set<std::string> by_abi;
  std::unordered_set<std::string> by_string_view;
  std::unordered_set<std::string> by_tsl;
  std::unordered_set<std::string> abseil; // "lts_20220623"; read only when an unresolved symbol names one
};

// One pass over the exports. Only those that share a name key (mangled.hpp)
// with an unresolved symbol can be its twin, so only those are demangled: a
// refused check costs about what a passing one does, not a demangling of
// every export.
ExportIndex
index_exports(const std::vector<const ProfileLibrary*>& frameworks, const std::vector<SymbolRef>& unresolved)
{
  std::unordered_set<std::string> keys;
  bool want_abseil = false;
  for (const SymbolRef& symbol : unresolved) {
    if (std::string key = elf::name_key(symbol.mangled); !key.empty()) {
      keys.insert(std::move(key));
    }
    want_abseil = want_abseil || !elf::abseil_lts(symbol.mangled).empty();
  }
  ExportIndex index;
  std::string key;
  // A framework is built against one abseil release: the first export naming one says which.
  bool abseil_taken = !want_abseil;
  auto names_abseil = [&](std::string_view name) {
    if (abseil_taken || name.find("12lts_") == std::string_view::npos || elf::abseil_lts(name).empty()) {
      return false;
    }
    abseil_taken = true;
    return true;
  };
  auto shares_key = [&](std::string_view name) {
    elf::name_key(name, key);
    return !key.empty() && keys.count(key) != 0;
  };
  for (const ProfileLibrary* library : frameworks) {
    library->symbols.for_each_matching(
      [&](std::string_view name) { return starts_with(name, "_Z") && (names_abseil(name) || shares_key(name)); },
      [&](std::string_view name, const elf::SymbolDefinition&) {
        if (std::string lts = elf::abseil_lts(name); !lts.empty() && index.abseil.empty()) {
          index.abseil.insert(std::move(lts));
        }
        if (!shares_key(name)) {
          return;
        }
        std::string plain = without_abi_tags(demangle(std::string(name)));
        std::string view = without_string_view_flavour(plain);
        index.by_tsl.insert(without_version_skew(view));
        index.by_string_view.insert(std::move(view));
        index.by_abi.insert(std::move(plain));
      });
  }
  return index;
}

// A symbol in one of the framework's namespaces (configs/frameworks/: symbol_namespaces).
bool
is_framework_symbol(const SymbolRef& symbol, const std::vector<std::string>& namespaces)
{
  return std::any_of(namespaces.begin(), namespaces.end(),
                     [&](const std::string& ns) { return symbol.mangled.find(ns) != std::string::npos; });
}

Finding
make_finding(const std::string& kind, std::vector<SymbolRef> symbols, const CheckTarget& target)
{
  Finding finding;
  finding.kind = kind;
  size_t n = symbols.size();
  std::string fw =
    target.framework_version.empty() ? "the framework" : framework_words(target, target.framework_version);
  if (kind == "dual-abi-mismatch") {
    finding.summary =
      fmt::format("{} symbol{} spelled with the other C++ ABI than {}'s", n, n == 1 ? " is" : "s are", fw);
    finding.diagnosis = target.cxx11_abi < 0
                          ? "the library and the framework were compiled with different _GLIBCXX_USE_CXX11_ABI"
                          : fmt::format("the framework exports these with _GLIBCXX_USE_CXX11_ABI={}, the library "
                                        "was compiled with _GLIBCXX_USE_CXX11_ABI={}",
                                        target.cxx11_abi, 1 - target.cxx11_abi);
    finding.remedy = fmt::format("rebuild with the framework's ABI flag: {}", rebuild_command(target));
  } else if (kind == "cxx-standard-mismatch") {
    finding.summary =
      fmt::format("{} symbol{} use{} the other string_view than {}'s", n, n == 1 ? "" : "s", n == 1 ? "s" : "", fw);
    finding.diagnosis = fmt::format(
      "absl::string_view is std::string_view under C++17 and its own type before; the framework was built as "
      "C++{}, the library with another -std",
      target.cxx_standard > 0 ? std::to_string(target.cxx_standard) : "??");
    finding.remedy = fmt::format("rebuild with the framework's C++ standard: {}", rebuild_command(target));
  } else if (kind == "framework-version-skew") {
    finding.summary = fmt::format("{} symbol{} spelled for another TF version (Status or abseil namespaces)", n,
                                  n == 1 ? " is" : "s are");
    finding.diagnosis = fmt::format("TF moved Status between tensorflow::, tsl:: and absl:: and bumps its abseil "
                                    "release; these spellings are not {}'s: the library was built against a "
                                    "different TF version",
                                    fw);
    finding.remedy = fmt::format("rebuild against the target's SDK: {}", rebuild_command(target));
  } else if (kind == "framework-symbol-missing") {
    const project::FrameworkTable& table = project::FrameworkTable::get(target.framework);
    finding.summary = fmt::format("{} {} symbol{} not exported by {}'s framework library", n, table.display_name(),
                                  n == 1 ? " is" : "s are", fw);
    finding.diagnosis = fmt::format(
      "the symbol exists in another {} version, lives in a library of its Python "
      "module rather than the ones an op links{}, or is hidden: an op cannot link "
      "against it",
      table.label(), table.python_module_library().empty() ? "" : " (" + table.python_module_library() + ")");
    finding.remedy = fmt::format("build against the target's SDK ({}) and use only the framework's public API",
                                 rebuild_command(target));
  } else {
    finding.summary = fmt::format("{} undefined symbol{} nothing in the target provides", n, n == 1 ? "" : "s");
    finding.diagnosis = "no library in the target process defines these (check the library's DT_NEEDED and the "
                        "profile)";
    finding.remedy = "link the library that defines them, bundled next to the op with RUNPATH $ORIGIN, or remove "
                     "the references";
  }
  finding.symbols = std::move(symbols);
  return finding;
}

} // namespace

std::string
rebuild_command(const CheckTarget& target)
{
  const project::FrameworkTable& table = project::FrameworkTable::get(target.framework);
  return target.framework_version.empty()
           ? fmt::format("opkit build --{} <the target's {} version>", table.short_name(), framework_words(target, ""))
           : fmt::format("opkit build --{} {}", table.short_name(), target.framework_version);
}

std::string
framework_words(const CheckTarget& target, const std::string& version)
{
  const std::string& label = project::FrameworkTable::get(target.framework).label();
  return version.empty() ? label : label + " " + version;
}

std::string
without_abi_tags(const std::string& demangled)
{
  // The old ABI's std::string mangles as the "Ss" abbreviation, which demangles
  // to std::string; the new one spells the template out.
  std::string text = replace_all(replace_all(demangled, "std::__cxx11::", "std::"), "[abi:cxx11]", "");
  text = replace_all(text, "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string");
  // The demangler puts a space between two closing brackets ("> >"), so a
  // std::string spelled out inside a template argument leaves "std::string >"
  // where the old ABI's gives "std::string>": spaces before '>' are dropped.
  std::string result;
  result.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ' ' || i + 1 == text.size() || text[i + 1] != '>') {
      result += text[i];
    }
  }
  return result;
}

std::string
without_string_view_flavour(const std::string& demangled)
{
  // Spelled with or without the space without_abi_tags drops.
  std::string text = replace_all(demangled, "std::basic_string_view<char, std::char_traits<char> >", "string_view");
  text = replace_all(text, "std::basic_string_view<char, std::char_traits<char>>", "string_view");
  // absl::string_view in whatever lts namespace; every other abseil name keeps
  // its lts, so a symbol differing only there is version skew, not -std.
  std::string out;
  out.reserve(text.size());
  const std::string k_lts = "absl::lts_";
  const std::string k_view = "string_view";
  size_t from = 0;
  for (size_t at = text.find(k_lts); at != std::string::npos; at = text.find(k_lts, at + 1)) {
    size_t end = text.find("::", at + k_lts.size());
    if (end == std::string::npos || text.compare(end + 2, k_view.size(), k_view) != 0) {
      continue;
    }
    out.append(text, from, at - from);
    out += "string_view";
    from = end + 2 + k_view.size();
    at = from - 1;
  }
  out.append(text, from, std::string::npos);
  return replace_all(out, "absl::string_view", "string_view");
}

std::vector<Finding>
diagnose_unresolved(const std::vector<SymbolRef>& unresolved, const std::vector<const ProfileLibrary*>& frameworks,
                    const CheckTarget& target)
{
  if (unresolved.empty()) {
    return {};
  }
  ExportIndex index = index_exports(frameworks, unresolved);
  const project::FrameworkTable& table = project::FrameworkTable::get(target.framework);
  const std::unordered_set<std::string>& framework_abseil = index.abseil;
  std::vector<std::string> order = {"dual-abi-mismatch", "cxx-standard-mismatch", "framework-version-skew",
                                    "framework-symbol-missing", "unresolved-symbol"};
  std::vector<std::vector<SymbolRef>> groups(order.size());
  for (const SymbolRef& symbol : unresolved) {
    std::string plain = without_abi_tags(symbol.demangled);
    std::string view = without_string_view_flavour(plain);
    size_t group = 4;
    if (index.by_abi.count(plain) != 0) {
      group = 0;
    } else if (index.by_string_view.count(view) != 0) {
      group = 1;
    } else if (index.by_tsl.count(without_version_skew(view)) != 0 || other_abseil(symbol, framework_abseil)) {
      group = 2;
    } else if (!frameworks.empty() && is_framework_symbol(symbol, table.symbol_namespaces())) {
      group = 3;
    }
    groups[group].push_back(symbol);
  }
  std::vector<Finding> findings;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!groups[i].empty()) {
      findings.push_back(make_finding(order[i], std::move(groups[i]), target));
    }
  }
  return findings;
}

void
order_by_cause(std::vector<Finding>& findings, const CheckTarget& target)
{
  // Most telling first: each alone means "built for another release".
  // (Another framework soname: built for another major release, which also
  // explains its ABI and symbols.)
  static const std::vector<std::string> k_causes = {"wrong-framework-soname", "dual-abi-mismatch",
                                                    "cxx-standard-mismatch", "framework-version-skew"};
  static const std::vector<std::string> k_consequences = {"version-too-new", "framework-symbol-missing",
                                                          "unresolved-symbol"};
  auto rank = [](const Finding& finding) {
    auto found = std::find(k_causes.begin(), k_causes.end(), finding.kind);
    return finding.fatal && found != k_causes.end() ? found - k_causes.begin() : std::ptrdiff_t(k_causes.size());
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const Finding& a, const Finding& b) { return rank(a) < rank(b); });
  if (findings.empty() || rank(findings.front()) == std::ptrdiff_t(k_causes.size())) {
    return;
  }
  const Finding& cause = findings.front();
  for (size_t i = 1; i < findings.size(); ++i) {
    Finding& finding = findings[i];
    if (!finding.fatal
        || std::find(k_consequences.begin(), k_consequences.end(), finding.kind) == k_consequences.end()) {
      continue;
    }
    finding.diagnosis += fmt::format(
      "; this follows from [{}] above: the library was built for another "
      "release, and one built for {} needs neither",
      cause.kind,
      target.framework_version.empty() ? std::string("the target") : framework_words(target, target.framework_version));
  }
}

} // namespace opkit::check
