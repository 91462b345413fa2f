#include "opkit/util/embedded.hpp"

#include "opkit/util/error.hpp"

namespace opkit {

std::optional<std::string_view>
find_embedded(std::string_view path)
{
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path == path) {
      return file.content;
    }
  }
  return std::nullopt;
}

std::string_view
require_embedded(std::string_view path)
{
  std::optional<std::string_view> content = find_embedded(path);
  if (!content) {
    fail(ExitCode::system, "{}: not embedded in this opkit binary", path);
  }
  return *content;
}

std::vector<EmbeddedFile>
embedded_under(std::string_view prefix)
{
  std::vector<EmbeddedFile> result;
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.path.substr(0, prefix.size()) == prefix) {
      result.push_back(file);
    }
  }
  return result;
}

} // namespace opkit
