#pragma once

// Small, linear scans of mangled and demangled C++ names (they come from
// untrusted libraries, so no std::regex, whose recursion a long name overflows).

#include <string>
#include <string_view>

namespace opkit::check {

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

} // namespace opkit::check
