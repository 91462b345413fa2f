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

#include <elf.h>

namespace opkit::elf {

namespace {

namespace stdfs = std::filesystem;

// A shared library exercising everything read_elf reports: a soname, a
// runpath, defined/undefined/weak symbols, libstdc++ versions it needs and two
// versions of its own, one of them only as a hidden foo@VER.
constexpr const char* k_library_source = R"(
#include <string>
extern "C" void opkit_test_undefined(int);
extern "C" void opkit_test_weak(int) __attribute__((weak));
extern "C" int opkit_test_defined(const char* text)
{
  std::string copy(text);
  opkit_test_undefined(1);
  if (opkit_test_weak) {
    opkit_test_weak(2);
  }
  int* boxed = new int(static_cast<int>(copy.size()));
  int result = *boxed;
  delete boxed;
  return result;
}
extern "C" int opkit_test_old_impl() { return 1; }
__asm__(".symver opkit_test_old_impl, opkit_test_old@OPKIT_0.9");
)";

constexpr const char* k_version_script = R"(
OPKIT_0.9 { global: opkit_test_old; };
OPKIT_1.0 { global: opkit_test_defined; local: *; } OPKIT_0.9;
)";

constexpr const char* k_plain_source = "int opkit_plain(void) { return 1; }\n";
constexpr const char* k_main_source = "int main(void) { return 0; }\n";

// The fixtures are compiled once per test run with the system compiler.
struct Fixtures
{
  fs::TempDir dir{"opkit-elf-test"};
  stdfs::path library;       // libx.so, see k_library_source
  stdfs::path rpath_library; // DT_RPATH (old dtags) with two entries
  stdfs::path object;        // ET_REL
  stdfs::path executable;    // ET_EXEC (-no-pie)
  std::string error;         // why building failed; empty on success

  Fixtures() { error = build(); }

  std::string compile(const std::string& arguments)
  {
    stdfs::path log = dir.path() / "compile.log";
    std::string command = fmt::format("c++ {} >'{}' 2>&1", arguments, log.string());
    int status = std::system(command.c_str());
    if (status != 0) {
      return fmt::format("`{}` failed with status {}:\n{}", command, status, fs::read_file(log));
    }
    return {};
  }

  std::string write_sources()
  {
    fs::write_file_atomic(dir.path() / "lib.cpp", k_library_source);
    fs::write_file_atomic(dir.path() / "lib.map", k_version_script);
    fs::write_file_atomic(dir.path() / "plain.c", k_plain_source);
    fs::write_file_atomic(dir.path() / "main.c", k_main_source);
    return {};
  }

  std::string build()
  {
    write_sources();
    const stdfs::path& d = dir.path();
    library = d / "libx.so";
    rpath_library = d / "librpath.so";
    object = d / "plain.o";
    executable = d / "main";
    // --enable-new-dtags is the Debian default, spelled out so the test does
    // not depend on how the toolchain was configured.
    std::string steps[] = {
      fmt::format("-shared -fPIC -o '{}' '{}' -Wl,-soname,libx.so.1 -Wl,--enable-new-dtags"
                  " -Wl,-rpath,'$ORIGIN/lib' -Wl,--version-script='{}'",
                  library.string(), (d / "lib.cpp").string(), (d / "lib.map").string()),
      fmt::format("-x c -shared -fPIC -o '{}' '{}' -Wl,--disable-new-dtags -Wl,-rpath,/opt/a:/opt/b",
                  rpath_library.string(), (d / "plain.c").string()),
      fmt::format("-x c -c -fPIC -o '{}' '{}'", object.string(), (d / "plain.c").string()),
      fmt::format("-x c -no-pie -o '{}' '{}'", executable.string(), (d / "main.c").string()),
    };
    for (const std::string& step : steps) {
      std::string failure = compile(step);
      if (!failure.empty()) {
        return failure;
      }
    }
    return {};
  }
};

const Fixtures&
fixtures()
{
  static Fixtures instance;
  return instance;
}

std::string
fixture_bytes(const stdfs::path& path)
{
  return fs::read_file(path);
}

const ElfSymbol*
find_symbol(const ElfInfo& info, const std::string& name)
{
  for (const ElfSymbol& symbol : info.dynamic_symbols) {
    if (symbol.name == name) {
      return &symbol;
    }
  }
  return nullptr;
}

const ElfVersionNeed*
find_need(const ElfInfo& info, const std::string& file)
{
  for (const ElfVersionNeed& need : info.version_needs) {
    if (need.file == file) {
      return &need;
    }
  }
  return nullptr;
}

bool
contains(const std::vector<std::string>& items, const std::string& item)
{
  return std::find(items.begin(), items.end(), item) != items.end();
}

