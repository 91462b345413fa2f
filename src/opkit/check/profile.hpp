#pragma once

#include "opkit/elf/elf_file.hpp"
#include "opkit/elf/symbol_table.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::check {

// One library of the target process, as far as opkit knows it: exactly
// (read from a real file: versions and symbols) or by policy (version ceilings only).
struct ProfileLibrary
{
  std::string soname;
  std::string path;       // where it was read, when read from a file
  bool framework = false; // a framework library (libtensorflow_framework*)
  // Loaded RTLD_LOCAL in the target process (the framework, under TF's
  // Python): its symbols reach an op only through the op's DT_NEEDED closure.
  bool local_scope = false;
  bool symbols_known = false;                  // true when read from a real file
  std::vector<std::string> versions;           // version definitions, when read from a file
  std::map<std::string, std::string> ceilings; // family -> max, from a policy
  std::vector<std::string> extra_versions;     // from a policy
  std::string optional_package;                // from a policy: not on every such system; who provides it
  elf::ExportedSymbols symbols;                // when symbols_known: in memory or a mapped index
  // A policy library given the symbols of this machine's library of that
  // soname: a definition counts only when its version is within the
  // ceilings (glibc and libstdc++ keep every version they ever defined, so
  // those are the symbols the older target has).
  bool symbols_up_to_ceilings = false;
};

// The CPU of the target: a baseline that names its features
// (configs/cpu/baselines.yaml, e.g. "x86-64-v2"), or the flags /proc/cpuinfo
// lists on the machine captured. Neither: unknown, nothing is checked.
struct ProfileCpu
{
  std::string baseline;
  std::vector<std::string> flags; // /proc/cpuinfo's names ("avx2", "pni", ...)
  std::string model;              // "AMD EPYC", when read from /proc/cpuinfo
  // A runtime policy's baseline is a default, not a fleet: checked against a
  // framework release, it is joined with what that release itself needs to
  // start (cpu/verdict: the floor its table documents, and the features its
  // framework library runs at load). Empty for a CPU the user named (--cpu,
  // a profile, this machine's).
  std::filesystem::path framework_library;  // scanned for its load-time features
  std::string framework;                    // "tensorflow 2.10.1"
  std::vector<std::string> framework_floor; // the table's cpu_floor for the release
  bool known() const { return !baseline.empty() || !flags.empty(); }
};

// The CPU /proc/cpuinfo-style text describes (its first processor's flags and model name).
ProfileCpu
cpu_from_cpuinfo(std::string_view text);

// This machine's CPU; unknown when /proc/cpuinfo cannot be read.
ProfileCpu
host_cpu();

// The process an op library will be loaded into.
struct Profile
{
  std::string name; // "host", "manylinux2014", a capture's name
  std::string description;
  std::vector<ProfileLibrary> libraries; // framework libraries first, then system ones
  std::vector<std::string> search_paths; // where the loader looks on that machine
  // True only for this machine: a needed library absent from `libraries` is
  // looked up as the real loader would: in ldconfig's cache (`ld_cache`,
  // soname -> file), then in `search_paths` on disk.
  bool search_disk = false;
  std::map<std::string, std::string> ld_cache;
  std::vector<std::string> ld_conf_dirs; // what /etc/ld.so.conf lists (a hint when the cache lacks a library)
  ProfileCpu cpu;

  // The library with this soname; nullptr when the profile has none.
  const ProfileLibrary* find(const std::string& soname) const;
};

// Does the library provide this symbol version (e.g. "GLIBCXX_3.4.21")?
bool
provides_version(const ProfileLibrary& library, const std::string& version);

// The newest numbered version of a family a library defines ("GLIBCXX" ->
// "GLIBCXX_3.4.28"; GLIBC_PRIVATE and the file's order do not count); "" when none.
std::string
newest_version(const std::vector<std::string>& versions, const std::string& family);

// This machine's library of that soname (in host_search_paths()), its symbols
// looked up through its cached index; nullopt when this machine has none.
std::optional<ProfileLibrary>
host_library(const std::string& soname);

// A profile library read from a real ELF file.
ProfileLibrary
library_from_elf(const elf::ElfInfo& elf, const std::filesystem::path& path);

// A library whose symbols are known (read from a file, or from its index).
ProfileLibrary
known_library(std::string soname, const std::filesystem::path& path, std::vector<std::string> versions,
              elf::ExportedSymbols symbols);

// The system part of a target from a policy in configs/runtimes/: every
// library the policy lists is in the process (as the framework's own
// DT_NEEDED closure puts it there), with this machine's symbols of it up to
// the policy's ceilings, so a reference without a version (an op calling
// sqrtf without linking libm) resolves as it does in the real process.
Profile
profile_from_policy(const project::RuntimePolicy& policy);

// This machine's system libraries (libc, libm, libpthread, libdl, librt,
// libstdc++, libgcc_s, the dynamic loader), read through their symbol indexes
// in $OPKIT_HOME/cache (check/indexed_library).
Profile
host_profile();

// A profile of the given libraries (`opkit profile capture --lib`: the
// framework's, say) and the system libraries, less those whose soname a
// given one has: this machine's, or with
// `root` those of the system unpacked there (a debootstrap root, a `docker
// export`), read as files and never run; paths (and symlinks, even absolute
// ones) are taken inside the root and recorded as the target sees them.
// Error(usage) when the root holds no libc.so.6 where a loader looks.
Profile
capture_profile(const std::vector<std::filesystem::path>& libraries, const std::string& name,
                const std::filesystem::path& root = {});

Json
to_json(const Profile& profile);
// Parses a captured profile; Error(usage) naming `name` when malformed.
Profile
profile_from_json(const Json& json, const std::string& name);
Profile
load_profile_file(const std::filesystem::path& path);

// The directories this machine's loader searches by default.
std::vector<std::string>
host_search_paths();

} // namespace opkit::check
