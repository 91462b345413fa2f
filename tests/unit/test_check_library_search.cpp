#include "opkit/check/library_search.hpp"
#include "opkit/elf/elf_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace stdfs = std::filesystem;

namespace {

// The first 20 bytes of an ELF header: class, data encoding, e_type ET_DYN, e_machine.
std::string
elf_head(char elf_class, char data, unsigned machine)
{
  std::string head = std::string("\x7f"
                                 "ELF",
                                 4)
                     + elf_class + data + std::string(10, '\1');
  head += std::string("\3\0", 2);
  head += static_cast<char>(machine & 0xff);
  head += static_cast<char>(machine >> 8);
  return head;
}

void
write(const stdfs::path& path, const std::string& bytes)
{
  stdfs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

TEST(LibrarySearch, TheLoaderPassesOverAnotherClassOrMachineOnly)
{
  using opkit::elf::loader_passes_over_bytes;
  EXPECT_EQ(loader_passes_over_bytes(elf_head(2, 1, 62), "x86_64"), "");
  EXPECT_EQ(loader_passes_over_bytes(elf_head(1, 1, 3), "x86_64"), "a 32-bit library (ELFCLASS32)");
  EXPECT_EQ(loader_passes_over_bytes(elf_head(2, 1, 183), "x86_64"), "an aarch64 library");
  EXPECT_EQ(loader_passes_over_bytes(elf_head(2, 1, 40), "x86_64"), "a library for ELF machine 40");
  // Taken, and then the load fails there: the right class in big-endian, not ELF, too short.
  EXPECT_EQ(loader_passes_over_bytes(elf_head(2, 2, 62 << 8), "x86_64"), "");
  EXPECT_EQ(loader_passes_over_bytes("INPUT(libz.so.1)", "x86_64"), "");
  EXPECT_EQ(loader_passes_over_bytes("\x7f"
                                     "ELF",
                                     "x86_64"),
            "");
}

TEST(LibrarySearch, FindLoadableSearchesOnPastWhatItPassesOver)
{
  stdfs::path root = stdfs::temp_directory_path() / ("opkit-search-" + std::to_string(::getpid()));
  stdfs::remove_all(root);
  write(root / "op" / "libz.so.1", elf_head(1, 1, 3));
  write(root / "sys" / "libz.so.1", elf_head(2, 1, 62));
  std::vector<std::string> dirs = opkit::check::expand_paths({"$ORIGIN", (root / "sys").string()}, root / "op");
  ASSERT_EQ(dirs.front(), (root / "op").string());
  std::vector<std::string> passed_over;
  EXPECT_EQ(opkit::check::find_loadable("libz.so.1", dirs, "x86_64", passed_over), (root / "sys/libz.so.1").string());
  ASSERT_EQ(passed_over.size(), 1u);
  EXPECT_EQ(passed_over[0], (root / "op/libz.so.1").string() + " (a 32-bit library (ELFCLASS32))");
  EXPECT_EQ(opkit::check::find_file("libz.so.1", dirs), (root / "op/libz.so.1").string());
  stdfs::remove_all(root);
}
