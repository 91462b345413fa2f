#include "opkit/check/checker.hpp"
#include "opkit/project/cuda_table.hpp"

#include "opkit/check/diagnose.hpp"
#include "opkit/check/library_search.hpp"
#include "opkit/elf/elf_file.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace opkit::check {

namespace stdfs = std::filesystem;

namespace {

// Every library the op's process would hold: the profile's, plus libraries
// the op brings along (found through its RUNPATH/RPATH, or on this machine's disk).
struct LoadSet
{
  std::vector<const ProfileLibrary*> libraries;
  std::vector<std::unique_ptr<ProfileLibrary>> owned; // libraries read while checking
  std::set<const ProfileLibrary*> reached;            // local-scope libraries in the op's DT_NEEDED closure
  std::set<std::string> unloadable;                   // files found that the loader cannot map: reported once
  std::vector<MappedLibrary> mapped;                  // the files read, with who needed them
  std::vector<std::string> unfound;                   // the sonames the search found no file for

  // Whether the op's symbol lookups see `library`: a global one always, a
  // local-scope one (the framework under TF's Python) only when reached.
  bool visible(const ProfileLibrary* library) const { return !library->local_scope || reached.count(library) != 0; }

  const ProfileLibrary* find(const std::string& soname) const
  {
    for (const ProfileLibrary* library : libraries) {
      if (library->soname == soname) {
        return library;
      }
    }
    return nullptr;
  }
};

std::string
cuda_soname_for(const std::string& cuda_version)
{
  std::string major = cuda_version.substr(0, cuda_version.find('.'));
  // CUDA 11 kept one runtime soname for all minor versions; 12+ use the major only.
  if (major == "11") {
    return "libcudart.so.11.0";
  }
  if (major.empty() || std::atoi(major.c_str()) >= 12) {
    return "libcudart.so." + major;
  }
  return "libcudart.so." + cuda_version;
}

// The finding for a DT_NEEDED nothing provides, sharpened when it is the
// framework or the CUDA runtime under another soname.
Finding
missing_library_finding(const std::string& soname, const LoadSet& set, const CheckTarget& target,
                        const stdfs::path& op_dir, const std::string& machine)
{
  Finding finding;
  const ProfileLibrary* framework = nullptr;
  for (const ProfileLibrary* library : set.libraries) {
    framework = library->framework ? library : framework;
  }
  if (starts_with(soname, "libtensorflow_framework") && framework != nullptr) {
    finding.kind = "wrong-framework-soname";
    finding.summary = fmt::format("needs {}, but the target's framework library is {}", soname, framework->soname);
    finding.diagnosis =
      fmt::format("the library was built for another TensorFlow version{}",
                  target.framework_version.empty() ? "" : " than the target's " + target.framework_version);
    finding.remedy = fmt::format("build it for the target: {}", rebuild_command(target));
  } else if (starts_with(soname, "libcudart.so") && !target.cuda_version.empty()
             && soname != cuda_soname_for(target.cuda_version)) {
    finding.kind = "cuda-runtime-mismatch";
    finding.summary = fmt::format("needs {}, but the framework is built with CUDA {} ({})", soname, target.cuda_version,
                                  cuda_soname_for(target.cuda_version));
    finding.diagnosis = "the op's CUDA runtime differs from the one the framework loads";
    finding.remedy =
      fmt::format("build the GPU kernel with CUDA {}'s nvcc, or link cudart statically", target.cuda_version);
  } else {
    std::error_code ec;
    // One the loader would take: a 32-bit or aarch64 file of that name it passes over.
    bool bundled = stdfs::exists(op_dir / soname, ec) && elf::loader_passes_over(op_dir / soname, machine).empty();
    finding.kind = bundled ? "bundled-without-origin" : "missing-library";
    finding.summary = bundled ? fmt::format("needs {}, which sits next to it, but its RUNPATH has no $ORIGIN", soname)
                              : fmt::format("needs {}, which the target does not have", soname);
    finding.diagnosis = bundled ? "the loader does not look in the library's own folder unless RUNPATH says $ORIGIN"
                                : "no library of the target profile has this soname";
    finding.remedy = bundled
                       ? "link with -Wl,-rpath,'$ORIGIN' so bundled libraries are found"
                       : "bundle it next to the op (linked with -Wl,-rpath,'$ORIGIN'), or install it in the target";
    // On this machine: in a folder /etc/ld.so.conf lists, but not in the cache the loader reads.
    std::string unlisted = target.profile.search_disk && !bundled ? find_file(soname, target.profile.ld_conf_dirs) : "";
    if (!unlisted.empty()) {
      finding.diagnosis = fmt::format("{} is in a folder /etc/ld.so.conf lists, but not in /etc/ld.so.cache, the "
                                      "only list the loader reads",
                                      unlisted);
      finding.remedy = "run ldconfig (as root) to add it to the cache";
    }
  }
  return finding;
}

// A dependency the search found but the loader cannot map (empty, not ELF,
// truncated, damaged): glibc stops the whole load there ("file too short").
Finding
broken_library_finding(const std::string& soname, const std::string& file, const std::string& cause,
                       const std::string& needer)
{
  Finding finding;
  finding.kind = "broken-library";
  finding.summary = fmt::format("needs {}{}, and the loader finds {}, which it cannot load", soname,
                                needer.empty() ? "" : " (through " + needer + ")", file);
  finding.diagnosis = fmt::format("the loader takes the first file of that name on its search path and stops the "
                                  "whole load when it is not a loadable library: {}",
                                  cause);
  finding.remedy =
    fmt::format("replace {} with a working build of {}, or remove it so the loader finds another", file, soname);
  return finding;
}

// A library the runtime has only where a package installs it (libgomp: no
// stock TF process maps it; a Debian 11 system without GCC's runtime lacks it).
Finding
optional_library_finding(const ProfileLibrary& library, const CheckTarget& target)
{
  Finding finding;
  finding.kind = "optional-library";
  finding.fatal = false;
  finding.summary = fmt::format("needs {}, which {} has only where a package installs it: {}", library.soname,
                                target.profile.name, library.optional_package);
  finding.diagnosis = "no stock TensorFlow process maps it, and a minimal system does not have it: the op loads "
                      "only where that package is installed";
  finding.remedy = fmt::format("install {} on the target, or bundle {} next to the op with RUNPATH $ORIGIN",
                               library.optional_package, library.soname);
  return finding;
}

// Follows `elf`'s DT_NEEDED as glibc's _dl_map_object does. The search of an
// object without DT_RUNPATH takes its own DT_RPATH and then that of each
// object that led to it (`inherited`, $ORIGIN expanded for each), up to the
// op; an object with DT_RUNPATH takes that only (and ignores DT_RPATH). Then
// the target's directories.
void
add_needed(const elf::ElfInfo& elf, const stdfs::path& path, const CheckTarget& target, LoadSet& set,
           std::vector<Finding>& findings, int depth, const std::vector<std::string>& inherited)
{
  stdfs::path origin = stdfs::absolute(path).parent_path();
  std::vector<std::string> chain; // the RPATHs this object's dependencies inherit
  if (elf.runpath.empty()) {
    chain = expand_paths(elf.rpath, origin);
  }
  chain.insert(chain.end(), inherited.begin(), inherited.end());
  std::vector<std::string> dirs = elf.runpath.empty() ? chain : expand_paths(elf.runpath, origin);
  for (const std::string& soname : elf.needed) {
    if (const ProfileLibrary* known = set.find(soname)) {
      set.reached.insert(known);
      if (!known->optional_package.empty()) {
        findings.push_back(optional_library_finding(*known, target));
      }
      continue;
    }
    std::vector<std::string> passed_over;
    std::string file = find_loadable(soname, dirs, elf.machine, passed_over);
    if (file.empty() && target.profile.search_disk) {
      // This machine: ldconfig's cache, then the default folders.
      auto cached = target.profile.ld_cache.find(soname);
      std::error_code ec;
      if (cached != target.profile.ld_cache.end() && stdfs::is_regular_file(cached->second, ec)
          && elf::loader_passes_over(cached->second, elf.machine).empty()) {
        file = cached->second;
      } else {
        file = find_loadable(soname, target.profile.search_paths, elf.machine, passed_over);
      }
    }
    if (file.empty() && std::find(set.unfound.begin(), set.unfound.end(), soname) == set.unfound.end()) {
      set.unfound.push_back(soname);
    }
    if (file.empty() || depth > 8) {
      Finding finding = missing_library_finding(soname, set, target, origin, elf.machine);
      if (!passed_over.empty()) {
        finding.diagnosis += fmt::format("; the loader passes over {}, as glibc does for another ELF class or "
                                         "machine, and finds no other",
                                         join(passed_over, ", "));
      }
      findings.push_back(std::move(finding));
      continue;
    }
    elf::ElfInfo dep;
    try {
      dep = elf::read_elf(file);
    } catch (const Error& e) {
      // glibc stops at the first; a second library needing the same file adds nothing.
      if (set.unloadable.insert(file).second) {
        findings.push_back(broken_library_finding(soname, file, e.what(), depth > 0 ? path.filename().string() : ""));
      }
      continue;
    }
    set.mapped.push_back({file, path.filename().string()});
    set.owned.push_back(std::make_unique<ProfileLibrary>(library_from_elf(dep, file)));
    set.owned.back()->soname = soname;
    set.libraries.push_back(set.owned.back().get());
    add_needed(dep, file, target, set, findings, depth + 1, chain);
  }
}

// glibc's check_match: a versioned reference takes the definition of exactly
// that version (default or hidden); an unversioned one takes any non-hidden one.
// Each library answers through its own table (in memory or a mapped index),
// so a check costs lookups of the op's undefined symbols, not a map of every export.
bool
defines(const ProfileLibrary& library, const elf::ElfSymbol& ref)
{
  for (const elf::SymbolDefinition& def : library.symbols.find(ref.name)) {
    if (library.symbols_up_to_ceilings) {
      // The target's library: a version within the ceilings was its default
      // one there, even where this machine's newer library has hidden it.
      if (provides_version(library, std::string(def.version)) && (ref.version.empty() || def.version == ref.version)) {
        return true;
      }
    } else if (ref.version.empty() ? !def.hidden : (def.version == ref.version || def.version.empty())) {
      return true;
    }
  }
  return false;
}

// Whether any visible library defines it: the answer does not depend on the
// order they are asked in, so the likeliest are asked first (the library its
// version names, then the frameworks), and the rest's indexes are opened only
// for what those do not define.
bool
resolves(const elf::ElfSymbol& ref, const std::string& need_file, const LoadSet& set)
{
  const ProfileLibrary* provider = need_file.empty() ? nullptr : set.find(need_file);
  auto first = [&](const ProfileLibrary* library) { return library == provider || library->framework; };
  if (provider != nullptr && set.visible(provider) && defines(*provider, ref)) {
    return true;
  }
  for (const ProfileLibrary* library : set.libraries) {
    if (library != provider && library->framework && set.visible(library) && defines(*library, ref)) {
      return true;
    }
  }
  for (const ProfileLibrary* library : set.libraries) {
    if (!first(library) && set.visible(library) && defines(*library, ref)) {
      return true;
    }
  }
  // A policy library's symbols are unknown: its version set stands for them.
  return provider != nullptr && !provider->symbols_known && provides_version(*provider, ref.version);
}

std::string
family_of(const std::string& version)
{
  return version.substr(0, version.find('_'));
}

std::string
ceiling_text(const ProfileLibrary& library, const std::string& family)
{
  auto ceiling = library.ceilings.find(family);
  if (ceiling != library.ceilings.end()) {
    std::string version = family + "_" + ceiling->second;
    std::optional<std::string> release = project::release_of_version(version);
    return fmt::format("{} up to {}{}", library.soname, version, release ? " (" + *release + ")" : "");
  }
  std::string newest = newest_version(library.versions, family);
  return newest.empty() ? fmt::format("{} has no {} versions", library.soname, family)
                        : fmt::format("{} up to {}", library.soname, newest);
}

// Every required version the target lacks, one finding per (library, family).
void
check_version_needs(const elf::ElfInfo& elf, const LoadSet& set, std::vector<Finding>& findings)
{
  std::map<std::pair<std::string, std::string>, Finding> by_family;
  for (const elf::ElfVersionNeed& need : elf.version_needs) {
    const ProfileLibrary* library = set.find(need.file);
    if (library == nullptr) {
      continue; // reported as a missing library
    }
    for (const std::string& version : need.versions) {
      if (provides_version(*library, version)) {
        continue;
      }
      Finding& finding = by_family[{need.file, family_of(version)}];
      std::optional<std::string> release = project::release_of_version(version);
      std::string introduced = release ? fmt::format("{}, introduced in {}", version, *release) : version;
      finding.kind = "version-too-new";
      finding.summary = finding.summary.empty() ? fmt::format("needs {} from {}", introduced, need.file)
                                                : finding.summary + "; also " + version;
      finding.diagnosis = fmt::format("the target provides {}", ceiling_text(*library, family_of(version)));
      finding.remedy =
        "build with a toolchain no newer than the target's (e.g. the manylinux2014 devtoolset image "
        "for CentOS 7-based runtimes), or target a runtime that has it (opkit check --runtime/--profile)";
      for (const elf::ElfSymbol& symbol : elf.dynamic_symbols) {
        if (!symbol.defined && symbol.version == version) {
          finding.symbols.push_back({symbol.name, demangle(symbol.name), symbol.version, {}});
        }
      }
    }
  }
  for (auto& [key, finding] : by_family) {
    findings.push_back(std::move(finding));
  }
}

std::map<std::string, std::string>
need_file_by_version(const elf::ElfInfo& elf)
{
  std::map<std::string, std::string> files;
  for (const elf::ElfVersionNeed& need : elf.version_needs) {
    for (const std::string& version : need.versions) {
      files[version] = need.file;
    }
  }
  return files;
}

// Device code linked in (.nv_fatbin) is a dependency on the target's GPU stack
// even when the CUDA runtime is linked statically and no libcudart is needed.
void
add_cuda_finding(const elf::ElfInfo& elf, const CheckTarget& target, std::vector<Finding>& findings)
{
  bool device_code =
    std::find(elf.section_names.begin(), elf.section_names.end(), ".nv_fatbin") != elf.section_names.end();
  if (!device_code) {
    return;
  }
  auto dynamic_cudart = std::find_if(elf.needed.begin(), elf.needed.end(),
                                     [](const std::string& n) { return starts_with(n, "libcudart.so"); });
  // Without a libcudart DT_NEEDED, undefined CUDA runtime calls are taken
  // from the process: TensorFlow's GPU builds export them from their own
  // cudart stub, which loads libcudart.so.N at run time. With none, the
  // runtime is linked in.
  std::vector<std::string> runtime_calls;
  for (const elf::ElfSymbol& symbol : elf.dynamic_symbols) {
    if (!symbol.defined && (starts_with(symbol.name, "cuda") || starts_with(symbol.name, "__cuda"))) {
      runtime_calls.push_back(symbol.name);
    }
  }
  // The CUDA its device code was built with: the newest PTX ISA it carries says.
  int ptx_major = 0;
  for (const elf::FatbinEntry& entry : elf.fatbin) {
    ptx_major = entry.ptx ? std::max(ptx_major, entry.major) : ptx_major;
  }
  int device_major = project::cuda_major_of_ptx_isa(ptx_major);
  int target_major = project::cuda_major(target.cuda_version);
  bool runtime_fits = dynamic_cudart == elf.needed.end() || *dynamic_cudart == cuda_soname_for(target.cuda_version);
  if (device_major > 0 && target_major > 0 && device_major <= target_major && runtime_fits) {
    return; // built with the framework's own CUDA major: it asks no newer driver than the framework does
  }
  Finding finding;
  finding.kind = "cuda-runtime";
  finding.fatal = false;
  if (dynamic_cudart != elf.needed.end()) {
    finding.summary = fmt::format("carries CUDA device code and needs {}", *dynamic_cudart);
  } else if (!runtime_calls.empty()) {
    finding.summary = fmt::format("carries CUDA device code and calls the CUDA runtime ({}{}) without linking it: "
                                  "from the process, where TensorFlow's GPU build provides it",
                                  runtime_calls.front(), runtime_calls.size() > 1 ? ", ..." : "");
  } else {
    finding.summary = "carries CUDA device code and links the CUDA runtime statically";
  }
  finding.diagnosis = target.cuda_version.empty()
                        ? "the target's TensorFlow is not a CUDA build: the GPU kernels register but never run; "
                          "on a GPU build they need an NVIDIA driver new enough for the CUDA the op was built with"
                        : fmt::format("the target's TensorFlow uses CUDA {}; the GPU kernels need an NVIDIA driver "
                                      "new enough for both that and the CUDA the op was built with",
                                      target.cuda_version);
  if (device_major > 0) {
    finding.diagnosis += fmt::format(" (its device code is CUDA {}'s: PTX ISA {}.x)", device_major, ptx_major);
  }
  finding.remedy = "build with the CUDA version of the target's TensorFlow (its build_info says which; opkit build "
                   "does, by default), and check the driver on the GPU machines";
  findings.push_back(std::move(finding));
}

// Symbols that a framework the op does not list in DT_NEEDED defines: in TF's
// Python that framework is loaded RTLD_LOCAL, so they do not resolve. They
// become one finding naming the missing DT_NEEDED; the rest are returned.
// When the op needs another version's framework library (a
// wrong-framework-soname finding), that finding says it all: the symbols the
// target's framework defines are dropped, and would resolve once the op is
// built for the target.
std::vector<SymbolRef>
take_unreached_framework_symbols(std::vector<SymbolRef> unresolved, const LoadSet& set, std::vector<Finding>& findings,
                                 const CheckTarget& target)
{
  bool other_framework_needed = std::any_of(
    findings.begin(), findings.end(), [](const Finding& finding) { return finding.kind == "wrong-framework-soname"; });
  for (const ProfileLibrary* library : set.libraries) {
    if (!library->framework || set.visible(library)) {
      continue;
    }
    std::vector<SymbolRef> rest;
    Finding finding;
    for (SymbolRef& symbol : unresolved) {
      bool defines = false;
      for (const elf::SymbolDefinition& def : library->symbols.find(symbol.mangled)) {
        defines = defines || !def.hidden || library->symbols_up_to_ceilings;
      }
      (defines ? finding.symbols : rest).push_back(std::move(symbol));
    }
    unresolved = std::move(rest);
    if (finding.symbols.empty() || other_framework_needed) {
      continue;
    }
    finding.kind = "framework-not-needed";
    finding.summary =
      fmt::format("uses {} symbol{} of {} (first: {}) but has no DT_NEEDED on it", finding.symbols.size(),
                  finding.symbols.size() == 1 ? "" : "s", library->soname, finding.symbols.front().mangled);
    finding.diagnosis = fmt::format("{}'s Python loads the framework without RTLD_GLOBAL, so an op library "
                                    "reaches it only through its own DT_NEEDED: it was linked without the framework "
                                    "library",
                                    framework_words(target, ""));
    finding.remedy =
      fmt::format("link it with the framework (-L<sdk>/lib -l:{}), as `opkit build` does", library->soname);
    findings.push_back(std::move(finding));
  }
  return unresolved;
}

// A framework-symbol-missing or framework-version-skew finding whose
// symbols another imported TF version's framework exports, every one of them,
// is version skew from that version: it names it, instead of listing every
// possible cause. Returns the versions named.
std::vector<std::string>
name_other_version(Finding& finding, const CheckTarget& target)
{
  if ((finding.kind != "framework-symbol-missing" && finding.kind != "framework-version-skew")
      || !target.other_frameworks) {
    return {};
  }
  std::vector<std::string> versions;
  for (const OtherFramework& other : target.other_frameworks()) {
    bool all = std::all_of(finding.symbols.begin(), finding.symbols.end(), [&](const SymbolRef& symbol) {
      return !other.library.symbols.find(symbol.mangled).empty();
    });
    if (all) {
      versions.push_back(other.version);
    }
  }
  if (versions.empty()) {
    return {};
  }
  size_t n = finding.symbols.size();
  finding.kind = "framework-version-skew";
  std::string label = framework_words(target, "");
  finding.summary = fmt::format("{} {} symbol{} not in {}'s framework library, but in {} {}'s", n,
                                project::FrameworkTable::get(target.framework).display_name(), n == 1 ? " is" : "s are",
                                framework_words(target, target.framework_version), label, join(versions, ", "));
  finding.diagnosis =
    fmt::format("the library was built against {} {} (of the SDKs imported, the one{} whose "
                "framework exports these), not {}",
                label, join(versions, " or "), versions.size() == 1 ? "" : "s", target.framework_version);
  finding.remedy = fmt::format("rebuild it against {} ({}), or load it into the {} it was built for",
                               framework_words(target, target.framework_version), rebuild_command(target), label);
  return versions;
}

// What a prebuilt library shows of the TF it was built for: the imported
// frameworks that export its missing symbols (the strongest clue), its wheel,
// its path, the framework library it needs.
Provenance
prebuilt_provenance(const stdfs::path& library, const elf::ElfInfo& elf, const CheckTarget& target,
                    const std::vector<std::string>& exporting_versions)
{
  std::string framework_needed, range;
  for (const std::string& needed : elf.needed) {
    if (auto known = target.framework_libraries.find(needed); known != target.framework_libraries.end()) {
      framework_needed = needed;
      range = known->second;
    }
  }
  Provenance provenance = read_provenance(library, framework_needed, range);
  if (!exporting_versions.empty()) {
    provenance.version = join(exporting_versions, " or ");
    provenance.evidence.insert(
      provenance.evidence.begin(),
      fmt::format("the TensorFlow symbols it misses are in TF {}'s framework library", provenance.version));
  }
  return provenance;
}

// A prebuilt library is not rebuilt by `opkit build`: each remedy that says
// so names the release to install instead, and what the library was built for.
void
fit_remedies_to_prebuilt(CheckReport& report, const CheckTarget& target)
{
  const Provenance& built_for = report.built_for;
  std::string shown;
  if (!built_for.version.empty()) {
    shown = fmt::format(" (this one was built for TF {}: {})", built_for.version, join(built_for.evidence, "; "));
  } else if (!built_for.evidence.empty()) {
    shown = fmt::format(" (what this one shows: {})", join(built_for.evidence, "; "));
  }
  for (Finding& finding : report.findings) {
    if (finding.fatal && finding.kind == "version-too-new") {
      finding.remedy = "a prebuilt library: install a release of it built for a system no newer than the target "
                       "(a wheel whose manylinux tag the target meets), or target a runtime that has it (opkit check "
                       "--runtime/--profile)";
    } else if (finding.fatal && finding.remedy.find("opkit build") != std::string::npos) {
      finding.remedy = fmt::format("a prebuilt library: install the release of it built for TF {}{}, or build it "
                                   "from its source for TF {} (`opkit init` adopts the source)",
                                   target.framework_version, shown, target.framework_version);
    }
  }
}

} // namespace

