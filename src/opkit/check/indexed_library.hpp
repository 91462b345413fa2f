#pragma once

#include "opkit/check/profile.hpp"

#include <filesystem>
#include <optional>

namespace opkit::check {

// Where the symbol index of a library is kept, and the lock its writers hold.
struct IndexPlace
{
  std::filesystem::path file;
  std::filesystem::path lock;
};

// The place for a library that belongs to no SDK (a system library): its
// absolute path mirrored under $OPKIT_HOME/cache/symbols/, with ".idx"
// appended, written under $OPKIT_HOME/locks/cache.lock.
IndexPlace
cache_place(const std::filesystem::path& library);

// `library` as a profile library whose symbols are looked up in its index.
// The index at place.file is mapped when it is current; when it is missing,
// stale, foreign or corrupt it is remade from the ELF, atomically, under
// place.lock; when it cannot be written (a read-only store), the library is
// read from the ELF for this process alone. Errors: those of read_elf.
ProfileLibrary
indexed_library(const std::filesystem::path& library, const IndexPlace& place);

// The symbols of this machine's `library` (a runtime policy's), looked up as
// indexed_library's are, the index found or made at the first lookup: a check
// opens the indexes of the libraries its op's load reaches, not of every one
// the policy lists. Errors (at that lookup): those of indexed_library.
elf::ExportedSymbols
host_symbols_on_first_use(const std::filesystem::path& library);

// A library known only by the index kept of it (the SDK's process/ libraries:
// `import tensorflow` loads them, the SDK does not keep them): mapped,
// unchecked against a file it no longer has; nothing when the index is
// missing or unusable. A corrupt entry found later answers no symbols. An
// index of the format before the current one (an SDK imported by an older
// opkit) is remade in the current format, atomically, under place.lock.
std::optional<ProfileLibrary>
index_only_library(const IndexPlace& place);

} // namespace opkit::check
