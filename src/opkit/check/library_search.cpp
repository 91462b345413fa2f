#include "opkit/check/library_search.hpp"

#include "opkit/elf/elf_file.hpp"
#include "opkit/util/format.hpp"

#include <string_view>

namespace opkit::check {

namespace stdfs = std::filesystem;

std::vector<std::string>
expand_paths(const std::vector<std::string>& paths, const stdfs::path& origin)
{
  std::vector<std::string> result;
  for (std::string path : paths) {
    for (const char* token : {"$ORIGIN", "${ORIGIN}"}) {
      for (size_t pos = path.find(token); pos != std::string::npos; pos = path.find(token)) {
        path.replace(pos, std::string_view(token).size(), origin.string());
      }
    }
    result.push_back(path);
  }
  return result;
}

std::string
find_file(const std::string& soname, const std::vector<std::string>& dirs)
{
  for (const std::string& dir : dirs) {
    std::error_code ec;
    stdfs::path candidate = stdfs::path(dir) / soname;
    if (stdfs::is_regular_file(candidate, ec)) {
      return candidate.string();
    }
  }
  return {};
}

// The first file of that name the loader of a `machine` process takes: as
// glibc's open_verify, it passes over one of another ELF class or machine and
// searches on (each noted in `passed_over`: "/op/libz.so.1 (a 32-bit library (ELFCLASS32))").
std::string
find_loadable(const std::string& soname, const std::vector<std::string>& dirs, const std::string& machine,
              std::vector<std::string>& passed_over)
{
  for (const std::string& dir : dirs) {
    std::error_code ec;
    stdfs::path candidate = stdfs::path(dir) / soname;
    if (!stdfs::is_regular_file(candidate, ec)) {
      continue;
    }
    std::string why = elf::loader_passes_over(candidate, machine);
    if (why.empty()) {
      return candidate.string();
    }
    passed_over.push_back(fmt::format("{} ({})", candidate.string(), why));
  }
  return {};
}

} // namespace opkit::check