std::string
demangle(const std::string& mangled)
{
  if (!starts_with(mangled, "_Z")) {
    return mangled;
  }
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : mangled;
}

CheckReport
check_library(const stdfs::path& library, const CheckTarget& target)
{
  elf::ElfInfo elf = elf::read_elf(library, elf::SymbolScope::undefined);
  CheckReport report;
  report.library = library.string();
  report.target = target.framework_version.empty()
                    ? target.profile.name
                    : fmt::format("{} {} on {}", target.framework, target.framework_version, target.profile.name);
  report.needed = elf.needed;

  LoadSet set;
  for (const ProfileLibrary& lib : target.profile.libraries) {
    set.libraries.push_back(&lib);
  }
  add_needed(elf, library, target, set, report.findings, 0, {});
  report.mapped = set.mapped;
  check_version_needs(elf, set, report.findings);

  std::map<std::string, std::string> need_files = need_file_by_version(elf);
  std::vector<SymbolRef> unresolved;
  for (const elf::ElfSymbol& symbol : elf.dynamic_symbols) {
    if (symbol.defined || symbol.name.empty()) {
      continue;
    }
    ++report.undefined;
    const std::string need_file = symbol.version.empty() ? std::string() : need_files[symbol.version];
    const ProfileLibrary* provider = need_file.empty() ? nullptr : set.find(need_file);
    if (!need_file.empty() && (provider == nullptr || !provides_version(*provider, symbol.version))) {
      continue; // its library or its version is missing: already a finding
    }
    if (resolves(symbol, need_file, set)) {
      continue;
    }
    if (symbol.weak) {
      ++report.weak_unresolved;
      continue;
    }
    unresolved.push_back({symbol.name, demangle(symbol.name), symbol.version, {}});
  }
  std::vector<const ProfileLibrary*> frameworks;
  for (const ProfileLibrary* lib : set.libraries) {
    if (lib->framework) {
      frameworks.push_back(lib);
    }
  }
  unresolved = take_unreached_framework_symbols(std::move(unresolved), set, report.findings, target);
  std::vector<std::string> exporting_versions;
  for (Finding& finding : diagnose_unresolved(unresolved, frameworks, target)) {
    for (std::string& version : name_other_version(finding, target)) {
      if (std::find(exporting_versions.begin(), exporting_versions.end(), version) == exporting_versions.end()) {
        exporting_versions.push_back(std::move(version));
      }
    }
    report.findings.push_back(std::move(finding));
  }
  add_cuda_finding(elf, target, report.findings);
  order_by_cause(report.findings, target);
  if (target.prebuilt && !target.framework_version.empty()) {
    report.prebuilt = true;
    report.built_for = prebuilt_provenance(library, elf, target, exporting_versions);
    fit_remedies_to_prebuilt(report, target);
  }
  report.loads = std::none_of(report.findings.begin(), report.findings.end(), [](const Finding& f) { return f.fatal; });
  return report;
}

