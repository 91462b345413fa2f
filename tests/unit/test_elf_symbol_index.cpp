#include "opkit/check/indexed_library.hpp"
#include "opkit/elf/symbol_index.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <set>
#include <tuple>

#include <sys/stat.h>
#include <utime.h>

using namespace opkit;
using namespace opkit::check;
using namespace opkit::elf;
namespace stdfs = std::filesystem;

namespace {

// A real system library, found as the host profile finds it.
stdfs::path
system_library(const std::string& soname)
{
  for (const std::string& dir : host_search_paths()) {
    std::error_code ec;
    if (stdfs::exists(stdfs::path(dir) / soname, ec)) {
      return stdfs::weakly_canonical(stdfs::path(dir) / soname);
    }
  }
  ADD_FAILURE() << "no " << soname << " on this machine";
  return {};
}

using Definitions = std::multiset<std::pair<std::string, bool>>;

Definitions
definitions(const std::vector<SymbolDefinition>& found)
{
  Definitions result;
  for (const SymbolDefinition& d : found) {
    result.emplace(std::string(d.version), d.hidden);
  }
  return result;
}

using Everything = std::multiset<std::tuple<std::string, std::string, bool>>;

template<typename Table>
Everything
everything(const Table& table)
{
  Everything all;
  table.for_each([&all](std::string_view name, const SymbolDefinition& d) {
    all.emplace(std::string(name), std::string(d.version), d.hidden);
  });
  return all;
}

// The definitions of `name` in a sound index.
Definitions
lookup(const SymbolIndex& index, std::string_view name)
{
  std::vector<SymbolDefinition> found;
  EXPECT_TRUE(index.find(name, found)) << name;
  return definitions(found);
}

LibraryExports
read_library(const stdfs::path& path)
{
  return library_exports(read_elf(path), path);
}

std::shared_ptr<const SymbolIndex>
parse_ok(std::string bytes)
{
  SymbolIndex::Opened opened = SymbolIndex::parse(std::move(bytes));
  EXPECT_TRUE(opened.index) << opened.problem;
  return opened.index;
}

// What an index answers: its walk (each name with its version and hidden
// bit; empty when the walk was refused) and each lookup's definitions (or
// "refused").
struct Answers
{
  bool walked = false;
  std::vector<std::string> walk;
  std::vector<std::string> lookups;
};

std::string
describe(std::string_view name, const SymbolDefinition& d)
{
  return std::string(name) + "@" + std::string(d.version) + (d.hidden ? " hidden" : "");
}

Answers
answers_of(const SymbolIndex& index, const std::vector<std::string>& names)
{
  Answers answers;
  answers.walked = index.for_each(
    [&answers](std::string_view name, const SymbolDefinition& d) { answers.walk.push_back(describe(name, d)); });
  for (const std::string& name : names) {
    std::vector<SymbolDefinition> found;
    std::string line = name + ":";
    if (!index.find(name, found)) {
      line += " refused";
    }
    for (const SymbolDefinition& d : found) {
      line += " " + describe(name, d);
    }
    answers.lookups.push_back(line);
  }
  return answers;
}

// Every lookup and a full walk of a damaged index that opened stay in bounds
// and never give a wrong answer: each either is refused or answers exactly
// as the sound index does (a lookup checks its bucket and the entries just
// outside it, so a damaged bucket start cannot hide a definition). Returns
// whether the damage was met anywhere.
bool
exercise(const SymbolIndex& index, const std::vector<std::string>& names, const Answers& sound)
{
  Answers damaged = answers_of(index, names);
  if (damaged.walked) {
    EXPECT_EQ(damaged.walk, sound.walk) << "a walk of a damaged index gave a wrong answer";
  }
  bool met = !damaged.walked;
  for (size_t i = 0; i < names.size(); ++i) {
    if (damaged.lookups[i] != sound.lookups[i]) {
      EXPECT_NE(damaged.lookups[i].find(": refused"), std::string::npos)
        << "a lookup gave a wrong answer: " << damaged.lookups[i] << " instead of " << sound.lookups[i];
      met = true;
    }
  }
  return met;
}

void
set_mtime(const stdfs::path& path, time_t seconds)
{
  struct utimbuf times
  {
    seconds, seconds
  };
  ASSERT_EQ(::utime(path.c_str(), &times), 0);
}

} // namespace

