#pragma once

#include "opkit/check/checker.hpp"

#include <string>
#include <vector>

namespace opkit::check {

// Sorts unresolved symbols into findings with a diagnosis and a remedy:
// the other C++ ABI's spelling, the other string_view, tsl:: vs tensorflow::,
// a TF symbol the framework does not export, anything else.
std::vector<Finding>
diagnose_unresolved(const std::vector<SymbolRef>& unresolved, const std::vector<const ProfileLibrary*>& frameworks,
                    const CheckTarget& target);

// Findings ordered by cause: one that alone explains the failure (the
// library was built for another release: the other C++ ABI or standard,
// another framework version or soname) comes first, and each fatal finding
// of what such a build also brings (symbol versions of its newer toolchain,
// symbols missing) says that it follows from it. Otherwise the order stays.
void
order_by_cause(std::vector<Finding>& findings, const CheckTarget& target);

// The `opkit build` command that rebuilds for the target's framework version.
std::string
rebuild_command(const CheckTarget& target);

// The demangled name with C++11-ABI markers removed (std::__cxx11::, [abi:cxx11]),
// so both ABIs' spellings of one function compare equal.
std::string
without_abi_tags(const std::string& demangled);

// ... and with std::string_view and absl::string_view made equal.
std::string
without_string_view_flavour(const std::string& demangled);

} // namespace opkit::check
