#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::check {

// What glibc's loader finds through ldconfig's cache (/etc/ld.so.cache) on a
// machine: soname -> the file, in the cache's order (the first entry of a
// soname wins, as the loader's lookup takes it). The loader reads only the
// cache, never /etc/ld.so.conf itself: a library in a folder ld.so.conf lists
// is found only once ldconfig has run.
//
// Reads the "glibc-ld.so.cache1.1" format, alone or after the old
// "ld.so-1.7.0" table, bounds-checked (the file is untrusted input): a damaged
// or unknown cache, an entry whose string lies outside the file or is not
// NUL-terminated, is skipped, never read past. Entries for other
// architectures than this x86-64 or aarch64 build are left out.
std::map<std::string, std::string>
read_ld_cache(std::string_view bytes);

// The folders /etc/ld.so.conf (`conf`) names, following its `include`
// patterns (glob, relative to the file's folder), in order, at most 16 deep;
// comments and `hwcap` lines skipped. A file that cannot be read gives nothing.
std::vector<std::string>
read_ld_conf(const std::filesystem::path& conf);

} // namespace opkit::check
