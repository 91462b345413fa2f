#include "opkit/builder/portable.hpp"

#include "opkit/builder/pch.hpp"
#include "opkit/builder/toolchain.hpp"
#include "opkit/elf/elf_archive.hpp"
#include "opkit/elf/elf_file.hpp"
#include "opkit/check/target.hpp"
#include "opkit/project/version.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

const char* k_archive_name = "libstdc++_opkit_nonshared.a";

// "3.4.28" <= "3.4.28"; anything unparsable (CXXABI_TM_1) counts as within.
bool
at_most(const std::string& number, const std::string& ceiling)
{
  std::optional<project::Version> have = project::parse_version(number);
  std::optional<project::Version> max = project::parse_version(ceiling);
  return !have || !max || !(*max < *have);
}

// Is a version of libstdc++.so.6 one the target has?
bool
within(const std::string& version, const CxxCeiling& ceiling)
{
  if (starts_with(version, "GLIBCXX_")) {
    return at_most(version.substr(8), ceiling.glibcxx);
  }
  if (starts_with(version, "CXXABI_")) {
    return at_most(version.substr(7), ceiling.cxxabi);
  }
  return true;
}

stdfs::path
compiler_file(const std::string& compiler, const std::string& name)
{
  ProcessResult result = run_process({compiler, "-print-file-name=" + name}, compiler_process_options());
  stdfs::path path = trim(result.out);
  std::error_code ec;
  if (result.exit_code != 0 || !path.is_absolute() || !stdfs::exists(path, ec)) {
    throw Error(ExitCode::missing, fmt::format("{}: has no {} to link the target's newer symbols from", compiler, name),
                "install the compiler's static libstdc++ (Debian: libstdc++-12-dev)");
  }
  return stdfs::canonical(path);
}

// The compiler's libstdc++.a and libstdc++.so, as it names them; remembered
// per compiler (its path and stamp) in the store, so that a build asks the
// compiler only the first time.
std::pair<stdfs::path, stdfs::path>
compiler_libstdcxx(const std::string& compiler)
{
  stdfs::path memo =
    sdk::opkit_home() / "portable" / ("compiler-" + sha256_hex(compiler_identity(compiler)).substr(0, 16) + ".txt");
  std::error_code ec;
  if (stdfs::exists(memo, ec)) {
    std::vector<std::string> lines = split(fs::read_file(memo), '\n');
    if (lines.size() >= 2 && stdfs::exists(lines[0], ec) && stdfs::exists(lines[1], ec)) {
      return {lines[0], lines[1]};
    }
  }
  stdfs::path archive = compiler_file(compiler, "libstdc++.a");
  stdfs::path shared = compiler_file(compiler, "libstdc++.so");
  fs::create_dirs(memo.parent_path());
  fs::write_file_atomic(memo, archive.string() + "\n" + shared.string() + "\n");
  return {archive, shared};
}

// The members to take: those defining a symbol above the ceiling, then (to a
// fixed point) those defining what they need that the target cannot give.
// `keep`: the symbols the chosen members keep (those above the ceiling and
// what members need from each other that the target lacks).
using TargetHas = std::map<std::string, bool>; // exported name -> some version of it is within the ceiling

TargetHas
target_has_of(const elf::ElfInfo& shared, const CxxCeiling& ceiling)
{
  TargetHas target_has;
  for (const elf::ElfSymbol& symbol : shared.dynamic_symbols) {
    if (symbol.defined) {
      target_has[symbol.name] = target_has[symbol.name] || within(symbol.version, ceiling);
    }
  }
  return target_has;
}

bool
gives(const TargetHas& target_has, const std::string& name)
{
  auto found = target_has.find(name);
  return found != target_has.end() && found->second;
}

bool
framework_gives(const FrameworkExports& framework, const std::string& name)
{
  return framework.defines && framework.defines(name);
}