// Expects Error(usage) whose message starts with "<name>: " and contains `cause`.
void
expect_usage_error(std::string_view bytes, const std::string& name, const std::string& cause)
{
  try {
    read_elf_bytes(bytes, name);
    ADD_FAILURE() << "no error for " << name;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::usage) << error.what();
    std::string message = error.what();
    EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(cause), std::string::npos) << message;
  }
}

Elf64_Ehdr
elf_header(const std::string& bytes)
{
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}

// File offset of the first section header of `type`, or 0 when there is none.
size_t
section_header_offset(const std::string& bytes, uint32_t type)
{
  Elf64_Ehdr header = elf_header(bytes);
  for (size_t i = 0; i < header.e_shnum; ++i) {
    size_t offset = header.e_shoff + i * header.e_shentsize;
    Elf64_Shdr section;
    std::memcpy(&section, bytes.data() + offset, sizeof(section));
    if (section.sh_type == type) {
      return offset;
    }
  }
  return 0;
}

Elf64_Shdr
section_header(const std::string& bytes, uint32_t type)
{
  Elf64_Shdr section;
  std::memcpy(&section, bytes.data() + section_header_offset(bytes, type), sizeof(section));
  return section;
}

void
put_section_header(std::string& bytes, uint32_t type, const Elf64_Shdr& section)
{
  std::memcpy(bytes.data() + section_header_offset(bytes, type), &section, sizeof(section));
}

struct Range
{
  size_t begin;
  size_t size;
};

// The bytes the reader interprets: the ELF header, the section header table
// and the sections it follows. Corrupting code or padding would test nothing.
std::vector<Range>
interesting_ranges(const std::string& bytes)
{
  Elf64_Ehdr header = elf_header(bytes);
  std::vector<Range> ranges = {{0, sizeof(Elf64_Ehdr)}, {header.e_shoff, size_t{header.e_shnum} * header.e_shentsize}};
  const uint32_t types[] = {SHT_DYNAMIC, SHT_DYNSYM, SHT_STRTAB, SHT_GNU_versym, SHT_GNU_verdef, SHT_GNU_verneed};
  for (size_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    std::memcpy(&section, bytes.data() + header.e_shoff + i * header.e_shentsize, sizeof(section));
    if (std::find(std::begin(types), std::end(types), section.sh_type) != std::end(types) && section.sh_size > 0) {
      ranges.push_back({section.sh_offset, section.sh_size});
    }
  }
  return ranges;
}

uint8_t
corrupt_value(std::mt19937& rng, uint8_t old_value)
{
  switch (rng() % 5) {
    case 0:
      return 0;
    case 1:
      return 0xff;
    case 2:
      return static_cast<uint8_t>(old_value + 1);
    case 3:
      return static_cast<uint8_t>(old_value ^ (1u << (rng() % 8)));
    default:
      return static_cast<uint8_t>(rng());
  }
}

std::string
corrupt(const std::string& clean, const std::vector<Range>& ranges, std::mt19937& rng)
{
  std::string bytes = clean;
  size_t mutations = 1 + rng() % 4;
  for (size_t i = 0; i < mutations; ++i) {
    const Range& range = ranges[rng() % ranges.size()];
    size_t position = range.begin + rng() % range.size;
    bytes[position] = static_cast<char>(corrupt_value(rng, static_cast<uint8_t>(bytes[position])));
  }
  // Now and then also cut the file short somewhere.
  if (rng() % 8 == 0) {
    bytes.resize(rng() % bytes.size());
  }
  return bytes;
}

} // namespace

TEST(ElfFile, ReadsDynamicSection)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo info = read_elf(f.library);

#if defined(__x86_64__)
  EXPECT_EQ(info.machine, "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(info.machine, "aarch64");
#endif
  EXPECT_EQ(info.soname, "libx.so.1");
  EXPECT_TRUE(contains(info.needed, "libstdc++.so.6"));
  EXPECT_EQ(info.runpath, std::vector<std::string>{"$ORIGIN/lib"});
  EXPECT_TRUE(info.rpath.empty());
}

TEST(ElfFile, SplitsRpath)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo info = read_elf(f.rpath_library);

  EXPECT_EQ(info.rpath, (std::vector<std::string>{"/opt/a", "/opt/b"}));
  EXPECT_TRUE(info.runpath.empty());
  EXPECT_EQ(info.soname, "");
  EXPECT_NE(find_symbol(info, "opkit_plain"), nullptr);
}

