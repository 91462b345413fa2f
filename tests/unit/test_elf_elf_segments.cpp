// The ELF reader through program headers (elf/elf_segments): a library
// stripped of its section headers reads as it did with them, and what the
// dynamic loader refuses is judged not loadable -- compared with dlopen itself.

#include "opkit/elf/elf_file.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include <dlfcn.h>
#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

namespace opkit::elf {

namespace {

namespace stdfs = std::filesystem;

// A C++ library with a soname, a runpath, versions of its own (one only as a
// hidden foo@VER) and versions it needs; and a C library that dlopen can load.
constexpr const char* k_versioned_source = R"(
#include <string>
extern "C" void opkit_seg_undefined(int);
extern "C" void opkit_seg_weak(int) __attribute__((weak));
extern "C" int opkit_seg_defined(const char* text)
{
  std::string copy(text);
  opkit_seg_undefined(1);
  if (opkit_seg_weak) {
    opkit_seg_weak(2);
  }
  return static_cast<int>(copy.size());
}
extern "C" int opkit_seg_old_impl() { return 1; }
__asm__(".symver opkit_seg_old_impl, opkit_seg_old@OPKIT_0.9");
)";

constexpr const char* k_version_script = R"(
OPKIT_0.9 { global: opkit_seg_old; };
OPKIT_1.0 { global: opkit_seg_defined; local: *; } OPKIT_0.9;
)";

constexpr const char* k_plain_source = "int opkit_seg_plain(void) { return 1; }\n";

struct Fixtures
{
  fs::TempDir dir{"opkit-elf-segments-test"};
  stdfs::path versioned; // libv.so, see k_versioned_source
  stdfs::path plain;     // libp.so: loads with dlopen
  std::string error;     // why building failed; empty on success

  Fixtures()
  {
    const stdfs::path& d = dir.path();
    fs::write_file_atomic(d / "v.cpp", k_versioned_source);
    fs::write_file_atomic(d / "v.map", k_version_script);
    fs::write_file_atomic(d / "p.c", k_plain_source);
    versioned = d / "libv.so";
    plain = d / "libp.so";
    error = compile(fmt::format("-shared -fPIC -o '{}' '{}' -Wl,-soname,libv.so.1 -Wl,--enable-new-dtags"
                                " -Wl,-rpath,'$ORIGIN/lib' -Wl,--version-script='{}'",
                                versioned.string(), (d / "v.cpp").string(), (d / "v.map").string()));
    if (error.empty()) {
      error = compile(fmt::format("-x c -shared -fPIC -o '{}' '{}'", plain.string(), (d / "p.c").string()));
    }
  }

  std::string compile(const std::string& arguments) const
  {
    stdfs::path log = dir.path() / "compile.log";
    std::string command = fmt::format("c++ {} >'{}' 2>&1", arguments, log.string());
    int status = std::system(command.c_str());
    return status == 0 ? "" : fmt::format("`{}` failed with status {}:\n{}", command, status, fs::read_file(log));
  }
};

const Fixtures&
fixtures()
{
  static Fixtures instance;
  return instance;
}

std::string
libstdcxx_path()
{
  FILE* pipe = popen("c++ -print-file-name=libstdc++.so.6 2>/dev/null", "r");
  if (pipe == nullptr) {
    return "";
  }
  char buffer[4096] = {};
  std::string path = fgets(buffer, sizeof(buffer), pipe) ? buffer : "";
  pclose(pipe);
  path.erase(path.find_last_not_of('\n') + 1);
  return path;
}

Elf64_Ehdr
elf_header(const std::string& bytes)
{
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}

void
put_elf_header(std::string& bytes, const Elf64_Ehdr& header)
{
  std::memcpy(bytes.data(), &header, sizeof(header));
}

// What sstrip does: no section header table; optionally also the bytes after
// the last loaded segment cut off (the non-allocated sections and the table).
std::string
strip_section_headers(std::string bytes, bool cut = false)
{
  Elf64_Ehdr header = elf_header(bytes);
  // A damaged count (PN_XNUM) is read only as far as the bytes go.
  size_t count = std::min<size_t>(header.e_phnum, (bytes.size() - header.e_phoff) / sizeof(Elf64_Phdr));
  size_t end = header.e_phoff + count * sizeof(Elf64_Phdr);
  for (size_t i = 0; i < count; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof(segment), sizeof(segment));
    end = std::max<size_t>(end, segment.p_offset + segment.p_filesz);
  }
  header.e_shoff = 0;
  header.e_shnum = 0;
  header.e_shstrndx = 0;
  put_elf_header(bytes, header);
  if (cut) {
    bytes.resize(end);
  }
  return bytes;
}

