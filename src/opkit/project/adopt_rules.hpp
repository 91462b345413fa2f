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

// The embedded rules, parsed once.
const AdoptRules&
adopt_rules();

} // namespace opkit::project
