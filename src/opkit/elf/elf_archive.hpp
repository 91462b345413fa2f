#pragma once

// The members of a static archive (ar) of ELF objects and the global symbols
// each defines and needs, from their .symtab: what `opkit build` needs to take
// just some members of the compiler's own libstdc++.a.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace opkit::elf {

struct ArchiveMember
{
  std::string name;                 // as ar lists it, e.g. "functexcept.o"
  std::vector<std::string> defines; // global and weak symbols it defines
  std::vector<std::string> weak;    // those of them that are weak (template instances, COMDAT groups)
  std::vector<std::string> needs;   // symbols it leaves undefined
  std::vector<std::string> data;    // the defined ones that are data (objects, TLS), incl. GNU unique ones
};

// Reads every ELF member of the archive; members that are not ELF objects are
// skipped. Error(usage) naming the file when it is not an archive.
std::vector<ArchiveMember>
read_archive_members(const std::filesystem::path& archive);

// Turns the named definitions of a relocatable object into references (global,
// undefined), in place: its code then uses the one copy the process already has
// (e.g. the COW string's empty representation in the target's libstdc++)
// instead of a private one. Error(system) naming the file when it cannot.
void
make_references(const std::filesystem::path& object, const std::vector<std::string>& names);

// For each of `names` that code of a relocatable object refers to, the
// functions (their symbol names, as written) whose code holds the references.
// An object that is not a readable ELF object gives nothing.
std::map<std::string, std::vector<std::string>>
functions_referencing(const std::filesystem::path& object, const std::set<std::string>& names);

} // namespace opkit::elf
