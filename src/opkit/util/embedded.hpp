#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit {

// A file from templates/ or configs/, compiled into the binary.
struct EmbeddedFile
{
  std::string_view path; // relative to the source root, e.g. "configs/frameworks/tensorflow.yaml"
  std::string_view content;
};

// Every embedded file, sorted by path. Defined in the generated embedded_files.cpp.
const std::vector<EmbeddedFile>&
embedded_files();

// The content of one embedded file, or nothing when no such file was embedded.
std::optional<std::string_view>
find_embedded(std::string_view path);

// The content of an embedded file opkit itself needs; Error(system) when this
// binary was built without it.
std::string_view
require_embedded(std::string_view path);

// The embedded files under a folder prefix (e.g. "templates/tensorflow-op/").
std::vector<EmbeddedFile>
embedded_under(std::string_view prefix);

} // namespace opkit
