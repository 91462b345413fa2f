#pragma once

#include <string>
#include <vector>

namespace opkit {

// A library opkit opens on first use (util/lazy_library.hpp), as found now.
struct LoadedLibrary
{
  std::string name;    // "libcurl"
  std::string soname;  // the soname opkit opens
  std::string version; // the library's own answer ("7.88.1"), or "not found: ..."
};

// Opens libarchive, libcurl, libcrypto and libxml2 (if not yet open) and asks each its version.
std::vector<LoadedLibrary>
loaded_library_versions();

} // namespace opkit