std::vector<size_t>
choose_members(const std::vector<elf::ArchiveMember>& members, const TargetHas& target_has,
               const FrameworkExports& framework, std::vector<std::string>& above, std::set<std::string>& keep)
{
  std::map<std::string, size_t> definer;
  for (size_t i = 0; i < members.size(); ++i) {
    for (const std::string& name : members[i].defines) {
      definer.emplace(name, i);
    }
  }
  std::set<size_t> chosen;
  std::vector<size_t> pending;
  for (const auto& [name, has] : target_has) {
    auto found = definer.find(name);
    if (!has && found != definer.end() && !framework_gives(framework, name)) {
      above.push_back(name);
      keep.insert(name);
      if (chosen.insert(found->second).second) {
        pending.push_back(found->second);
      }
    }
  }
  while (!pending.empty()) {
    size_t member = pending.back();
    pending.pop_back();
    for (const std::string& need : members[member].needs) {
      auto found = definer.find(need);
      if (gives(target_has, need) || found == definer.end() || framework_gives(framework, need)) {
        continue;
      }
      keep.insert(need);
      if (chosen.insert(found->second).second) {
        pending.push_back(found->second);
      }
    }
  }
  return {chosen.begin(), chosen.end()};
}

void
run_tool(const std::vector<std::string>& argv)
{
  ProcessResult result = run_process(argv);
  if (result.exit_code != 0) {
    fail(ExitCode::system, "{}: failed (exit {}): {}", join(argv, " "), result.exit_code,
         trim(tail_lines(result.err + result.out, 3)));
  }
}

// The libraries whose symbols have older versions a build can bind to.
const std::vector<std::string> k_bound_sonames = {"libc.so.6",  "libm.so.6",  "libpthread.so.0",
                                                  "libdl.so.2", "librt.so.1", "libstdc++.so.6"};

// "GLIBC_2.34" < "GLIBC_2.2.5" compares the numbers.
bool
older_version(const std::string& a, const std::string& b)
{
  std::optional<project::Version> x = project::parse_version(a.substr(a.find('_') + 1));
  std::optional<project::Version> y = project::parse_version(b.substr(b.find('_') + 1));
  return x && y && *x < *y;
}

} // namespace

SymbolBindings
symbol_bindings(const check::Profile& target)
{
  const check::ProfileLibrary* libc = target.find("libc.so.6");
  SymbolBindings chosen; // symbol -> version
  for (const std::string& soname : k_bound_sonames) {
    bool glibc = soname != "libstdc++.so.6";
    std::optional<check::ProfileLibrary> host = check::host_library(soname);
    const check::ProfileLibrary* there = target.find(soname);
    there = there != nullptr || !glibc ? there : libc; // glibc 2.34 moved libpthread's symbols into libc
    if (!host || there == nullptr) {
      continue;
    }
    std::map<std::string, std::vector<std::pair<std::string, bool>>> versions;
    host->symbols.for_each([&versions, glibc](std::string_view name, const elf::SymbolDefinition& definition) {
      std::string version(definition.version);
      if (glibc ? starts_with(version, "GLIBC_2")
                : starts_with(version, "GLIBCXX_3") || starts_with(version, "CXXABI_1")) {
        versions[std::string(name)].emplace_back(version, definition.hidden);
      }
    });
    for (const auto& [name, defs] : versions) {
      auto default_def = std::find_if(defs.begin(), defs.end(), [](const auto& d) { return !d.second; });
      if (default_def == defs.end() || check::provides_version(*there, default_def->first)) {
        continue;
      }
      std::string best;
      for (const auto& [version, hidden] : defs) {
        if (check::provides_version(*there, version) && (best.empty() || older_version(best, version))) {
          best = version;
        }
      }
      if (!best.empty()) {
        chosen[name] = best;
      }
    }
  }
  return chosen;
}

std::string
symver_header(const SymbolBindings& bindings)
{
  std::string text = "// Written by opkit build: glibc and libstdc++ symbols bound to the versions the target has.\n";
  for (const auto& [name, version] : bindings) {
    text += fmt::format("__asm__(\".symver {0},{0}@{1}\");\n", name, version);
  }
  return bindings.empty() ? "" : text;
}

std::optional<CxxCeiling>
cxx_ceiling(const check::Profile& profile)
{
  if (profile.search_disk) {
    return std::nullopt;
  }
  const check::ProfileLibrary* library = profile.find("libstdc++.so.6");
  if (library == nullptr) {
    return std::nullopt;
  }
  // A policy's ceiling, else the newest version a captured library defines (its number).
  auto ceiling_of = [library](const std::string& family) {
    auto ceiling = library->ceilings.find(family);
    if (ceiling != library->ceilings.end()) {
      return ceiling->second;
    }
    std::string newest = check::newest_version(library->versions, family);
    return newest.empty() ? newest : newest.substr(family.size() + 1);
  };
  CxxCeiling ceiling{ceiling_of("GLIBCXX"), ceiling_of("CXXABI")};
  if (ceiling.glibcxx.empty() || ceiling.cxxabi.empty()) {
    return std::nullopt;
  }
  return ceiling;
}

