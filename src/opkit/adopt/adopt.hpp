#pragma once

#include "opkit/adopt/scan.hpp"
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace opkit::adopt {

struct AdoptOptions
{
  std::string name;                         // the project's name (default: the folder's)
  std::vector<std::string> target_versions; // targets.<framework> (default: none written)
  std::string versions_framework;           // the framework whose option gave them (--tf, --torch); "" when none
  std::string single_library;               // one library of every op source, named so ("" = as the build files say)
  bool per_folder = false;                  // one library per folder, whatever the build files say
  bool write_ops = false; // `init --ops`: write each library's `ops:` (else opkit.lock is the contract)
};

// What `opkit init` writes, and what it says about it.
struct Adoption
{
  std::string name;
  std::string framework = "tensorflow"; // what the sources register for: REGISTER_OP, or TORCH_LIBRARY (torch)
  std::vector<std::string> target_versions;
  std::vector<std::string> include_dirs;       // build.include_dirs, relative to the project ("." first)
  std::vector<project::SettingsBlock> when;    // build.when: the compatibility blocks
  std::vector<project::LibrarySpec> libraries; // settings[0]: sources; settings[1], if any: `device: gpu` sources
  std::string package; // the tree's own Python package setup.py's extensions are in ("segkit"), if it has one
  // One line per finding: "found: ...", "guessed: ...", "note: ...", "unresolved: ...".
  std::vector<std::string> report;
};

// Groups a scanned tree into libraries (as its build files and Python loaders
// say, else one per folder of op sources: adopt/boundaries), joins each op
// with its kernels, finds the include roots and the compatibility settings. `folder` is
// the tree's folder (its last component is the default project name). Pure;
// bad names, or no op source at all, are Error(usage).
Adoption
plan_adoption(const AdoptedTree& tree, const std::string& folder, const AdoptOptions& options);

// opkit.yaml's text (the `libraries:` form) for an adoption.
std::string
render_manifest(const Adoption& adoption);

// Reads a folder: every file's path; the texts of its C++ files (not under
// third_party/), *.py files and build files (a larger one is a note). Skips hidden folders, build/, bazel-*,
// virtualenvs and SDKs (opkit's home, folders holding sdk.json).
AdoptedTree
read_tree(const std::filesystem::path& root);

struct InitResult
{
  std::filesystem::path manifest; // <dir>/opkit.yaml
  std::string text;
  Adoption adoption;
};

// `opkit init`: refuses when <dir>/opkit.yaml exists (Error(usage) naming it;
// not with `dry_run`), scans, plans, renders, checks the text with
// project::parse_manifest (a failure is an internal Error(system)) and, unless
// `dry_run`, writes it atomically without ever replacing a file.
InitResult
init_project(const std::filesystem::path& dir, const AdoptOptions& options, bool dry_run);

} // namespace opkit::adopt
