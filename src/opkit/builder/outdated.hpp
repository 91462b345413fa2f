#pragma once

// What `opkit test` and `opkit package` build first (cargo's workflow): the
// targets whose libraries are missing or older than their inputs.
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::builder {

struct OutdatedTarget
{
  std::string spec;   // as the user asked ("1.12")
  std::string sdk_id; // what it resolved to ("tensorflow-1.12.0")
  std::string reason; // "not built yet", "sources changed", "opkit.yaml changed"
};

// The targets of `specs` (opkit.yaml's targets when empty) to build before
// using their libraries (`selected`, every library when empty): a library not
// built yet, ninja having work to do in the target's build.ninja (a source or
// header changed), or opkit.yaml newer than that build.ninja. An SDK that
// cannot be resolved is the store's error.
std::vector<OutdatedTarget>
outdated_targets(const project::Manifest& manifest, const std::vector<std::string>& specs,
                 const std::filesystem::path& build_root, const std::vector<std::string>& selected);

// Marks a target's build as seen after opkit.yaml's last change (build.ninja
// is rewritten only when its content changes).
void
mark_fresh(const std::filesystem::path& target_dir);

} // namespace opkit::builder