FrameworkExports
framework_exports(const check::Profile& profile)
{
  FrameworkExports exports;
  std::vector<elf::ExportedSymbols> tables;
  for (const check::ProfileLibrary& library : profile.libraries) {
    if (library.framework && library.symbols_known) {
      exports.identity += fmt::format("{} {} {}\n", library.soname, library.path,
                                      library.path.empty() ? "" : fs::file_stamp(library.path));
      tables.push_back(library.symbols);
    }
  }
  if (!tables.empty()) {
    exports.defines = [tables](const std::string& name) {
      for (const elf::ExportedSymbols& table : tables) {
        for (const elf::SymbolDefinition& definition : table.find(name)) {
          if (!definition.hidden) {
            return true;
          }
        }
      }
      return false;
    };
  }
  return exports;
}

NonsharedLibstdcxx
ensure_nonshared_libstdcxx(const std::string& compiler, const CxxCeiling& ceiling, const FrameworkExports& framework)
{
  auto [archive, shared] = compiler_libstdcxx(compiler);
  std::string key = sha256_hex(fmt::format("3\n{}\n{}\n{}\nGLIBCXX_{}\nCXXABI_{}\n{}", compiler_identity(compiler),
                                           fs::file_stamp(archive), fs::file_stamp(shared), ceiling.glibcxx,
                                           ceiling.cxxabi, framework.identity))
                      .substr(0, 16);
  stdfs::path store = sdk::opkit_home() / "portable";
  stdfs::path dir = store / key;
  fs::FileLock lock(store / (key + ".lock"));
  NonsharedLibstdcxx result;
  stdfs::path stamp = dir / "members.txt"; // written last: the folder is complete
  if (stdfs::exists(stamp)) {
    std::vector<std::string> lines = split(fs::read_file(stamp), '\n');
    for (const std::string& line : lines) {
      if (starts_with(line, "member ")) {
        result.members.push_back(line.substr(7));
      } else if (starts_with(line, "symbol ")) {
        result.symbols.push_back(line.substr(7));
      }
    }
    result.archive = result.members.empty() ? stdfs::path() : dir / k_archive_name;
    return result;
  }
  std::vector<elf::ArchiveMember> members = elf::read_archive_members(archive);
  std::set<std::string> keep;
  TargetHas target_has = target_has_of(elf::read_elf(shared), ceiling);
  std::vector<size_t> chosen = choose_members(members, target_has, framework, result.symbols, keep);
  fs::StagingDir staging(store);
  std::string text = fmt::format("# libstdc++ members above GLIBCXX_{} / CXXABI_{} from {}\n", ceiling.glibcxx,
                                 ceiling.cxxabi, archive.string());
  if (!chosen.empty()) {
    std::vector<std::string> extract = {"ar", "x", archive.string()};
    std::vector<std::string> pack = {"ar", "rcsD", (staging.path() / k_archive_name).string()};
    for (size_t i : chosen) {
      result.members.push_back(members[i].name);
      extract.push_back(members[i].name);
      pack.push_back((staging.path() / "obj" / members[i].name).string());
    }
    fs::create_dirs(staging.path() / "obj");
    ProcessOptions in_obj;
    in_obj.cwd = staging.path() / "obj";
    ProcessResult extracted = run_process(extract, in_obj);
    if (extracted.exit_code != 0) {
      fail(ExitCode::system, "ar x {}: failed: {}", archive, trim(extracted.err));
    }
    // The data the target's libstdc++ has (the COW string's empty
    // representation, locale ids, vtables) becomes a reference to its one
    // copy. Every other strong symbol the members define is made local to
    // its member: an op's (or another member's) reference to an older symbol
    // then binds to the target's libstdc++. Weak ones (COMDAT groups,
    // template instances) stay.
    for (size_t i : chosen) {
      stdfs::path object = staging.path() / "obj" / members[i].name;
      std::set<std::string> weak(members[i].weak.begin(), members[i].weak.end());
      std::vector<std::string> references;
      for (const std::string& name : members[i].data) {
        if (keep.count(name) == 0 && gives(target_has, name)) {
          references.push_back(name);
        }
      }
      elf::make_references(object, references);
      std::set<std::string> shared_data(references.begin(), references.end());
      std::string local;
      for (const std::string& name : members[i].defines) {
        if (keep.count(name) == 0 && weak.count(name) == 0 && shared_data.count(name) == 0) {
          local += name + "\n";
        }
      }
      if (local.empty()) {
        continue; // objcopy refuses an empty list
      }
      stdfs::path list = staging.path() / (members[i].name + ".local");
      fs::write_file_atomic(list, local);
      run_tool({"objcopy", "--localize-symbols=" + list.string(), object.string()});
      stdfs::remove(list);
    }
    run_tool(pack);
    stdfs::remove_all(staging.path() / "obj");
  }
  for (const std::string& member : result.members) {
    text += "member " + member + "\n";
  }
  for (const std::string& symbol : result.symbols) {
    text += "symbol " + symbol + "\n";
  }
  fs::write_file_atomic(staging.path() / "members.txt", text);
  staging.commit(dir, true);
  result.archive = result.members.empty() ? stdfs::path() : dir / k_archive_name;
  log_debug("portable: {} libstdc++ member(s) above GLIBCXX_{} kept in {}", result.members.size(), ceiling.glibcxx,
            dir);
  return result;
}

