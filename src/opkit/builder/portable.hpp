#pragma once

// Making a library fit an older target's libstdc++, the way manylinux's
// devtoolset toolchains do: the few libstdc++ symbols newer than the target's
// ceiling are linked into the op from the compiler's own libstdc++.a (hidden),
// everything else keeps binding to the target's libstdc++.so.6.
#include "opkit/check/checker.hpp"
#include "opkit/check/profile.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opkit::builder {

// The newest libstdc++ versions a target has, e.g. {"3.4.28", "1.3.12"}.
struct CxxCeiling
{
  std::string glibcxx;
  std::string cxxabi;
};

// The target's libstdc++.so.6 ceilings: a policy's, or the newest versions a
// captured library defines. None for this machine (search_disk: a plain link)
// or a profile without libstdc++.
std::optional<CxxCeiling>
cxx_ceiling(const check::Profile& profile);

// What the framework library a target links exports: a libstdc++ symbol it
// defines binds to it, as the plain recipe's link does (TF 2.10.1 exports
// random_device::_M_init), so no archive member is taken for it.
struct FrameworkExports
{
  std::string identity;                            // "" when none: what the framework file was
  std::function<bool(const std::string&)> defines; // exports this name (a default definition)
};

// The framework libraries of a target's profile, as one FrameworkExports.
FrameworkExports
framework_exports(const check::Profile& profile);

// The members of the compiler's libstdc++.a that a library built for that
// ceiling takes statically: those defining a symbol its libstdc++.so.6 has only
// in versions above the ceiling and the framework does not export, and what
// they need that neither the target's libstdc++ nor the framework gives;
// packed as one archive under $OPKIT_HOME/portable/, made once per compiler,
// ceiling and framework. A member's definitions of what the framework exports
// are made local to it, so the library's own references bind to the framework.
// `archive` empty: nothing is above it.
struct NonsharedLibstdcxx
{
  std::filesystem::path archive;
  std::vector<std::string> members;
  std::vector<std::string> symbols; // the symbols above the ceiling it supplies
};

NonsharedLibstdcxx
ensure_nonshared_libstdcxx(const std::string& compiler, const CxxCeiling& ceiling,
                           const FrameworkExports& framework = {});

// What opkit build adds to a target's links so its libraries fit the target
// runtime (the TF version's default, `runtime`, or a captured profile): the
// archives to link, hidden, and a line saying what it did ("" when nothing).
struct PortableLink
{
  std::vector<std::string> archives;
  std::string symver_header; // `.symver` lines binding glibc symbols to the versions the target has; "" when none
  std::vector<std::string> link_dirs; // searched first: the static libraries given, pinned the same way
  std::string summary;
};

// Each glibc symbol whose default version here is newer than the target's,
// bound to the newest version the target's library of that soname has
// (pthread_once -> GLIBC_2.2.5 instead of GLIBC_2.34).
using SymbolBindings = std::map<std::string, std::string>;

SymbolBindings
symbol_bindings(const check::Profile& target);

// The bindings as `.symver` directives: a header force-included in every compile.
std::string
symver_header(const SymbolBindings& bindings);

// A copy of each prebuilt static library (the CUDA runtime) whose references
// are bound the same way (objcopy --redefine-syms), in one folder of
// $OPKIT_HOME/portable/, made once per library and bindings.
std::filesystem::path
pin_static_libraries(const std::vector<std::filesystem::path>& libraries, const SymbolBindings& bindings);

// `static_libraries`: prebuilt archives the links take by -l (the CUDA runtime).
// `memo`: a file kept with the target (its build folder) holding the last
// decision and what it depended on (the compiler, the target runtime or
// profile, the SDK's framework library, this machine's libraries through
// ldconfig's cache, the static libraries, opkit itself): when all are as they
// were and its archives still exist, the decision is read back, not redone.
PortableLink
plan_portable_link(const std::string& compiler, const sdk::Sdk& sdk, const std::string& runtime,
                   const std::filesystem::path& profile_file,
                   const std::vector<std::filesystem::path>& static_libraries, const std::filesystem::path& memo = {});

// After a portable link, a glibc symbol still newer than the target's is one
// glibc has no older version of: names, on each such symbol of the report,
// the functions of `objects` that use it, or, when a member of `archives` (the
// libstdc++ members linked in) uses it, the C++ entity the library calls that
// brought that member in (std::filesystem::status) and the functions calling
// it, and says so in the finding.
void
name_users_of_unbound_glibc_symbols(check::CheckReport& report, const std::vector<std::filesystem::path>& objects,
                                    const std::vector<std::filesystem::path>& archives = {});

} // namespace opkit::builder
