#pragma once

#include "opkit/project/version.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::project {

// A range of TensorFlow versions, as opkit.yaml writes it: comparisons joined
// by commas, each one of <, <=, >, >=, == and a version (">=1.15,<2.4").
// Empty text: every version.
struct VersionRange
{
  struct Bound
  {
    std::string op; // "<", "<=", ">", ">=", "=="
    Version version;
  };
  std::string text;
  std::vector<Bound> bounds;

  bool contains(const Version& version) const;
  bool empty() const { return bounds.empty(); }
};

// Parses a range; nothing when malformed.
std::optional<VersionRange>
parse_version_range(const std::string& text);

// Which builds a settings block applies to: the SDK's device ("cpu" for a
// CPU-only framework, "gpu" for a CUDA build) and its version.
struct BuildCondition
{
  VersionRange versions; // of the project's framework (opkit.yaml's `tensorflow:` or `torch:`)
  std::string device;    // "", "cpu" or "gpu"
};

// Build settings, as opkit.yaml's `build:` (every library) and each library
// write them; a `when:` entry is another block with a condition.
struct SettingsBlock
{
  BuildCondition when;
  std::vector<std::string> sources;      // relative to the project (libraries only)
  std::vector<std::string> include_dirs; // relative to the project; may be outside src/
  std::vector<std::string> defines;      // NAME or NAME=VALUE
  std::vector<std::string> cflags;       // compiler flags (-O3, -fopenmp, -mfma)
  std::vector<std::string> ldflags;      // link flags (-fopenmp, -Wl,...)
  std::vector<std::string> libs;         // libraries to link: -l<name>
  std::vector<std::string> compat = {};  // compat shims forced into each source (configs/adopt/compat.yaml)
};

// The settings of one library for one SDK: every block whose condition holds,
// in order (project blocks first), concatenated. Pure.
struct ResolvedSettings
{
  std::vector<std::string> sources;                // compiled sources (headers dropped), relative to the project
  std::vector<std::string> headers;                // listed headers: dependencies, never compiled
  std::vector<std::filesystem::path> include_dirs; // absolute
  std::vector<std::string> defines;
  std::vector<std::string> cflags;
  std::vector<std::string> ldflags;
  std::vector<std::string> libs;
  std::vector<std::string> compat = {}; // each once
};

ResolvedSettings
resolve_settings(const std::filesystem::path& root, const std::vector<SettingsBlock>& project,
                 const std::vector<SettingsBlock>& library, const Version& version, bool gpu);

// True for a file the compiler reads only through #include (.h, .hpp, .cuh, ...).
bool
is_header(const std::string& path);

} // namespace opkit::project