stdfs::path
pin_static_libraries(const std::vector<stdfs::path>& libraries, const SymbolBindings& bindings)
{
  std::string identity = "pinned 2\n";
  for (const auto& [name, version] : bindings) {
    identity += fmt::format("{} {}\n", name, version);
  }
  for (const stdfs::path& library : libraries) {
    identity += library.string() + " " + fs::file_stamp(library) + "\n";
  }
  std::string key = sha256_hex(identity).substr(0, 16);
  stdfs::path store = sdk::opkit_home() / "portable";
  stdfs::path dir = store / key;
  fs::FileLock lock(store / (key + ".lock"));
  if (stdfs::exists(dir / "pinned.txt")) { // written last: the folder is complete
    return dir;
  }
  fs::StagingDir staging(store);
  for (const stdfs::path& library : libraries) {
    // References only: what the library defines itself keeps its name.
    std::set<std::string> defined;
    for (const elf::ArchiveMember& member : elf::read_archive_members(library)) {
      defined.insert(member.defines.begin(), member.defines.end());
    }
    std::string renames;
    for (const auto& [name, version] : bindings) {
      if (defined.count(name) == 0) {
        renames += fmt::format("{0} {0}@{1}\n", name, version);
      }
    }
    stdfs::path list = staging.path() / (library.filename().string() + ".renames");
    fs::write_file_atomic(list, renames);
    run_tool({"objcopy", "--redefine-syms=" + list.string(), library.string(),
              (staging.path() / library.filename()).string()});
  }
  fs::write_file_atomic(staging.path() / "pinned.txt", identity);
  staging.commit(dir, true);
  log_debug("portable: {} static libraries bound to the target's symbol versions in {}", libraries.size(), dir);
  return dir;
}

