#pragma once

#include "opkit/project/manifest.hpp"
#include "opkit/sdk/sdk.hpp"
#include "opkit/util/archive.hpp"
#include "opkit/util/json.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace opkit::package {

// A library `opkit build` made, with the facts it recorded in opkit-build.json.
struct BuiltLibrary
{
  sdk::Sdk sdk;               // the SDK it was built against
  std::string name;           // the library's name in opkit.yaml
  std::filesystem::path path; // build/tf-<version>/<output>
  Json facts;                 // opkit-build.json
  std::string python = {};    // a Python module's CPython ("3.10"); "" for a plain library

  std::string version() const { return sdk.version.str(); }
};

// The built libraries for the given version specs (default: opkit.yaml's
// targets), each resolved to an imported SDK: every library of opkit.yaml
// whose `tensorflow:` range holds the version. A library not built yet is
// Error(missing) naming the `opkit build` command.
std::vector<BuiltLibrary>
collect_built(const project::Manifest& manifest, const std::vector<std::string>& specs,
              const std::filesystem::path& build_root);

// Where a package goes: `given` (-o) when set, else the project's dist/
// (and `sub`, e.g. "tf-serving"). The project's folders are opkit's to write
// in but a repository's to fill: a dist/ (or its sub-folder) that is a
// symbolic link is refused (Error(usage) naming it), never written through.
std::filesystem::path
output_folder(const project::Manifest& manifest, const std::filesystem::path& given, const std::string& sub = "");

// The timestamp every packaged file gets: $SOURCE_DATE_EPOCH, else the
// project's last git commit, else 1980-01-01 (the earliest a zip can say).
int64_t
source_date_epoch(const std::filesystem::path& project_root);

// The manifest a package carries (opkit-manifest.json): each file's path, size
// and sha256, and per library its TF version, ABI, C++ standard, compiler and
// opkit version. `libraries` pairs a path inside the package with its facts.
Json
make_manifest(const std::string& kind, const std::string& name, const std::vector<ArchiveMember>& members,
              const std::vector<std::pair<std::string, Json>>& libraries);

// A file a package holds (or, with --dry-run, would hold).
struct PackedFile
{
  std::string path; // inside the package
  int64_t size = 0;
  std::string sha256;
};

// Each member's path, size and sha256, in the members' order.
std::vector<PackedFile>
packed_files(const std::vector<ArchiveMember>& members);

// Every regular file under a folder (paths relative to it, sorted), e.g. a bundle's.
std::vector<PackedFile>
folder_files(const std::filesystem::path& folder);

// The manifest's own file name inside every package.
inline const char* k_manifest_name = "opkit-manifest.json";

// Checks a package (a .tar.gz, a .whl or a folder) against the manifest it
// carries. Returns the problems found, empty when it verifies; Error(usage)
// when it carries no manifest or cannot be read.
std::vector<std::string>
verify_package(const std::filesystem::path& package);

} // namespace opkit::package
