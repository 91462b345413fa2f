#include "opkit/package/easyrec_abi.hpp"

#include "opkit/elf/mangled.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

#include <algorithm>

namespace opkit::package {

namespace stdfs = std::filesystem;

namespace {

bool
is_shared_object_name(const std::string& name)
{
  return ends_with(name, ".so") || name.find(".so.") != std::string::npos;
}

// The files of one ops folder that may be shared objects, sorted.
std::vector<stdfs::path>
shipped_libraries(const stdfs::path& dir)
{
  std::vector<stdfs::path> found;
  std::error_code ec;
  for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
    if (is_shared_object_name(it->path().filename().string()) && it->is_regular_file(ec)) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string
describe(const LibraryTraits& traits)
{
  std::vector<std::string> parts;
  if (traits.cxx11_abi) {
    parts.push_back(fmt::format("_GLIBCXX_USE_CXX11_ABI={}", *traits.cxx11_abi));
  }
  if (!traits.framework.empty()) {
    parts.push_back(traits.framework);
  }
  return parts.empty() ? "nothing comparable" : join(parts, ", ");
}

} // namespace

std::optional<int>
abi_from_symbols(const std::vector<std::string>& mangled)
{
  size_t cxx11 = 0;
  size_t old_string = 0;
  for (const std::string& name : mangled) {
    if (!starts_with(name, "_Z")) {
      continue;
    }
    if (name.find("St7__cxx11") != std::string::npos || name.find("B5cxx11") != std::string::npos) {
      ++cxx11;
    } else if (elf::has_old_std_string(name)) { // the old ABI's std::string
      ++old_string;
    }
  }
  if (cxx11 > 0 && old_string == 0) {
    return 1;
  }
  if (old_string > 0 && cxx11 == 0) {
    return 0;
  }
  return std::nullopt;
}

LibraryTraits
library_traits(const elf::ElfInfo& elf)
{
  LibraryTraits traits;
  std::vector<std::string> names;
  for (const elf::ElfSymbol& symbol : elf.dynamic_symbols) {
    names.push_back(symbol.name);
  }
  traits.cxx11_abi = abi_from_symbols(names);
  for (const std::string& needed : elf.needed) {
    if (starts_with(needed, "libtensorflow_framework.so")) {
      traits.framework = needed;
    }
  }
  return traits;
}

std::vector<std::string>
traits_disagree(const LibraryTraits& op, const LibraryTraits& theirs)
{
  std::vector<std::string> differences;
  if (op.cxx11_abi && theirs.cxx11_abi && *op.cxx11_abi != *theirs.cxx11_abi) {
    differences.push_back(fmt::format("_GLIBCXX_USE_CXX11_ABI={} against {}", *op.cxx11_abi, *theirs.cxx11_abi));
  }
  if (!op.framework.empty() && !theirs.framework.empty() && op.framework != theirs.framework) {
    differences.push_back(fmt::format("{} against {}", op.framework, theirs.framework));
  }
  return differences;
}

AbiCheck
check_against_shipped(const stdfs::path& easyrec_dir, const std::vector<PackedOp>& ops)
{
  AbiCheck result;
  for (const PackedOp& op : ops) {
    stdfs::path archive_path(op.archive_path);
    std::string folder = archive_path.parent_path().generic_string();
    LibraryTraits mine = library_traits(elf::read_elf(op.file));
    if (op.built_abi) {
      mine.cxx11_abi = op.built_abi;
    }
    std::vector<std::string> compared;
    for (const stdfs::path& theirs_path : shipped_libraries(easyrec_dir / folder)) {
      std::string theirs_name = folder + "/" + theirs_path.filename().string();
      if (theirs_path.filename() == archive_path.filename()) {
        continue; // the op replaces it
      }
      LibraryTraits theirs;
      try {
        theirs = library_traits(elf::read_elf(theirs_path));
      } catch (const Error&) {
        result.notes.push_back(
          fmt::format("{}: not an ELF shared object, not compared with {}", theirs_name, op.archive_path));
        continue;
      }
      if (theirs.framework.empty()) {
        continue; // a helper library (librdkafka, ...): says nothing about the TF loading the folder
      }
      compared.push_back(theirs_path.filename().string());
      std::vector<std::string> differences = traits_disagree(mine, theirs);
      if (differences.empty()) {
        continue;
      }
      result.findings.push_back(fmt::format("{} ({}) does not match EasyRec's {} in the same folder: {}; the TF "
                                            "that loads {}/ cannot take both",
                                            op.archive_path, op.file, theirs_name, join(differences, ", "), folder));
      if (result.remedy.empty()) {
        result.remedy = mine.cxx11_abi && theirs.cxx11_abi && *mine.cxx11_abi != *theirs.cxx11_abi
                          ? fmt::format("rebuild it as EasyRec's is built, opkit build --tf {} --abi {}, or pass "
                                        "--force to pack it anyway",
                                        op.tf, *theirs.cxx11_abi)
                          : fmt::format("build it against the SDK of the TF that loads {}/ (needing {}), or pass "
                                        "--force to pack it anyway",
                                        folder, theirs.framework);
      }
    }
    if (compared.empty()) {
      result.notes.push_back(
        fmt::format("{}: EasyRec ships no TensorFlow library in {}/ to compare its ABI with", op.archive_path, folder));
    } else {
      result.notes.push_back(fmt::format("{} ({}) compared with EasyRec's {} in {}/", op.archive_path, describe(mine),
                                         join(compared, ", "), folder));
    }
  }
  return result;
}

} // namespace opkit::package