TEST(ElfFile, ReadsSymbolFlags)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo info = read_elf(f.library);

  const ElfSymbol* defined = find_symbol(info, "opkit_test_defined");
  ASSERT_NE(defined, nullptr);
  EXPECT_TRUE(defined->defined);
  EXPECT_TRUE(defined->global);
  EXPECT_FALSE(defined->weak);
  EXPECT_EQ(defined->type, STT_FUNC);

  const ElfSymbol* undefined = find_symbol(info, "opkit_test_undefined");
  ASSERT_NE(undefined, nullptr);
  EXPECT_FALSE(undefined->defined);
  EXPECT_TRUE(undefined->global);
  EXPECT_FALSE(undefined->weak);
  EXPECT_EQ(undefined->version, "");

  const ElfSymbol* weak = find_symbol(info, "opkit_test_weak");
  ASSERT_NE(weak, nullptr);
  EXPECT_FALSE(weak->defined);
  EXPECT_TRUE(weak->weak);
  EXPECT_FALSE(weak->global);

  // Index 0, the null symbol, is not reported.
  EXPECT_EQ(find_symbol(info, ""), nullptr);
}

TEST(ElfFile, ReadsSymbolVersions)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo info = read_elf(f.library);

  // operator new(size_t), required from libstdc++.
  const ElfSymbol* new_operator = find_symbol(info, "_Znwm");
  ASSERT_NE(new_operator, nullptr);
  EXPECT_FALSE(new_operator->defined);
  EXPECT_EQ(new_operator->version, "GLIBCXX_3.4");
  EXPECT_FALSE(new_operator->version_hidden);

  const ElfSymbol* defined = find_symbol(info, "opkit_test_defined");
  ASSERT_NE(defined, nullptr);
  EXPECT_EQ(defined->version, "OPKIT_1.0");
  EXPECT_FALSE(defined->version_hidden);

  const ElfSymbol* old = find_symbol(info, "opkit_test_old");
  ASSERT_NE(old, nullptr);
  EXPECT_TRUE(old->defined);
  EXPECT_EQ(old->version, "OPKIT_0.9");
  EXPECT_TRUE(old->version_hidden);
}

TEST(ElfFile, UndefinedScopeReadsOnlyTheUndefinedSymbols)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo all = read_elf(f.library);
  ElfInfo undefined = read_elf(f.library, SymbolScope::undefined);

  std::vector<const ElfSymbol*> expected;
  for (const ElfSymbol& symbol : all.dynamic_symbols) {
    if (!symbol.defined) {
      expected.push_back(&symbol);
    }
  }
  ASSERT_EQ(undefined.dynamic_symbols.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const ElfSymbol& got = undefined.dynamic_symbols[i];
    EXPECT_EQ(got.name, expected[i]->name);
    EXPECT_EQ(got.version, expected[i]->version);
    EXPECT_EQ(got.weak, expected[i]->weak);
  }
  EXPECT_EQ(find_symbol(undefined, "opkit_test_defined"), nullptr);
  EXPECT_NE(find_symbol(undefined, "opkit_test_weak"), nullptr);
  // Everything else is read as in full.
  EXPECT_EQ(undefined.needed, all.needed);
  EXPECT_EQ(undefined.version_definitions, all.version_definitions);
  EXPECT_EQ(undefined.section_names, all.section_names);
}

TEST(ElfFile, ReadsVersionSections)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  ElfInfo info = read_elf(f.library);

  // The base entry (the file's own name) is left out.
  EXPECT_EQ(info.version_definitions, (std::vector<std::string>{"OPKIT_0.9", "OPKIT_1.0"}));

  const ElfVersionNeed* libstdcxx = find_need(info, "libstdc++.so.6");
  ASSERT_NE(libstdcxx, nullptr);
  EXPECT_TRUE(contains(libstdcxx->versions, "GLIBCXX_3.4"));
  EXPECT_TRUE(contains(libstdcxx->versions, "CXXABI_1.3"));
  EXPECT_NE(find_need(info, "libc.so.6"), nullptr);
}

TEST(ElfFile, ReadsLibstdcxxItself)
{
  FILE* pipe = popen("c++ -print-file-name=libstdc++.so.6 2>/dev/null", "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096] = {};
  std::string path = fgets(buffer, sizeof(buffer), pipe) ? buffer : "";
  pclose(pipe);
  path.erase(path.find_last_not_of("\n") + 1);
  // g++ is a setup dependency (scripts/setup.sh), so a missing libstdc++ is a failure, not a skip.
  ASSERT_TRUE(!path.empty() && path[0] == '/' && stdfs::exists(path))
    << "libstdc++.so.6 not found via `c++ -print-file-name`; run scripts/setup.sh";
  ElfInfo info = read_elf(path);

  EXPECT_EQ(info.soname, "libstdc++.so.6");
  EXPECT_TRUE(contains(info.version_definitions, "GLIBCXX_3.4"));
  EXPECT_TRUE(contains(info.version_definitions, "CXXABI_1.3"));
  EXPECT_FALSE(contains(info.version_definitions, "libstdc++.so.6"));
  EXPECT_NE(find_need(info, "libc.so.6"), nullptr);
  bool has_defined_glibcxx = std::any_of(info.dynamic_symbols.begin(), info.dynamic_symbols.end(),
                                         [](const ElfSymbol& s) { return s.defined && s.version == "GLIBCXX_3.4"; });
  EXPECT_TRUE(has_defined_glibcxx);
}

TEST(ElfFile, MissingFileIsSystemError)
{
  try {
    read_elf("/nonexistent/opkit/libnothing.so");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::system);
  }
}

