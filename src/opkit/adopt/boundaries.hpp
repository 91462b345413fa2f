#pragma once

#include "opkit/adopt/adopt.hpp"
#include "opkit/adopt/build_files.hpp"

#include <string>
#include <vector>

namespace opkit::adopt {

// One library of `opkit init`: which sources, under what name and file, and where that came from.
struct LibraryGroup
{
  std::string name;
  std::string output;                   // the file it makes
  bool default_output = false;          // lib<name>.so, as nothing in the tree named another
  std::string python_module;            // a setup.py extension's dotted module name ("pkg._C"); "" otherwise
  std::vector<std::string> sources;     // compiled by every build, tree-relative, sorted
  std::vector<std::string> gpu_sources; // `device: gpu` (.cu.cc, .cu, a rule's GPU sources), sorted
  std::vector<std::string> lines;       // its report lines: where it came from, its file name
};

// The libraries of a scanned tree: first those its build files make
// (`build`), then those a Python loader names whose sources are named alike
// where they split a folder, then one per folder of the op sources left
// (a folder of kernels only joining the folder registering its ops), the
// file names of those guessed from the Python files. `--lib-per-folder`
// (options.per_folder) reads folders only, `--single-library` makes one.
// Sorted by name; notes are appended to `report`. Pure; names that collide
// however long are Error(usage).
std::vector<LibraryGroup>
plan_libraries(const AdoptedTree& tree, const BuildDescription& build, const AdoptOptions& options,
               const std::string& tree_name, std::vector<std::string>& report);

// A compiled, non-test source: *.cc, *.cpp, *.cu.cc, *.cu but not *_test.*.
bool
is_source(const std::string& path);

// A CUDA source: *.cu.cc, *.cu.
bool
is_gpu_source(const std::string& path);

bool
has_component(const std::string& path, const std::string& component);

// "1 source", "2 sources".
std::string
plural(size_t count, const char* word);

} // namespace opkit::adopt
