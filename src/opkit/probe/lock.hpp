#pragma once

// opkit.lock: the interface each library of a project registers in each
// TensorFlow SDK, as the probe read it from TensorFlow's own registry. Text,
// sorted, canonical (project/attr_spec): the same interface renders the same
// bytes on every machine, so the file is committed and reviewed like Cargo.lock.
#include "opkit/probe/probe.hpp"

#include <string>
#include <vector>

namespace opkit::probe {

// What a library registered in one SDK: its ops sorted by name (args and attrs
// in the order TensorFlow holds them), its kernels as sorted lines
// (`HashStrings CPU T in {float, int32}`).
struct Interface
{
  std::vector<RegisteredOp> ops;
  std::vector<std::string> kernels;
  bool operator==(const Interface& other) const;
};

struct LockEntry
{
  std::string library; // opkit.yaml's library name
  std::string sdk;     // the SDK id, e.g. tensorflow-2.10.1
  Interface interface;
};

// Sorted by (library, sdk), each pair once.
struct LockFile
{
  std::vector<LockEntry> entries;
  const LockEntry* find(const std::string& library, const std::string& sdk) const;
  // Adds the entry, or replaces the one of its library and SDK; keeps the order.
  void put(LockEntry entry);
};

Interface
interface_of(const ProbeReport& report);

// A kernel's line: `Op DEVICE[ A in {x, y}[; B in {z}]][ label "l"]`.
std::string
kernel_line(const RegisteredKernel& kernel);

std::string
render_lock(const LockFile& lock);

// Parses what render_lock wrote; anything else is Error(usage) "name:line:col: cause".
LockFile
parse_lock(const std::string& text, const std::string& name);

// How `after` differs from `before`, one readable line per difference, each
// naming its op: `HashStrings: attr salt: default "" -> "x"`,
// `HashStrings: kernel CPU T in {float}: removed`, `Widen: op added`.
std::vector<std::string>
diff_interfaces(const Interface& before, const Interface& after);

} // namespace opkit::probe
