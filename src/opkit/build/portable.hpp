#pragma once

// Making a library fit an older target's libstdc++, the way manylinux's
// devtoolset toolchains do: the few libstdc++ symbols newer than the target's
// ceiling are linked into the op from the compiler's own libstdc++.a (hidden),
// everything else keeps binding to the target's libstdc++.so.6.
#include "opkit/check/profile.hpp"
#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::build {

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

// The members of the compiler's libstdc++.a that a library built for that
// ceiling takes statically: those defining a symbol its libstdc++.so.6 has only
// in versions above the ceiling, and what they need that the target's
// libstdc++ cannot give; packed as one archive under $OPKIT_HOME/portable/,
// made once per compiler and ceiling. `archive` empty: nothing is above it.
struct NonsharedLibstdcxx
{
  std::filesystem::path archive;
  std::vector<std::string> members;
  std::vector<std::string> symbols; // the symbols above the ceiling it supplies
};

NonsharedLibstdcxx
ensure_nonshared_libstdcxx(const std::string& compiler, const CxxCeiling& ceiling);

// What opkit build adds to a target's links so its libraries fit the target
// runtime (the TF version's default, `runtime`, or a captured profile): the
// archives to link, hidden, and a line saying what it did ("" when nothing).
struct PortableLink
{
  std::vector<std::string> archives;
  std::string glibc_header; // `.symver` lines binding glibc symbols to the versions the target has; "" when none
  std::string summary;
};

// The `.symver` directives that bind each glibc symbol whose default version
// here is newer than the target's to the newest version the target's library
// of that soname has (pthread_once@GLIBC_2.2.5 instead of @GLIBC_2.34), as a
// header force-included in every compile; and how many it binds.
std::string
glibc_symver_header(const check::Profile& target, int& bound);

PortableLink
plan_portable_link(const std::string& compiler, const sdk::Sdk& sdk, const std::string& runtime,
                   const std::filesystem::path& profile_file);

} // namespace opkit::build