namespace {

PortableLink
decide_portable_link(const std::string& compiler, const sdk::Sdk& sdk, const std::string& runtime,
                     const stdfs::path& profile_file, const std::vector<stdfs::path>& static_libraries)
{
  PortableLink link;
  check::CheckTarget target = check::make_check_target(sdk, runtime, profile_file);
  std::optional<CxxCeiling> ceiling = cxx_ceiling(target.profile);
  if (!ceiling) {
    return link;
  }
  SymbolBindings bindings = symbol_bindings(target.profile);
  link.symver_header = symver_header(bindings);
  if (!bindings.empty() && !static_libraries.empty()) {
    link.link_dirs.push_back(pin_static_libraries(static_libraries, bindings).string());
  }
  NonsharedLibstdcxx nonshared = ensure_nonshared_libstdcxx(compiler, *ceiling, framework_exports(target.profile));
  if (!nonshared.archive.empty()) {
    // Its members' own references (pthread_create in thread.o) bound too.
    stdfs::path archive = nonshared.archive;
    if (!bindings.empty()) {
      archive = pin_static_libraries({archive}, bindings) / archive.filename();
    }
    link.archives.push_back(archive.string());
    link.summary = fmt::format(
      "libstdc++ above GLIBCXX_{}/CXXABI_{} ({}): {} symbols linked in from {} members, hidden", ceiling->glibcxx,
      ceiling->cxxabi, target.profile.name, nonshared.symbols.size(), nonshared.members.size());
  }
  if (!bindings.empty()) {
    link.summary +=
      fmt::format("{}{} symbols bound to the older versions {} has{}", link.summary.empty() ? "" : "; ",
                  bindings.size(), target.profile.name, static_libraries.empty() ? "" : ", in the CUDA runtime too");
  }
  return link;
}

// What a target's decision depends on, as one text: stamps and names only, so
// computing it costs a few stat calls.
std::string
portable_key(const std::string& compiler, const sdk::Sdk& sdk, const std::string& runtime,
             const stdfs::path& profile_file, const std::vector<stdfs::path>& static_libraries)
{
  std::error_code ec;
  auto stamp = [&ec](const stdfs::path& path) { return stdfs::exists(path, ec) ? fs::file_stamp(path) : "-"; };
  std::string key = fmt::format("portable 1\nopkit {}\ncompiler {}\nruntime {}\nprofile {} {}\nsdk {} {}\n",
                                stamp(stdfs::canonical("/proc/self/exe", ec)), compiler_identity(compiler), runtime,
                                profile_file.string(), profile_file.empty() ? "" : stamp(profile_file), sdk.id,
                                stamp(sdk.lib_dir() / sdk.framework_library));
  // This machine's libc and libstdc++ (the bindings read them): ldconfig's
  // cache changes whenever a package installs a library.
  key += fmt::format("ld.so.cache {}\n", stamp("/etc/ld.so.cache"));
  for (const stdfs::path& library : static_libraries) {
    key += fmt::format("static {} {}\n", library.string(), stamp(library));
  }
  return key;
}

std::optional<PortableLink>
read_memo(const stdfs::path& memo, const std::string& key)
{
  std::error_code ec;
  if (memo.empty() || !stdfs::exists(memo, ec)) {
    return std::nullopt;
  }
  try {
    Json json = Json::parse(fs::read_file(memo));
    if (json.value("key", "") != key) {
      return std::nullopt;
    }
    PortableLink link;
    link.archives = json.at("archives").get<std::vector<std::string>>();
    link.link_dirs = json.at("link_dirs").get<std::vector<std::string>>();
    link.symver_header = json.at("symver_header").get<std::string>();
    link.summary = json.at("summary").get<std::string>();
    for (const std::string& path : link.archives) {
      if (!stdfs::exists(path, ec)) {
        return std::nullopt; // the store was cleaned: decide again
      }
    }
    for (const std::string& path : link.link_dirs) {
      if (!stdfs::exists(path, ec)) {
        return std::nullopt;
      }
    }
    return link;
  } catch (const std::exception&) {
    return std::nullopt; // unreadable: decide again and rewrite it
  }
}

} // namespace

PortableLink
plan_portable_link(const std::string& compiler, const sdk::Sdk& sdk, const std::string& runtime,
                   const stdfs::path& profile_file, const std::vector<stdfs::path>& static_libraries,
                   const stdfs::path& memo)
{
  std::string key = memo.empty() ? "" : portable_key(compiler, sdk, runtime, profile_file, static_libraries);
  if (std::optional<PortableLink> kept = read_memo(memo, key)) {
    return *kept;
  }
  PortableLink link = decide_portable_link(compiler, sdk, runtime, profile_file, static_libraries);
  if (!memo.empty()) {
    Json json = {{"key", key},
                 {"archives", link.archives},
                 {"link_dirs", link.link_dirs},
                 {"symver_header", link.symver_header},
                 {"summary", link.summary}};
    fs::create_dirs(memo.parent_path());
    fs::write_file_if_changed(memo, json_text(json, 2) + "\n");
  }
  return link;
}

