#pragma once

#include "opkit/elf/elf_file.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::package {

// What two op libraries loaded by one TensorFlow must agree on.
struct LibraryTraits
{
  std::optional<int> cxx11_abi; // _GLIBCXX_USE_CXX11_ABI, when the symbols show it
  std::string framework;        // the DT_NEEDED libtensorflow_framework.so*, empty when none
};

// The C++11 ABI the mangled names show (defined and undefined alike): std::__cxx11
// and [abi:cxx11] spellings are 1, the old std::string (Ss) is 0; nothing when
// the names show neither or both.
std::optional<int>
abi_from_symbols(const std::vector<std::string>& mangled);

LibraryTraits
library_traits(const elf::ElfInfo& elf);

// How `op` disagrees with `theirs`, one phrase per difference ("_GLIBCXX_USE_CXX11_ABI=0
// against 1"); what either side does not show is not compared.
std::vector<std::string>
traits_disagree(const LibraryTraits& op, const LibraryTraits& theirs);

// One library to pack into easy_rec/python/ops/<dir>/.
struct PackedOp
{
  std::string archive_path;     // easy_rec/python/ops/1.12_pai/librec_op.so
  std::filesystem::path file;   // build/tf-1.12.0/librec_op.so
  std::optional<int> built_abi; // the ABI opkit build recorded
  std::string tf;               // "1.12.0"
};

struct AbiCheck
{
  std::vector<std::string> findings; // "<op> ... <EasyRec's library> ..."
  std::vector<std::string> notes;    // what was compared, or why not
  std::string remedy;                // for the first finding
};

// Compares each op with the libraries EasyRec ships in the same folder of the
// checkout (those that need libtensorflow_framework: they show what the TF
// loading that folder takes), leaving out files the op replaces.
AbiCheck
check_against_shipped(const std::filesystem::path& easyrec_dir, const std::vector<PackedOp>& ops);

} // namespace opkit::package