TEST(ElfSymbolIndex, RoundTripAnswersAsTheElfDoes)
{
  stdfs::path path = system_library("libstdc++.so.6");
  LibraryExports library = read_library(path);
  ASSERT_GT(library.symbols.size(), 1000U);
  std::shared_ptr<const SymbolIndex> index = parse_ok(build_symbol_index(library, stamp_of(path)));
  ASSERT_TRUE(index);
  EXPECT_EQ(index->size(), library.symbols.size());
  EXPECT_EQ(index->soname(), "libstdc++.so.6");
  EXPECT_EQ(index->version_definitions(), library.versions);
  EXPECT_TRUE(index->source() == stamp_of(path));
  size_t versioned = 0;
  library.symbols.for_each([&](std::string_view name, const SymbolDefinition&) {
    Definitions expected = definitions(library.symbols.find(name));
    EXPECT_EQ(lookup(*index, name), expected) << name;
    versioned += expected.count({"GLIBCXX_3.4", false});
  });
  EXPECT_GT(versioned, 100U);
  EXPECT_EQ(everything(*index), everything(library.symbols));
  EXPECT_TRUE(index->verify());
  EXPECT_TRUE(lookup(*index, "opkit_no_such_symbol").empty());
  EXPECT_TRUE(lookup(*index, "").empty());
}

TEST(ElfSymbolIndex, NamesDefinedInSeveralVersionsKeepEach)
{
  LibraryExports library;
  library.soname = "libx.so.1";
  library.versions = {"X_1", "X_2"};
  library.symbols = {{"f", "X_1", true}, {"f", "X_2", false}, {"g", "", false}};
  std::shared_ptr<const SymbolIndex> index = parse_ok(build_symbol_index(library, {}));
  ASSERT_TRUE(index);
  EXPECT_EQ(lookup(*index, "f"), (Definitions{{"X_1", true}, {"X_2", false}}));
  EXPECT_EQ(lookup(*index, "g"), (Definitions{{"", false}}));
  LibraryExports empty;
  std::shared_ptr<const SymbolIndex> none = parse_ok(build_symbol_index(empty, {}));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->size(), 0U);
  EXPECT_TRUE(lookup(*none, "f").empty());
}

TEST(ElfSymbolIndex, AStaleIndexIsDetectedAndRemade)
{
  fs::TempDir dir;
  stdfs::path lib = dir.path() / "libgcc_s.so.1";
  stdfs::copy_file(system_library("libgcc_s.so.1"), lib);
  set_mtime(lib, 1000000000);
  IndexPlace place{dir.path() / "idx" / "libgcc_s.so.1.idx", dir.path() / "lock"};

  ProfileLibrary first = indexed_library(lib, place); // made: read from the ELF
  ASSERT_TRUE(stdfs::exists(place.file));
  SymbolIndex::Opened current = SymbolIndex::open(place.file, stamp_of(lib));
  ASSERT_TRUE(current.index) << current.problem;
  EXPECT_EQ(everything(*current.index), everything(first.symbols));

  set_mtime(lib, 1000000001); // the library changed (a new mtime is enough)
  SymbolIndex::Opened stale = SymbolIndex::open(place.file, stamp_of(lib));
  EXPECT_FALSE(stale.index);
  EXPECT_EQ(stale.problem, "stale: its library changed since it was made");

  ProfileLibrary again = indexed_library(lib, place); // remade
  SymbolIndex::Opened remade = SymbolIndex::open(place.file, stamp_of(lib));
  ASSERT_TRUE(remade.index) << remade.problem;
  EXPECT_EQ(again.soname, "libgcc_s.so.1");
  EXPECT_EQ(indexed_library(lib, place).symbols.size(), first.symbols.size()); // mapped now
}

TEST(ElfSymbolIndex, ForeignAndOtherFormatFilesAreRefused)
{
  EXPECT_EQ(SymbolIndex::parse("").problem, "not an opkit symbol index");
  EXPECT_EQ(SymbolIndex::parse(std::string(200, 'x')).problem, "not an opkit symbol index");
  std::string bytes = build_symbol_index(read_library(system_library("libdl.so.2")), {});
  std::string future = bytes;
  future[8] = 5; // format version
  EXPECT_EQ(SymbolIndex::parse(future).problem, "format version 5, not 4");
  EXPECT_EQ(SymbolIndex::open("/nonexistent/x.idx", {}).problem, "missing");
}

TEST(ElfSymbolIndex, TruncatedOrExtendedBytesAreRefused)
{
  std::string bytes = build_symbol_index(read_library(system_library("libgcc_s.so.1")), {});
  ASSERT_TRUE(parse_ok(bytes));
  for (size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_FALSE(SymbolIndex::parse(bytes.substr(0, length)).index) << "truncated to " << length;
  }
  EXPECT_FALSE(SymbolIndex::parse(bytes + '\0').index);
}