namespace {

// What a library's own code calls that comes from an archive member needing
// one of `names`: the member's definitions nearest to it that `objects`
// reference (first the member's own, then those of members needing it, and so
// on), each with its callers ("std::filesystem::status(...) (libstdc++'s
// fs_ops.o, linked in statically), called by f() in x.cc.o").
std::map<std::string, std::vector<std::string>>
entities_bringing_in(const std::vector<stdfs::path>& archives, const std::vector<stdfs::path>& objects,
                     const std::set<std::string>& names)
{
  std::map<std::string, std::vector<std::string>> found; // glibc symbol -> lines
  for (const stdfs::path& archive : archives) {
    std::vector<elf::ArchiveMember> members = elf::read_archive_members(archive);
    std::map<std::string, size_t> definer;
    for (size_t i = 0; i < members.size(); ++i) {
      for (const std::string& name : members[i].defines) {
        definer.emplace(name, i);
      }
    }
    for (const std::string& name : names) {
      std::set<size_t> layer;
      for (size_t i = 0; i < members.size(); ++i) {
        if (std::find(members[i].needs.begin(), members[i].needs.end(), name) != members[i].needs.end()) {
          layer.insert(i);
        }
      }
      std::set<size_t> seen = layer;
      while (!layer.empty()) {
        std::map<std::string, size_t> candidates; // defined by this layer
        for (size_t i : layer) {
          for (const std::string& defined : members[i].defines) {
            candidates.emplace(defined, i);
          }
        }
        std::set<std::string> wanted;
        for (const auto& [symbol, member] : candidates) {
          wanted.insert(symbol);
        }
        for (const stdfs::path& object : objects) {
          for (const auto& [symbol, callers] : elf::functions_referencing(object, wanted)) {
            for (const std::string& caller : callers) {
              found[name].push_back(fmt::format("{} (libstdc++'s {}, linked in statically), called by {} in {}",
                                                check::demangle(symbol), members[candidates[symbol]].name,
                                                check::demangle(caller), object.filename().string()));
            }
          }
        }
        if (found.count(name) != 0) {
          break;
        }
        std::set<size_t> next; // the members needing what this layer defines
        for (size_t i = 0; i < members.size(); ++i) {
          if (seen.count(i) == 0
              && std::any_of(members[i].needs.begin(), members[i].needs.end(),
                             [&](const std::string& need) { return candidates.count(need) != 0; })) {
            next.insert(i);
            seen.insert(i);
          }
        }
        layer = next;
      }
    }
  }
  return found;
}

} // namespace

void
name_users_of_unbound_glibc_symbols(check::CheckReport& report, const std::vector<stdfs::path>& objects,
                                    const std::vector<stdfs::path>& archives)
{
  for (check::Finding& finding : report.findings) {
    std::set<std::string> names;
    for (const check::SymbolRef& symbol : finding.symbols) {
      if (finding.kind == "version-too-new" && starts_with(symbol.version, "GLIBC_2")) {
        names.insert(symbol.mangled);
      }
    }
    if (names.empty()) {
      continue;
    }
    for (const stdfs::path& object : objects) {
      std::map<std::string, std::vector<std::string>> users = elf::functions_referencing(object, names);
      for (check::SymbolRef& symbol : finding.symbols) {
        auto found = users.find(symbol.mangled);
        for (size_t i = 0; found != users.end() && i < found->second.size(); ++i) {
          symbol.used_by.push_back(
            fmt::format("{} in {}", check::demangle(found->second[i]), object.filename().string()));
        }
      }
    }
    std::map<std::string, std::vector<std::string>> entities = entities_bringing_in(archives, objects, names);
    for (check::SymbolRef& symbol : finding.symbols) {
      auto found = entities.find(symbol.mangled);
      if (found != entities.end()) {
        symbol.used_by.insert(symbol.used_by.end(), found->second.begin(), found->second.end());
      }
    }
    bool named = std::any_of(finding.symbols.begin(), finding.symbols.end(),
                             [](const check::SymbolRef& symbol) { return !symbol.used_by.empty(); });
    if (!entities.empty()) {
      finding.remedy = fmt::format(
        "the target's libstdc++ lacks the C++ library function named above, and the copy opkit build links in "
        "from this compiler's libstdc++.a calls {}, which glibc has no older version of: call something the target "
        "has instead in the function named above, or target a runtime whose libstdc++ has it (--runtime/--profile)",
        names.size() == 1 ? *names.begin() : "symbols");
      continue;
    }
    finding.remedy = fmt::format("glibc has no older version of {} for opkit build to bind to: change {} not to "
                                 "call it, or target a runtime that has it (--runtime/--profile)",
                                 names.size() == 1 ? "this symbol" : "these symbols",
                                 named ? "the functions named above" : "the code");
  }
}

} // namespace opkit::builder