TEST(ElfFile, RejectsNonElf)
{
  expect_usage_error("", "empty.so", "not an ELF file");
  expect_usage_error("not elf at all, just some text\n", "text.so", "not an ELF file");
  expect_usage_error("\x7f"
                     "EL",
                     "short.so", "not an ELF file");
}

TEST(ElfFile, RejectsTruncated)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  expect_usage_error(bytes.substr(0, 40), "truncated.so", "truncated or malformed ELF");
  expect_usage_error(bytes.substr(0, 8), "ident.so", "truncated or malformed ELF");
  // The header is whole but the sections it points to are gone.
  expect_usage_error(bytes.substr(0, 200), "headonly.so", "truncated or malformed ELF");
}

TEST(ElfFile, Rejects32Bit)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  bytes[EI_CLASS] = ELFCLASS32;
  expect_usage_error(bytes, "lib32.so", "32-bit ELF is not supported");
  bytes[EI_CLASS] = 7;
  expect_usage_error(bytes, "classless.so", "unknown ELF class 7");
}

TEST(ElfFile, RejectsBigEndian)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  bytes[EI_DATA] = ELFDATA2MSB;
  expect_usage_error(bytes, "big.so", "big-endian ELF is not supported");
}

TEST(ElfFile, RejectsOtherMachine)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  uint16_t machine = EM_RISCV;
  std::memcpy(bytes.data() + offsetof(Elf64_Ehdr, e_machine), &machine, sizeof(machine));
  expect_usage_error(bytes, "riscv.so", "unsupported machine 243");
}

TEST(ElfFile, RejectsObjectAndExecutable)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  expect_usage_error(fixture_bytes(f.object), "plain.o", "relocatable object");
  expect_usage_error(fixture_bytes(f.executable), "main", "an executable");
}

TEST(ElfFile, RejectsMissingDynamicSection)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  Elf64_Shdr dynamic = section_header(bytes, SHT_DYNAMIC);
  size_t offset = section_header_offset(bytes, SHT_DYNAMIC);
  dynamic.sh_type = SHT_PROGBITS;
  std::memcpy(bytes.data() + offset, &dynamic, sizeof(dynamic));
  expect_usage_error(bytes, "nodyn.so", "no .dynamic section");
}

TEST(ElfFile, RejectsShortVersymSection)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  Elf64_Shdr versym = section_header(bytes, SHT_GNU_versym);
  versym.sh_size -= 2;
  put_section_header(bytes, SHT_GNU_versym, versym);
  expect_usage_error(bytes, "versym.so", ".gnu.version has fewer entries than .dynsym");
}

TEST(ElfFile, RejectsUnknownVersionIndex)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  Elf64_Shdr versym = section_header(bytes, SHT_GNU_versym);
  uint16_t bogus = 0x7ff0;
  std::memcpy(bytes.data() + versym.sh_offset + 2 * 1, &bogus, sizeof(bogus));
  expect_usage_error(bytes, "index.so", "undefined version index 32752");
}

TEST(ElfFile, RejectsRunawayVersionChain)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string bytes = fixture_bytes(f.library);
  // Claim a huge number of entries and make the first one point 4 bytes on,
  // so the walk must be stopped by the bounds and budget checks.
  Elf64_Shdr verneed = section_header(bytes, SHT_GNU_verneed);
  verneed.sh_info = 0xffffffff;
  put_section_header(bytes, SHT_GNU_verneed, verneed);
  uint32_t next = 4;
  std::memcpy(bytes.data() + verneed.sh_offset + offsetof(Elf64_Verneed, vn_next), &next, sizeof(next));
  expect_usage_error(bytes, "chain.so", "truncated or malformed ELF");
}

TEST(ElfFile, SurvivesCorruptedInput)
{
  const Fixtures& f = fixtures();
  ASSERT_EQ(f.error, "");
  std::string clean = fixture_bytes(f.library);
  std::vector<Range> ranges = interesting_ranges(clean);
  std::mt19937 rng(20240601); // fixed seed: failures must reproduce
  size_t rejected = 0;
  size_t accepted = 0;
  for (int variant = 0; variant < 2000; ++variant) {
    std::string bytes = corrupt(clean, ranges, rng);
    try {
      read_elf_bytes(bytes, "fuzz.so");
      ++accepted;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::usage) << "variant " << variant << ": " << error.what();
      ++rejected;
    }
  }
  // Both outcomes must occur, or the corruption is not reaching the parser.
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u);
}

} // namespace opkit::elf
