#pragma once

#include "opkit/adopt/scan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace opkit::adopt {

// A shared library a repository's own build file makes (configs/adopt/build_files.yaml).
struct DeclaredLibrary
{
  std::string output;                   // the file it makes: "_text_ops.so"
  std::vector<std::string> sources;     // tree-relative, as listed (headers too; a dep's srcs and hdrs), unique
  std::vector<std::string> gpu_sources; // the rule's GPU sources (gpu_srcs), which CPU builds skip
  Place place;                          // the build file and the rule's line
  std::string rule;                     // "tf_custom_op_library", "Extension", "add_library", "make rule"
  std::string python_module;            // setup.py: the module's dotted name, as the package imports it ("pkg._C")

  // `lumen/text/BUILD:4 tf_custom_op_library "_normalize_ops.so"`
  std::string origin() const;
};

// A library file the Python code loads (tf.load_op_library(... "_text_ops.so")).
struct LoadedName
{
  std::string output; // the file name, without folders
  Place place;
  std::string call; // "load_op_library"
};

struct BuildDescription
{
  std::vector<DeclaredLibrary> libraries; // Bazel, setup.py, CMake, Makefiles, in that order; each by file and line
  std::vector<LoadedName> loaded;         // by file and line, once per file and name
  std::vector<std::string> notes;         // "note: ..." lines: what could not be read, and why
};

// Whether `opkit init` reads a file of this path as a build file (BUILD,
// CMakeLists.txt, Makefile, ...; setup.py is read with the Python files).
bool
is_build_file(const std::string& path);

// Reads the build files and the Python files of a tree (`tree_files`: every
// file's path, sorted) into the libraries they make and the names the
// Python code loads. Pure and tolerant: a file it cannot read (too large,
// binary, an unreadable rule) is a note, never an error.
BuildDescription
read_build_description(const std::vector<TreeText>& build_files, const std::vector<TreeText>& python,
                       const std::vector<std::string>& tree_files);

namespace build_files_detail {

// The work one read_build_description does at most, whatever its input: the
// paths its globs test, the characters its variable expansions write.
struct Budget
{
  size_t glob_tests = 5'000'000;
  size_t expanded = size_t(64) << 20;
  bool spent = false; // some work was left undone
};

// setup_py.cpp: the extension modules a setup.py makes (configs/adopt/
// build_files.yaml's setup_py): `CppExtension("pkg._C", [...])`, also
// through a name chosen between two classes (`extension = CUDAExtension if
// use_cuda else CppExtension`), its name an f-string, `%` or `+` of names
// assigned before, its sources lists, `+=`, os.path calls and glob.glob
// expanded against `tree_files` (relative to the setup.py's folder). What a
// CUDA build alone adds (`if use_cuda: sources += ...`) and .cu files are GPU
// sources. What it cannot read is a note naming the line.
void
read_setup_py(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into);

// make_files.cpp: CMake's add_library(NAME SHARED|MODULE ...) with
// set_target_properties' OUTPUT_NAME/PREFIX/SUFFIX and target_sources; a
// Makefile's rules making a *.so, and its recipe lines calling a compiler
// that writes one (read as a compile script's).
void
read_cmake(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into);
void
read_makefile(const TreeText& file, const std::vector<std::string>& tree_files, Budget& budget, BuildDescription& into);

// script_files.cpp: a compile script's compiler calls (configs/adopt/
// build_files.yaml's compile_scripts): one writing a *.so is a library of the
// sources it names and of those of the objects earlier calls wrote.
void
read_compile_script(const TreeText& file, const std::vector<std::string>& tree_files, BuildDescription& into);

// A C++ or CUDA source or header, by its extension (a Makefile's other prerequisites are not).
bool
is_code_file(const std::string& word);

std::string
parent_of(const std::string& path);

// A tree-relative path relative to `folder` (a build file's; "." the tree's root).
std::string
relative_to(const std::string& folder, const std::string& path);

// A glob pattern ("*.cc", "kernels/**/*.cc", "x_?.cc") against a relative path.
bool
glob_match(std::string_view pattern, std::string_view path);

// The tree's files under `folder` matching `pattern` (relative to it), sorted;
// none once the budget is spent.
std::vector<std::string>
glob_files(const std::string& folder, const std::string& pattern, const std::vector<std::string>& tree_files,
           Budget& budget);

// Adds `written` (relative to `folder`) to `list` when it is a file of the
// tree; otherwise a note naming `place`. False when it is not. A list
// already holding the most sources a library may have
// (configs/adopt/build_files.yaml's max_sources) is Error(usage) naming `place`.
void
require_room(const std::vector<std::string>& list, const Place& place);
bool
add_source(std::vector<std::string>& list, const std::string& folder, const std::string& written,
           const std::vector<std::string>& tree_files, const Place& place, std::vector<std::string>& notes);

} // namespace build_files_detail

} // namespace opkit::adopt
