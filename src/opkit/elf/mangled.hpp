#pragma once

// Small, linear scans of mangled and demangled C++ names (they come from
// untrusted libraries, so no std::regex, whose recursion a long name overflows).

#include <string>
#include <string_view>

namespace opkit::elf {

// Whether a mangled name uses the old ABI's std::string ("Ss") as a parameter
// or template argument (after R, P, RK, PK, E or I) or as the class of a member
// (_ZNSs...): places a length-prefixed identifier cannot fake.
bool
has_old_std_string(std::string_view mangled);

// Whether a mangled name holds absl::string_view, in an LTS namespace
// (N4absl12lts_2022062311string_viewE) or not (N4absl11string_viewE).
bool
has_absl_string_view(std::string_view mangled);

// The abseil LTS namespace a mangled name uses ("lts_20220623"), or "".
std::string
abseil_lts(std::string_view mangled);

// A demangled name with abseil's inline namespace taken out
// ("absl::lts_20220623::Status" -> "absl::Status").
std::string
without_abseil_lts(std::string_view demangled);

// The identifiers that open a mangled name's nested name, joined with "::",
// as a cheap key shared by a symbol and its twins spelled for another ABI,
// C++ standard or TF version: "_ZNK10tensorflow12OpDefBuilder4AttrESs" ->
// "tensorflow::OpDefBuilder::Attr". It stops at the first part that is not a
// plain identifier (template arguments, substitutions, constructors); "tsl"
// and "absl" count as "tensorflow" (Status moved between them) and abseil's
// lts_ namespace is skipped. "" for a name
// that is not mangled.
std::string
name_key(std::string_view mangled);
// The same into `key`, reusing its storage (for scans of every export).
void
name_key(std::string_view mangled, std::string& key);

} // namespace opkit::elf