TEST(ElfSymbolIndex, EveryCorruptByteIsRefusedAtOpenOrWhereItIsRead)
{
  LibraryExports library = read_library(system_library("libgcc_s.so.1"));
  std::vector<std::string> names;
  library.symbols.for_each([&names](std::string_view name, const SymbolDefinition&) { names.emplace_back(name); });
  std::string bytes = build_symbol_index(library, {});
  const Answers sound = answers_of(*parse_ok(bytes), names);
  ASSERT_TRUE(sound.walked);
  size_t refused = 0;
  size_t met = 0;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (unsigned char pattern : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ pattern);
      SymbolIndex::Opened opened = SymbolIndex::parse(damaged);
      if (!opened.index) {
        ++refused;
        continue;
      }
      // Opened: the damage is in the tables; no answer is wrong.
      met += exercise(*opened.index, names, sound) ? 1 : 0;
      EXPECT_GE(at, 64U) << "a damaged header opened";
    }
  }
  EXPECT_GT(refused, 64U * 3);
  // Large values in every 32-bit field past the header: refused at open, or
  // met where they are read; never read out of bounds.
  for (size_t at = 64; at + 4 <= bytes.size(); at += 4) {
    std::string damaged = bytes;
    damaged.replace(at, 4, "\xff\xff\xff\x7f");
    SymbolIndex::Opened opened = SymbolIndex::parse(damaged);
    if (opened.index) {
      met += exercise(*opened.index, names, sound) ? 1 : 0;
    }
  }
  EXPECT_GT(met, 100U); // most damage that opens is met, by the walk or a lookup
}

TEST(ElfSymbolIndex, ACorruptEntryMetByALookupFallsBackToTheElf)
{
  fs::TempDir dir;
  stdfs::path lib = system_library("libgcc_s.so.1");
  IndexPlace place{dir.path() / "libgcc_s.idx", dir.path() / "lock"};
  LibraryExports elf = read_library(lib);
  std::string bytes = build_symbol_index(elf, stamp_of(lib));
  // Every entry's name offset past the string table: the header still opens.
  std::shared_ptr<const SymbolIndex> sound = parse_ok(bytes);
  ASSERT_TRUE(sound);
  uint32_t buckets = 0;
  std::memcpy(&buckets, bytes.data() + 12, 4); // the bucket count (the tests run on little-endian hosts)
  size_t entries = 64 + (size_t{buckets} + 1) * 4;
  for (size_t e = 0; e < sound->size(); ++e) {
    bytes.replace(entries + e * 20 + 8, 4, "\xff\xff\xff\x7f");
  }
  fs::write_file_atomic(place.file, bytes);
  ProfileLibrary mapped = indexed_library(lib, place);
  EXPECT_TRUE(stdfs::exists(place.file)); // opened: the damage is only met by a lookup
  EXPECT_EQ(definitions(mapped.symbols.find("__gcc_personality_v0")),
            definitions(elf.symbols.find("__gcc_personality_v0")));
  EXPECT_FALSE(mapped.symbols.find("__gcc_personality_v0").empty());
  EXPECT_EQ(everything(mapped.symbols), everything(elf.symbols));
  EXPECT_FALSE(stdfs::exists(place.file)); // removed, so that the next run remakes it
  indexed_library(lib, place);
  EXPECT_TRUE(SymbolIndex::open(place.file, stamp_of(lib)).index);
}

TEST(ElfSymbolIndex, AnUnwritablePlaceFallsBackToTheElf)
{
  fs::TempDir dir;
  fs::write_file_atomic(dir.path() / "file", "not a folder");
  stdfs::path lib = system_library("libdl.so.2");
  // The index's folder cannot be made: the library is read from the ELF instead.
  ProfileLibrary library = indexed_library(lib, {dir.path() / "file" / "libdl.idx", dir.path() / "lock"});
  EXPECT_EQ(library.soname, "libdl.so.2");
  EXPECT_EQ(library.symbols.size(), read_library(lib).symbols.size());
  EXPECT_FALSE(stdfs::exists(dir.path() / "file" / "libdl.idx"));
  // A corrupt index in a writable place is remade.
  IndexPlace place{dir.path() / "libdl.idx", dir.path() / "lock"};
  fs::write_file_atomic(place.file, "OPKITSYM garbage");
  EXPECT_EQ(indexed_library(lib, place).symbols.size(), library.symbols.size());
  EXPECT_TRUE(SymbolIndex::open(place.file, stamp_of(lib)).index);
}