// Rewrites program header `index` through `change`.
template<typename Change>
std::string
with_segment(std::string bytes, size_t index, Change change)
{
  Elf64_Ehdr header = elf_header(bytes);
  Elf64_Phdr segment;
  char* at = bytes.data() + header.e_phoff + index * sizeof(segment);
  std::memcpy(&segment, at, sizeof(segment));
  change(segment);
  std::memcpy(at, &segment, sizeof(segment));
  return bytes;
}

// Index of the first program header of `type`.
size_t
segment_index(const std::string& bytes, uint32_t type)
{
  Elf64_Ehdr header = elf_header(bytes);
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, bytes.data() + header.e_phoff + i * sizeof(segment), sizeof(segment));
    if (segment.p_type == type) {
      return i;
    }
  }
  ADD_FAILURE() << "no program header of type " << type;
  return 0;
}

void
expect_same_view(const ElfInfo& expected, const ElfInfo& actual)
{
  EXPECT_EQ(actual.machine, expected.machine);
  EXPECT_EQ(actual.soname, expected.soname);
  EXPECT_EQ(actual.needed, expected.needed);
  EXPECT_EQ(actual.rpath, expected.rpath);
  EXPECT_EQ(actual.runpath, expected.runpath);
  EXPECT_EQ(actual.version_definitions, expected.version_definitions);
  ASSERT_EQ(actual.version_needs.size(), expected.version_needs.size());
  for (size_t i = 0; i < expected.version_needs.size(); ++i) {
    EXPECT_EQ(actual.version_needs[i].file, expected.version_needs[i].file);
    EXPECT_EQ(actual.version_needs[i].versions, expected.version_needs[i].versions);
  }
  ASSERT_EQ(actual.dynamic_symbols.size(), expected.dynamic_symbols.size());
  for (size_t i = 0; i < expected.dynamic_symbols.size(); ++i) {
    const ElfSymbol& a = actual.dynamic_symbols[i];
    const ElfSymbol& e = expected.dynamic_symbols[i];
    EXPECT_EQ(a.name, e.name);
    EXPECT_EQ(a.version, e.version) << e.name;
    EXPECT_EQ(a.version_hidden, e.version_hidden) << e.name;
    EXPECT_EQ(std::tie(a.defined, a.weak, a.global, a.type), std::tie(e.defined, e.weak, e.global, e.type)) << e.name;
  }
}

// Whether the dynamic loader takes the bytes (written to a file of their own).
// The dlopen runs in a child process: the loader maps a damaged library
// before it finds the damage, and may crash on it (a crash counts as refused).
bool
dlopen_loads(const std::string& bytes, const std::string& name)
{
  static int serial = 0;
  stdfs::path path = fixtures().dir.path() / fmt::format("{}-{}.so", ++serial, name);
  fs::write_file_atomic(path, bytes);
  pid_t child = fork();
  if (child == 0) {
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "dlopen %s: %s\n", name.c_str(), dlerror());
    }
    _exit(handle != nullptr ? 0 : 1);
  }
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// read_elf's verdict: "" when it reads the bytes, else its error (always usage).
std::string
reader_refusal(const std::string& bytes, const std::string& name)
{
  try {
    read_elf_bytes(bytes, name);
    return "";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::usage) << error.what();
    return error.what();
  }
}

} // namespace

TEST(ElfSegments, LibraryWithoutSectionHeadersReadsAsWithThem)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string library = libstdcxx_path();
  ASSERT_TRUE(!library.empty() && stdfs::exists(library)) << "libstdc++.so.6 not found; run scripts/setup.sh";
  for (const stdfs::path& path : {f.versioned, f.plain, stdfs::path(library)}) {
    std::string bytes = fs::read_file(path);
    for (bool cut : {false, true}) {
      SCOPED_TRACE(fmt::format("{} (cut after the segments: {})", path.string(), cut));
      std::string stripped = strip_section_headers(bytes, cut);
      for (SymbolScope scope : {SymbolScope::all, SymbolScope::undefined}) {
        ElfInfo expected = read_elf_bytes(bytes, "with-sections.so", scope);
        ElfInfo actual = read_elf_bytes(stripped, "stripped.so", scope);
        expect_same_view(expected, actual);
        EXPECT_TRUE(actual.section_names.empty());
      }
    }
  }
  // The reader's view of the versioned fixture is not empty, so the comparison says something.
  ElfInfo stripped = read_elf_bytes(strip_section_headers(fs::read_file(f.versioned)), "stripped.so");
  EXPECT_EQ(stripped.soname, "libv.so.1");
  EXPECT_EQ(stripped.version_definitions, (std::vector<std::string>{"OPKIT_0.9", "OPKIT_1.0"}));
  EXPECT_FALSE(stripped.version_needs.empty());
}

