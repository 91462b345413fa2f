#pragma once

#include "opkit/adopt/scan.hpp"

#include <optional>
#include <string>
#include <vector>

// How `opkit init` names what it adopts: libraries from their folders and
// files, the files they make from the Python code that loads them.
namespace opkit::adopt {

// A library file's stem: "_time_two_ops.so", "libtime_two.so",
// "tf_sampling_so.so" (a research repository's loader name): time_two, tf_sampling.
std::string
stem_of(const std::string& output);

// A library's name from its file: "_text_ops.so": text_ops, "libresize.so": resize,
// "tf_sampling_so.so": tf_sampling.
std::string
name_of(const std::string& output);

// Library names: each one's last part (a folder's last component, a file's
// stem), more of its parts while two collide (Error(usage) when they collide
// whole); a part that is no valid name is made into one, with a note in `notes`.
std::vector<std::string>
library_names(const std::vector<std::vector<std::string>>& parts, const std::vector<std::string>& where,
              std::vector<std::string>& notes);

// A library file a Python file of the tree names ("_embed_ops.so"), as a whole file name.
struct Mention
{
  std::string name;
  std::string file; // the Python file
};

std::vector<Mention>
so_mentions(const std::vector<TreeText>& python);

// The file a Python file loads for library `index` of `groups` (each a list
// of folders): one of the names opkit expects (_<name>.so, _<name>_ops.so,
// lib<name>.so, with _ops stripped or added), else the one name whose stem
// ("_time_two_ops.so": time_two) is words of this library's folder path and
// of no other's, else the one name the Python files beside its sources load
// (a research repository's sampling/tf_sampling.py loading
// tf_sampling_so.so). Nothing when none is; `clue` says which of the last
// two it was.
std::optional<Mention>
python_output(const std::string& library, const std::vector<std::vector<std::string>>& groups, size_t index,
              const std::vector<Mention>& mentions, std::string& clue);

// A folder's name as a snake_case library or project name. One opkit's rules
// refuse ("3d_interpolation") is made into one they accept
// ("interpolation_3d"), with a note in `notes`; Error(usage) naming `folder`
// when it cannot be, or when there is no `notes` to say so in.
std::string
snake_name(std::string name, const char* what, const std::string& folder, std::vector<std::string>* notes);

} // namespace opkit::adopt
