#include "opkit/builder/compile_db.hpp"
#include "opkit/builder/diagnostics.hpp"
#include "opkit/util/json.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace opkit;

TEST(Diagnostics, TheSameErrorsOfTwoTargetsCompareEqual)
{
  std::string a = builder::normalize_diagnostics(
    "\x1b[01m/p/build/tf-1.12.0/opkit/x.h:3: error: no 'std::__cxx11::basic_string<char>'\n"
    "In file included from /h/sdks/tensorflow-1.12.0/include/a.h:1\n",
    {"/p/build/tf-1.12.0/", "tf-1.12.0/", "/h/sdks/tensorflow-1.12.0"});
  std::string b = builder::normalize_diagnostics("/p/build/tf-2.10.1/opkit/x.h:3: error: no 'std::basic_string<char>'\n"
                                                 "In file included from /h/sdks/tensorflow-2.10.1/include/a.h:1\n",
                                                 {"tf-2.10.1/", "/p/build/tf-2.10.1/", "/h/sdks/tensorflow-2.10.1"});
  EXPECT_EQ(a, b);
  EXPECT_NE(builder::normalize_diagnostics("a.cc:3: error: x\n", {}),
            builder::normalize_diagnostics("a.cc:4: error: x\n", {}));
}

TEST(Diagnostics, ShownByTheFirstTargetAndMentionedOncePerPair)
{
  builder::DiagnosticsSeen seen;
  EXPECT_EQ(seen.shown_before("tf-1.12.0", "e"), "");
  EXPECT_EQ(seen.shown_before("tf-1.12.0", "e"), "") << "a target's own diagnostics are its own";
  EXPECT_EQ(seen.shown_before("tf-2.10.1", "e"), "tf-1.12.0");
  EXPECT_TRUE(seen.first_mention("tf-2.10.1", "tf-1.12.0"));
  EXPECT_FALSE(seen.first_mention("tf-2.10.1", "tf-1.12.0"));
  EXPECT_EQ(seen.shown_before("tf-2.10.1", "other"), "");
}

TEST(Diagnostics, FileNamesAreRebasedToWhereOpkitRuns)
{
  std::filesystem::path root = std::filesystem::temp_directory_path() / "opkit-rebase-test";
  std::filesystem::create_directories(root / "build");
  std::filesystem::create_directories(root / "src");
  std::ofstream(root / "src" / "x.cc") << "x";
  std::ofstream(root / "src" / "x.h") << "x";
  std::filesystem::path build = root / "build";
  // ccache's base_dir made the names relative to ninja's folder: from the project root they are src/...
  EXPECT_EQ(builder::rebase_diagnostic_paths("../src/x.cc:33:42: error: no\n  33 | int a = b;\n", build, root),
            "src/x.cc:33:42: error: no\n  33 | int a = b;\n");
  EXPECT_EQ(builder::rebase_diagnostic_paths("In file included from ../src/x.h:3,\n"
                                             "                 from ../src/x.cc:1:\n",
                                             build, root),
            "In file included from src/x.h:3,\n                 from src/x.cc:1:\n");
  // Colours kept; from another folder the name is absolute; what is no file stays as it was.
  EXPECT_EQ(builder::rebase_diagnostic_paths("\x1b[01m\x1b[K../src/x.cc:3:4:\x1b[m\x1b[K error", build, root),
            "\x1b[01m\x1b[Ksrc/x.cc:3:4:\x1b[m\x1b[K error");
  EXPECT_EQ(builder::rebase_diagnostic_paths("../src/x.cc:3: error", build, "/elsewhere"),
            (root / "src" / "x.cc").string() + ":3: error");
  EXPECT_EQ(builder::rebase_diagnostic_paths("../src/gone.cc:3: e\n/abs/y.cc:1: e\nninja: build stopped", build, root),
            "../src/gone.cc:3: e\n/abs/y.cc:1: e\nninja: build stopped");
  // gcc's context line names its file too, plain and coloured.
  EXPECT_EQ(builder::rebase_diagnostic_paths("../src/x.cc: In function 'int f()':\n", build, root),
            "src/x.cc: In function 'int f()':\n");
  EXPECT_EQ(
    builder::rebase_diagnostic_paths("\x1b[01m\x1b[K../src/x.cc:\x1b[m\x1b[K In function 'int f()':", build, root),
    "\x1b[01m\x1b[Ksrc/x.cc:\x1b[m\x1b[K In function 'int f()':");
  // After -C (`to` empty): absolute, so it opens from where opkit ran as from the entered folder.
  EXPECT_EQ(builder::rebase_diagnostic_paths("../src/x.cc: At global scope:\n../src/x.cc:3:4: error: e", build, {}),
            (root / "src" / "x.cc").string() + ": At global scope:\n" + (root / "src" / "x.cc").string()
              + ":3:4: error: e");
  // A word and a colon that is no file stays ("note: candidate: ...").
  EXPECT_EQ(builder::rebase_diagnostic_paths("note: candidate: 'int f()'", build, root), "note: candidate: 'int f()'");
  std::filesystem::remove_all(root);
}

TEST(CompileDb, MergedOneEntryPerFileTheFirstTextWins)
{
  std::string newest = R"([{"file": "/p/a.cc", "arguments": ["g++", "-std=c++17"]}])";
  std::string older = R"([{"file": "/p/a.cc", "arguments": ["g++", "-std=c++11"]},
                          {"file": "/p/old_only.cc", "arguments": ["g++"]}])";
  Json merged = Json::parse(builder::merge_compile_commands({newest, "not json", older}));
  ASSERT_EQ(merged.size(), 2U);
  EXPECT_EQ(merged[0]["arguments"][1], "-std=c++17");
  EXPECT_EQ(merged[1]["file"], "/p/old_only.cc");
}

TEST(Diagnostics, AFullDiskLineEndsWithTheCause)
{
  EXPECT_EQ(builder::full_disk_line("x.o: No space left on device"), "x.o: No space left on device");
  EXPECT_EQ(builder::full_disk_line("/tmp/cc1.s: Fatal error: can't write 28 bytes to section .text of "
                                    "obj/x.cc.o: 'No space left on device'"),
            "/tmp/cc1.s: Fatal error: can't write 28 bytes to section .text of obj/x.cc.o: No space left on device");
  EXPECT_EQ(builder::full_disk_line("No space left on device"), "No space left on device");
  EXPECT_EQ(builder::full_disk_line("x.cc:3:4: error: expected ';'"), "");
}
