#pragma once

#include "opkit/project/manifest.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opkit::adopt {

// Where something was found: a file of the tree (relative, '/' separators) and its line.
struct Place
{
  std::string file;
  int line = 0;

  std::string str() const;
};

// A REGISTER_OP chain as opkit.yaml declares it: inputs, outputs and attrs
// (kernels are the registrations', joined later). torch: a TORCH_LIBRARY
// block's m.def() or a RegisterOperators chain's .op(): name "ns::op", and
// `schema` when the text gives one, or when torch infers it from a C++
// function this file holds (m.def("op", &function), `inferred`).
struct FoundOp
{
  project::OpSpec op;
  Place place;
  bool inferred = false; // the schema is the one torch infers from the registered function
};

// One REGISTER_KERNEL_BUILDER, after the file's own macros and TF_CALL_* expanded;
// torch: one m.impl() of a TORCH_LIBRARY_IMPL block, or an m.def() with a function.
struct FoundKernel
{
  std::string op;
  std::string device;                                           // "CPU" or "GPU"; torch: the dispatch key
  std::vector<std::pair<std::string, std::string>> constraints; // (attr, dtype) per TypeConstraint
  bool gpu_build = false; // inside #if GOOGLE_CUDA (or ROCm), or in a .cu.cc/.cu file
  Place place;
};

struct FoundInclude
{
  std::string path; // as written between the quotes
  int line = 0;
};

// What one C++ file holds.
struct SourceScan
{
  std::string file;
  std::vector<FoundOp> ops;
  std::vector<FoundKernel> kernels;
  std::vector<FoundInclude> includes;        // #include "..." (not <...>)
  std::vector<FoundInclude> system_includes; // #include <...>
  // A Python extension module's code: "file:line: PYBIND11_MODULE" (or
  // "defines PyInit__C", "includes <torch/extension.h>"); "" for none.
  std::string module_code;
  std::string module_name; // PyInit_<name>'s name, or PYBIND11_MODULE's first argument (not TORCH_EXTENSION_NAME)
  // PYBIND11_MODULE's m.def("name", ...): op.name is the function's name, op.schema (when torch would infer one
  // from the C++ function this file holds) its schema with `_` for the module's name ("_::f(Tensor _0) -> ...").
  std::vector<FoundOp> functions;
  std::vector<std::string> identifiers; // the watched identifiers its code uses, sorted
  std::vector<std::string> problems;    // "file:line: what could not be read", in order
  std::vector<Place> skipped;           // torch registrations seen and not read (each also a problems line)
  // It mentions REGISTER_OP or REGISTER_KERNEL_BUILDER (or TORCH_LIBRARY*) in
  // code, or registers through torch::RegisterOperators; not a file whose
  // every registration was skipped.
  bool registers = false;
  // It has a TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT or TORCH_LIBRARY_IMPL block, or a RegisterOperators .op() read.
  bool torch = false;
  int main_line = 0; // where it defines `int main(` at file scope: a program, not a library's source
};

// Scans one C++ file's text: comments, line continuations, #if 0, adjacent
// string literals, the file's own #define macros (object- and function-like,
// with # and ##), TF_CALL_<type>/TF_CALL_<GROUP> (configs/adopt/cpp_dtypes.yaml)
// and #if GOOGLE_CUDA blocks. `watched`: identifiers to report when its code
// uses them (not in comments or strings). Pure.
SourceScan
scan_source(std::string_view text, const std::string& file, const std::vector<std::string>& watched = {});

// REGISTER_OP's strings: "x: T", "xs: N * T", "r: Ref(T)", "y: int64" (type
// is a dtype or the attr's name). Nothing, with `problem` set, when unreadable.
std::optional<project::OpArg>
parse_arg_spec(const std::string& spec, std::string& problem);

// "T: {float, double} = DT_FLOAT", "n: int >= 1", "salt: string", "l: list(int) = []":
// the attr's name, opkit.yaml type and allowed dtypes. Nothing, with `problem`
// set, for a type opkit.yaml cannot declare (func, list(string), ...);
// `problem` may also be set on success (an unknown dtype left out of {...}).
std::optional<project::OpAttr>
parse_attr_spec(const std::string& spec, std::string& problem);

struct TreeText
{
  std::string path; // relative to the tree root, '/' separators
  std::string text;
};

// A shared library already built in the tree (a release's copy in 2.12/):
// the op names its read-only strings hold, which can name the library of
// the sources registering the same ops.
struct PrebuiltLibrary
{
  std::string path;                 // relative to the tree root
  std::set<std::string> op_strings; // its NUL-terminated strings shaped like TF op names
};

// The strings of an ELF file's bytes shaped like TensorFlow op names
// ([A-Z][A-Za-z0-9>]*, NUL-terminated), or nothing when it is no ELF file.
std::optional<std::set<std::string>>
op_strings_of(std::string_view bytes);

// A scanned tree: every file's path (for resolving includes) and the scans of
// its C++ files; the Python files' texts (for the library file names they load)
// and the build files'; the op names of the shared libraries already built in it.
struct AdoptedTree
{
  std::vector<std::string> files; // sorted
  std::vector<PrebuiltLibrary> prebuilt;
  std::vector<SourceScan> scans; // sorted by file
  std::vector<TreeText> python;
  std::vector<TreeText> build_files; // BUILD, CMakeLists.txt, Makefile, ... (adopt/build_files)
  std::vector<std::string> notes;    // "note: ..." about files that could not be read

  const SourceScan* find(const std::string& path) const;
  bool has_file(const std::string& path) const;
};

// Scans the C++ texts (watching configs/adopt/compat.yaml's identifiers). Pure.
AdoptedTree
scan_tree(std::vector<std::string> files, const std::vector<TreeText>& cpp, std::vector<TreeText> python);

} // namespace opkit::adopt