std::vector<std::string>
unfound_libraries(const stdfs::path& library)
{
  CheckTarget target;
  target.profile = host_profile();
  LoadSet set;
  std::vector<Finding> findings;
  add_needed(elf::read_elf(library, elf::SymbolScope::undefined), library, target, set, findings, 0, {});
  return set.unfound;
}

Json
to_json(const CheckReport& report)
{
  Json findings = Json::array();
  for (const Finding& finding : report.findings) {
    Json symbols = Json::array();
    for (const SymbolRef& symbol : finding.symbols) {
      Json item = {{"mangled", symbol.mangled}, {"demangled", symbol.demangled}, {"version", symbol.version}};
      if (!symbol.used_by.empty()) {
        item["used_by"] = symbol.used_by;
      }
      symbols.push_back(std::move(item));
    }
    findings.push_back({{"kind", finding.kind},
                        {"severity", finding.fatal ? "error" : "warning"},
                        {"summary", finding.summary},
                        {"diagnosis", finding.diagnosis},
                        {"remedy", finding.remedy},
                        {"symbols", symbols}});
  }
  Json json = {
    {"schema", "opkit.check/1"},
    {"library", report.library},
    {"target", report.target},
    {"verdict", report.loads ? "loads" : "fails"},
    {"findings", findings},
    {"stats",
     {{"needed", report.needed}, {"undefined", report.undefined}, {"weak_unresolved", report.weak_unresolved}}}};
  if (report.prebuilt) {
    json["built_for"] = {{"version", report.built_for.version}, {"evidence", report.built_for.evidence}};
  }
  return json;
}

} // namespace opkit::check
