#pragma once

// Where glibc's loader finds a needed library: the folders of DT_RPATH and
// DT_RUNPATH ($ORIGIN expanded), and which file of a name it takes there.
#include <filesystem>
#include <string>
#include <vector>

namespace opkit::check {

// The folders, with $ORIGIN (and ${ORIGIN}) replaced by `origin`.
std::vector<std::string>
expand_paths(const std::vector<std::string>& paths, const std::filesystem::path& origin);

// The first regular file of that name in the folders; "" when none.
std::string
find_file(const std::string& soname, const std::vector<std::string>& dirs);

// The first file of that name the loader of a `machine` process takes: as
// glibc's open_verify, it passes over one of another ELF class or machine and
// searches on (each noted in `passed_over`: "/op/libz.so.1 (a 32-bit library (ELFCLASS32))").
std::string
find_loadable(const std::string& soname, const std::vector<std::string>& dirs, const std::string& machine,
              std::vector<std::string>& passed_over);

} // namespace opkit::check