TEST(ElfSegments, JudgesLoadabilityAsDlopenDoes)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string clean = fs::read_file(f.plain);
  Elf64_Ehdr header = elf_header(clean);
  struct Case
  {
    std::string name;
    std::string bytes;
    std::string refusal; // part of read_elf's error; "" when it must load
  };
  Elf64_Ehdr xnum = header;
  xnum.e_phnum = PN_XNUM;
  Elf64_Ehdr wide = header;
  wide.e_phentsize = sizeof(Elf64_Phdr) + 8;
  std::string xnum_bytes = clean;
  put_elf_header(xnum_bytes, xnum);
  std::string wide_bytes = clean;
  put_elf_header(wide_bytes, wide);
  size_t dynamic = segment_index(clean, PT_DYNAMIC);
  size_t load = segment_index(clean, PT_LOAD);
  std::vector<Case> cases = {
    {"plain", clean, ""},
    {"stripped", strip_section_headers(clean), ""},
    {"sstripped", strip_section_headers(clean, true), ""},
    {"xnum", xnum_bytes, "PN_XNUM"},
    {"xnum-stripped", strip_section_headers(xnum_bytes), "PN_XNUM"},
    {"phentsize", wide_bytes, "program header size 64"},
    {"no-dynamic", with_segment(clean, dynamic, [](Elf64_Phdr& s) { s.p_type = PT_NULL; }), "no dynamic segment"},
    {"no-dynamic-stripped",
     strip_section_headers(with_segment(clean, dynamic, [](Elf64_Phdr& s) { s.p_type = PT_NULL; })),
     "no dynamic segment"},
    {"vaddr", with_segment(clean, load, [](Elf64_Phdr& s) { s.p_vaddr += 0x10; }), "not page-aligned"},
    // glibc no longer checks p_align itself (2.35 on); nor does opkit.
    {"align", with_segment(clean, load, [](Elf64_Phdr& s) { s.p_align = 0x10; }), ""},
    {"no-load",
     [&] {
       std::string bytes = clean;
       for (size_t i = 0; i < header.e_phnum; ++i) {
         bytes = with_segment(bytes, i, [](Elf64_Phdr& s) {
           if (s.p_type == PT_LOAD) {
             s.p_type = PT_NULL;
           }
         });
       }
       return bytes;
     }(),
     "no loadable segment"},
    {"osabi",
     [&] {
       std::string bytes = clean;
       bytes[EI_OSABI] = static_cast<char>(ELFOSABI_FREEBSD);
       return bytes;
     }(),
     "OS ABI 9"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    bool loads = dlopen_loads(c.bytes, c.name);
    std::string refusal = reader_refusal(c.bytes, c.name + ".so");
    EXPECT_EQ(loads, refusal.empty()) << "dlopen: " << (loads ? "loads" : "refused") << "; opkit: " << refusal;
    if (c.refusal.empty()) {
      EXPECT_EQ(refusal, "");
    } else {
      EXPECT_NE(refusal.find(c.refusal), std::string::npos) << refusal;
      EXPECT_NE(refusal.find("not loadable"), std::string::npos) << refusal;
    }
  }
}

// A bounds-checked read through program headers: corrupting what it follows
// (the header, the program headers, the dynamic segment, the string and
// symbol tables, the hash and version tables) gives Error(usage) or a view, never a crash.
TEST(ElfSegments, SurvivesCorruptedInputWithoutSectionHeaders)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string with_sections = fs::read_file(f.versioned);
  Elf64_Ehdr header = elf_header(with_sections);
  std::vector<std::pair<size_t, size_t>> ranges = {{0, sizeof(Elf64_Ehdr)},
                                                   {header.e_phoff, size_t{header.e_phnum} * sizeof(Elf64_Phdr)}};
  for (size_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    std::memcpy(&section, with_sections.data() + header.e_shoff + i * sizeof(section), sizeof(section));
    if ((section.sh_flags & SHF_ALLOC) && section.sh_type != SHT_PROGBITS && section.sh_type != SHT_NOBITS
        && section.sh_size > 0) {
      ranges.emplace_back(section.sh_offset, section.sh_size);
    }
  }
  std::string clean = strip_section_headers(with_sections);
  std::mt19937 rng(20261124); // fixed seed: failures must reproduce
  size_t rejected = 0;
  size_t accepted = 0;
  for (int variant = 0; variant < 3000; ++variant) {
    std::string bytes = clean;
    for (size_t i = 0, n = 1 + rng() % 4; i < n; ++i) {
      const auto& range = ranges[rng() % ranges.size()];
      size_t position = range.first + rng() % range.second;
      bytes[position] = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
    }
    if (rng() % 8 == 0) {
      bytes.resize(rng() % bytes.size());
    }
    for (SymbolScope scope : {SymbolScope::all, SymbolScope::undefined}) {
      try {
        read_elf_bytes(bytes, "fuzz.so", scope);
        ++accepted;
      } catch (const Error& error) {
        EXPECT_EQ(error.code(), ExitCode::usage) << "variant " << variant << ": " << error.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u);
}

} // namespace opkit::elf
