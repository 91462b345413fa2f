#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::check {

// What a library `opkit build` did not make shows about the TensorFlow it was
// built for: a version where something names one, and each clue in words.
struct Provenance
{
  std::string version;               // "2.10.1", "1.12", or empty when nothing names one
  std::vector<std::string> evidence; // "its path names TF 1.12 (.../1.12/libx.so)"
};

// A TF version a path names: a directory called "1.12" (EasyRec's layout) or
// a part spelled tf2.10 / tf-1.15.5 / tensorflow_2.10 in a directory or the
// file's name before ".so". Empty when none does.
std::string
version_named_by_path(const std::filesystem::path& library);

// The TensorFlow requirement of a dist-info METADATA text: the first
// "Requires-Dist: tensorflow..." (also tensorflow-cpu, -gpu) line's
// specifier ("==2.10.1", ">=1.15,<2"), or empty.
std::string
tensorflow_requirement(std::string_view metadata);

// Gathers the clues: the framework library it needs (`framework_range`, the
// versions with that library, from configs/frameworks/tensorflow.yaml), the
// path, and the METADATA of the wheel whose RECORD lists it (looked for in
// its parent folders). Never fails: an unreadable clue is no clue.
Provenance
read_provenance(const std::filesystem::path& library, const std::string& framework_needed,
                const std::string& framework_range);

} // namespace opkit::check
