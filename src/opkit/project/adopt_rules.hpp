#pragma once

#include <map>
#include <string>
#include <vector>

namespace opkit::project {

// configs/adopt/cpp_dtypes.yaml and configs/adopt/compat.yaml: what `opkit init`
// knows about C++ types, TF_CALL_* macros and version differences.
struct AdoptRules
{
  // A settings block a source earns by using an identifier (`tstring`).
  struct IdentifierRule
  {
    std::string identifier;
    std::string tensorflow; // a version range, as opkit.yaml's `when: tensorflow:`
    std::string compat;     // the compat shim it gets there (`shims`)
    std::string why;
  };
  // A note printed for a source including a header only some versions ship.
  struct IncludeNote
  {
    std::string include;
    std::string note;
  };

  std::map<std::string, std::string> cpp_types;                    // C++ spelling (no leading ::) -> dtype
  std::map<std::string, std::vector<std::string>> type_shorthands; // "realnumbertype" -> the dtypes it allows
  std::map<std::string, std::string> tf_call;                      // TF_CALL_<name> -> the C++ type it passes
  std::map<std::string, std::vector<std::string>> tf_call_groups;  // TF_CALL_<GROUP> -> TF_CALL_<name>s
  std::vector<IdentifierRule> identifiers;
  std::vector<IncludeNote> include_notes;
  std::vector<std::string> sdk_includes;    // include prefixes the SDK provides
  std::vector<std::string> gpu_macros;      // #if conditions that mean a GPU build
  std::map<std::string, std::string> shims; // compat shim name -> the header `opkit build` forces in

  // The dtype of a C++ type spelling ("::tensorflow::int32" -> "int32"); "" when unknown.
  std::string dtype_of(const std::string& cpp_type) const;
};

// configs/adopt/build_files.yaml: which build files `opkit init` reads, and
// which of their rules and calls make a library.
struct BuildFileRules
{
  struct SharedLibraryRule
  {
    std::string rule;
    std::string gpu_sources; // the keyword listing its GPU sources ("" = none)
    std::string needs;       // a keyword that must be true ("" = none)
  };
  size_t max_bytes = 0;
  size_t max_sources = 0; // per library
  size_t max_values = 0;  // per build file, its lists and variables expanded
  std::vector<std::string> bazel_files;
  std::vector<SharedLibraryRule> bazel_shared;
  std::vector<std::string> bazel_static;
  std::vector<std::string> bazel_gpu_conditions; // if_cuda([...]): what CUDA builds add
  std::vector<std::string> setup_files;
  std::vector<std::string> setup_extensions;
  std::vector<std::string> setup_cuda_extensions; // those a CUDA build uses (CUDAExtension)
  std::vector<std::string> cmake_files;
  std::vector<std::string> make_files;
  std::vector<std::string> script_files;     // glob patterns of a compile script's file name
  std::vector<std::string> script_compilers; // the programs whose calls in a script are build steps
  std::vector<std::string> python_loaders;
};

const BuildFileRules&
build_file_rules();

// configs/adopt/torch_cpp_types.yaml: the schema type of each C++ type a
// torch operator's function takes or returns, as torch infers a schema.
struct TorchCppTypes
{
  std::map<std::string, std::string> types; // C++ spelling (no leading ::) -> schema type ("Tensor", "int[]?")
  std::vector<std::string> optional;        // templates of T that are T?
  std::vector<std::string> list;            // templates of T that are T[]
  std::vector<std::string> tuple;           // a return of several results

  // The schema type of a C++ type (its tokens joined, const and references
  // dropped, no leading ::): "c10::optional<at::Tensor>" -> "Tensor?"; "" when unknown.
  std::string schema_type(const std::string& cpp_type) const;
};

const TorchCppTypes&
torch_cpp_types();

// The embedded rules, parsed once.
const AdoptRules&
adopt_rules();

} // namespace opkit::project