TEST(ElfSymbolIndex, TheCachePlaceMirrorsTheLibrarysPath)
{
  IndexPlace place = cache_place("/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(place.file.filename(), "libc.so.6.idx");
  EXPECT_NE(place.file.string().find("/cache/symbols/usr/lib/x86_64-linux-gnu/"), std::string::npos) << place.file;
  EXPECT_EQ(place.lock.filename(), "cache.lock");
}

TEST(ElfSymbolIndex, TheFuzzSeedsReadAsTheyAreMeantTo)
{
  // tests/fuzz/corpus-src/index_seeds.py writes the format independently.
  stdfs::path dir = stdfs::path(OPKIT_TEST_SOURCE_DIR) / "tests/fuzz/corpus-index";
  auto open = [&dir](const char* name) { return SymbolIndex::parse(fs::read_file(dir / name)); };
  SymbolIndex::Opened seed = open("seed.idx");
  ASSERT_TRUE(seed.index) << seed.problem;
  EXPECT_EQ(seed.index->soname(), "libseed.so.1");
  EXPECT_EQ(seed.index->version_definitions(), (std::vector<std::string>{"SEED_1.0", "SEED_2.0"}));
  EXPECT_TRUE(seed.index->source() == (SourceStamp{1234, 5678}));
  EXPECT_EQ(lookup(*seed.index, "seed_add"), (Definitions{{"SEED_1.0", true}, {"SEED_2.0", false}}));
  EXPECT_EQ(lookup(*seed.index, "_Znwm"), (Definitions{{"", false}}));
  EXPECT_TRUE(open("empty-table.idx").index);
  EXPECT_NE(open("truncated.idx").problem.find("corrupt: 291 bytes where its header describes 292"), std::string::npos);
  EXPECT_EQ(open("checksum-bad.idx").problem, "corrupt: header checksum mismatch");
  EXPECT_EQ(open("format-1.idx").problem, "format version 1, not 4");
  EXPECT_EQ(open("buckets-not-power-of-two.idx").problem, "corrupt: impossible table sizes");
  EXPECT_EQ(open("version-name-changed.idx").problem, "corrupt: the version tables do not match their check");
  for (const char* name : {"bucket-start-past-end.idx", "entry-name-outside.idx", "entry-version-bad.idx",
                           "entry-check-bad.idx", "entry-name-changed.idx"}) {
    SymbolIndex::Opened opened = open(name);
    ASSERT_TRUE(opened.index) << name << ": " << opened.problem; // met where it is read
    EXPECT_FALSE(opened.index->verify()) << name;
  }
}

TEST(ElfSymbolIndex, AKeptIndexOfTheFormatBeforeIsRemadeInTheCurrentOne)
{
  // An SDK imported by an older opkit keeps its process libraries' indexes in
  // format 3 (this one written by that format's seed writer).
  fs::TempDir dir;
  IndexPlace place{dir.path() / "libseed.so.1.idx", dir.path() / "lock"};
  stdfs::path old = stdfs::path(OPKIT_TEST_SOURCE_DIR) / "tests/fixtures/symbol-index/seed-format-3.idx";
  fs::write_file_atomic(place.file, fs::read_file(old));
  EXPECT_EQ(SymbolIndex::open(place.file, std::nullopt).problem, "format version 3, not 4");
  std::optional<ProfileLibrary> kept = index_only_library(place);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->soname, "libseed.so.1");
  EXPECT_EQ(kept->versions, (std::vector<std::string>{"SEED_1.0", "SEED_2.0"}));
  EXPECT_EQ(definitions(kept->symbols.find("seed_add")), (Definitions{{"SEED_1.0", true}, {"SEED_2.0", false}}));
  EXPECT_EQ(kept->symbols.size(), 5U);
  SymbolIndex::Opened now = SymbolIndex::open(place.file, std::nullopt);
  ASSERT_TRUE(now.index) << now.problem; // rewritten in the current format
  EXPECT_TRUE(now.index->source() == (SourceStamp{1234, 5678}));
  EXPECT_TRUE(now.index->verify());
  // A damaged one of that format is not used, and not rewritten.
  std::string damaged = fs::read_file(old);
  damaged[damaged.rfind("seed_value")] ^= 0x20; // a letter of a symbol's name
  fs::write_file_atomic(place.file, damaged);
  EXPECT_FALSE(index_only_library(place));
  EXPECT_EQ(fs::read_file(place.file), damaged);
}

TEST(NameListTable, FindsTheNamesOfItsLinesAndSkipsComments)
{
  // Unsorted on purpose: the table sorts what it is given.
  const std::string text = "# a comment\nPy_Initialize\nPyLong_FromLong\n\nPyArg_Parse";
  NameListTable table(text);
  EXPECT_EQ(table.size(), 3U);
  EXPECT_EQ(table.find("PyLong_FromLong").size(), 1U);
  EXPECT_EQ(table.find("PyArg_Parse").size(), 1U);
  EXPECT_TRUE(table.find("# a comment").empty());
  EXPECT_TRUE(table.find("PyLong").empty());
  EXPECT_TRUE(table.find("").empty());
  std::vector<std::string> seen;
  table.for_each([&](std::string_view name, const SymbolDefinition& definition) {
    EXPECT_TRUE(definition.version.empty());
    seen.emplace_back(name);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"PyArg_Parse", "PyLong_FromLong", "Py_Initialize"}));
}
