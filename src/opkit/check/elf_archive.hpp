#pragma once

// The members of a static archive (ar) of ELF objects and the global symbols
// each defines and needs, from their .symtab: what `opkit build` needs to take
// just some members of the compiler's own libstdc++.a.
#include <filesystem>
#include <string>
#include <vector>

namespace opkit::check {

struct ArchiveMember
{
  std::string name;                 // as ar lists it, e.g. "functexcept.o"
  std::vector<std::string> defines; // global and weak symbols it defines
  std::vector<std::string> weak;    // those of them that are weak (template instances, COMDAT groups)
  std::vector<std::string> needs;   // symbols it leaves undefined
};

// Reads every ELF member of the archive; members that are not ELF objects are
// skipped. Error(usage) naming the file when it is not an archive.
std::vector<ArchiveMember>
read_archive_members(const std::filesystem::path& archive);

} // namespace opkit::check
