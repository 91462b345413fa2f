#pragma once

// The build root's compile_commands.json: clangd, started in the project,
// looks in build/ and finds one entry per source.
#include <filesystem>
#include <string>
#include <vector>

namespace opkit::builder {

// Merges compile_commands.json texts, ordered by preference (the newest
// TensorFlow first): each file keeps the first entry that names it. Bad JSON
// is skipped.
std::string
merge_compile_commands(const std::vector<std::string>& texts);

// Writes <build_root>/compile_commands.json (only when it changed) from every
// tf-<version>[-cuda]/compile_commands.json below it, the newest version's
// entry winning. Returns its path.
std::filesystem::path
write_root_compile_commands(const std::filesystem::path& build_root);

} // namespace opkit::builder
