#include "opkit/builder/noop_record.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <filesystem>

using namespace opkit;

namespace {

// A project with one source and a build folder whose build.ninja copies it,
// already run: what a no-op build leaves behind.
struct BuiltProject
{
  fs::TempDir tmp;
  std::filesystem::path root = tmp.path() / "p";
  std::filesystem::path build = root / "build";
  std::filesystem::path target = build / "tf-2.10.1";

  BuiltProject()
  {
    fs::create_dirs(target);
    fs::create_dirs(root / "src");
    fs::write_file_atomic(root / "opkit.yaml", "name: p\n");
    fs::write_file_atomic(root / "src" / "op.cc", "int op;\n");
    fs::write_file_atomic(build / "build.ninja", "rule cp\n  command = cp $in $out\n"
                                                 "build tf-2.10.1/op.o: cp ../src/op.cc\n");
    fs::write_file_atomic(target / "op.o", "int op;\n");
    EXPECT_EQ(std::system(("ninja -C " + build.string() + " >/dev/null").c_str()), 0)
      << "ninja: scripts/setup.sh installs it";
    // Written a minute ago: nothing is racily clean, and any change later shows.
    auto minute_ago = std::filesystem::file_time_type::clock::now() - std::chrono::minutes(1);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      std::filesystem::last_write_time(entry.path(), minute_ago);
    }
    std::filesystem::last_write_time(root, minute_ago);
  }

  builder::NoopCall call() const
  {
    std::optional<builder::NoopCall> call = builder::noop_call(build);
    EXPECT_TRUE(call);
    return *call;
  }

  void keep(const builder::NoopCall& call) const
  {
    builder::record_noop(call, build, root, {root / "opkit.yaml"}, {target},
                         {"tf-2.10.1     up to date\n", {"building p for tensorflow-2.10.1 ..."}});
  }
};

// Changes `path`'s mtime as an editor saving it would.
void
touch(const std::filesystem::path& path)
{
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now());
}

} // namespace

TEST(NoopRecord, ReplaysTheSameCallWhileNothingChanged)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  EXPECT_FALSE(builder::replay_noop(call)) << "nothing kept yet";
  project.keep(call);
  std::optional<builder::NoopOutput> kept = builder::replay_noop(call);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->printed, "tf-2.10.1     up to date\n");
  ASSERT_EQ(kept->notes.size(), 1U);
  EXPECT_EQ(kept->notes.front(), "building p for tensorflow-2.10.1 ...");
}

TEST(NoopRecord, AnotherCallIsNotReplayed)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  builder::NoopCall other = call;
  other.key += "argv opkit build --tf 1.12\n";
  EXPECT_FALSE(builder::replay_noop(other)) << "another call's record";
}

TEST(NoopRecord, ASourceChangedIsNotANoop)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  touch(project.root / "src" / "op.cc"); // ninja's input, from `ninja -t inputs`
  EXPECT_FALSE(builder::replay_noop(call));
}

TEST(NoopRecord, ASourceAddedBesideTheOthersIsNotANoop)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  // A glob (src/*.cc) would take it: its folder's stamp changed.
  fs::write_file_atomic(project.root / "src" / "new.cc", "int other;\n");
  EXPECT_FALSE(builder::replay_noop(call));
}

TEST(NoopRecord, AnOutputRemovedOrTheManifestChangedIsNotANoop)
{
  {
    BuiltProject project;
    builder::NoopCall call = project.call();
    project.keep(call);
    std::filesystem::remove(project.target / "op.o");
    EXPECT_FALSE(builder::replay_noop(call)) << "the target's output is gone";
  }
  {
    BuiltProject project;
    builder::NoopCall call = project.call();
    project.keep(call);
    touch(project.root / "opkit.yaml");
    EXPECT_FALSE(builder::replay_noop(call)) << "a watched file changed";
  }
}

TEST(NoopRecord, AFileChangedAsTheCallBeganKeepsNothing)
{
  BuiltProject project;
  std::optional<builder::NoopCall> call = builder::noop_call(project.build);
  ASSERT_TRUE(call);
  touch(project.root / "src" / "op.cc"); // saved as the call began: ninja may have seen it before or after
  project.keep(*call);
  EXPECT_FALSE(std::filesystem::exists(call->record));
  EXPECT_FALSE(builder::replay_noop(*call));
}

TEST(NoopRecord, ADamagedRecordIsBuiltAgain)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  ASSERT_TRUE(std::filesystem::exists(call.record));
  fs::write_file_atomic(call.record, "opkit.noop/2 0\n{\"key\": ");
  EXPECT_FALSE(builder::replay_noop(call));
}

TEST(NoopRecord, NoProjectNoCall)
{
  fs::TempDir tmp;
  std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(tmp.path());
  std::optional<builder::NoopCall> call = builder::noop_call("");
  std::filesystem::current_path(here);
  EXPECT_FALSE(call) << "no opkit.yaml above " << tmp.path();
}

TEST(NoopRecord, ABuildFolderKeepsTheNewestSixteen)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  std::vector<std::filesystem::path> records;
  auto now = std::filesystem::file_time_type::clock::now();
  for (int i = 0; i < 18; ++i) { // 18 other calls, each with its own record, made in this order
    builder::NoopCall other = call;
    other.key += "argv " + std::to_string(i) + "\n";
    other.record = call.record.parent_path() / (std::string(15, 'e') + "0123456789abcdef"[i % 16] + ".json");
    if (i >= 16) {
      other.record = call.record.parent_path() / (std::string(14, 'd') + "0123456789abcdef"[i % 16] + "0.json");
    }
    project.keep(other);
    records.push_back(other.record);
    std::filesystem::last_write_time(other.record, now - std::chrono::seconds(100 - i));
  }
  project.keep(call); // 19 records: the three oldest have gone
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(std::filesystem::exists(records[i])) << i;
  }
  for (int i = 3; i < 18; ++i) {
    EXPECT_TRUE(std::filesystem::exists(records[i])) << i;
  }
  EXPECT_TRUE(builder::replay_noop(call)) << "the newest is kept";
}

TEST(NoopRecord, OnlyOpkitsOwnRecordsArePruned)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  fs::create_dirs(call.record.parent_path());
  for (int i = 0; i < 30; ++i) { // a user's files, and ones that only look like records
    fs::write_file_atomic(call.record.parent_path() / ("mine-" + std::to_string(i) + ".json"), "{}\n");
  }
  fs::write_file_atomic(call.record.parent_path() / "ABCDEF0123456789.json", "{}\n");
  for (int i = 0; i < 20; ++i) {
    builder::NoopCall other = call;
    other.key = std::string(63, '0') + "0123456789abcdef"[i % 16];
    other.record =
      call.record.parent_path() / (std::string(14, 'c') + "0123456789abcdef"[i % 16] + (i < 16 ? "0" : "1") + ".json");
    project.keep(other);
  }
  size_t mine = 0;
  size_t records = 0;
  for (const auto& entry : std::filesystem::directory_iterator(call.record.parent_path())) {
    std::string name = entry.path().filename().string();
    mine += name.rfind("mine-", 0) == 0 || name == "ABCDEF0123456789.json" ? 1 : 0;
    records += name.rfind("cccc", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(mine, 31U) << "a file opkit did not make was removed";
  EXPECT_EQ(records, 16U);
}

TEST(NoopRecord, KeepsNoEnvironmentValue)
{
  BuiltProject project;
  ::setenv("OPKIT_TEST_SECRET_TOKEN", "s3cr3t-v4lue-in-the-environment", 1);
  builder::NoopCall call = project.call();
  ::unsetenv("OPKIT_TEST_SECRET_TOKEN");
  EXPECT_EQ(call.key.size(), 64U) << "the key is a SHA-256, not the call's text";
  project.keep(call);
  std::string text = fs::read_file(call.record);
  EXPECT_EQ(text.find("s3cr3t-v4lue"), std::string::npos);
  EXPECT_EQ(text.find("OPKIT_TEST_SECRET_TOKEN"), std::string::npos);
  ::setenv("OPKIT_TEST_SECRET_TOKEN", "another value", 1);
  EXPECT_NE(project.call().key, call.key) << "another environment is another call";
  ::unsetenv("OPKIT_TEST_SECRET_TOKEN");
}

TEST(NoopRecord, ARecordIsCheckedAndItsTextEscaped)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  std::string text = fs::read_file(call.record);
  size_t newline = text.find('\n');
  std::string body = text.substr(newline + 1);
  // The stamps emptied, the checksum left: refused.
  std::string emptied = body;
  size_t stamps = emptied.find("\"stamps\"");
  ASSERT_NE(stamps, std::string::npos);
  emptied = emptied.substr(0, stamps) + "\"stamps\": []\n}\n";
  fs::write_file_atomic(call.record, text.substr(0, newline + 1) + emptied);
  EXPECT_FALSE(builder::replay_noop(call)) << "a record whose checksum does not hold";
  // The stamps emptied and the checksum made anew: refused all the same.
  fs::write_file_atomic(call.record, "opkit.noop/2 " + sha256_hex(emptied) + "\n" + emptied);
  EXPECT_FALSE(builder::replay_noop(call)) << "a record with no stamps";
  // Escapes in the kept text are printed escaped.
  std::string hostile = body;
  size_t printed = hostile.find("up to date");
  ASSERT_NE(printed, std::string::npos);
  hostile.replace(printed, 2, "\\u001b]0;x\\u0007up");
  fs::write_file_atomic(call.record, "opkit.noop/2 " + sha256_hex(hostile) + "\n" + hostile);
  std::optional<builder::NoopOutput> kept = builder::replay_noop(call);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->printed.find('\x1b'), std::string::npos) << kept->printed;
  EXPECT_NE(kept->printed.find("\\x1b]0;x\\x07up to date"), std::string::npos) << kept->printed;
}

TEST(NoopRecord, AnOversizedRecordIsRefusedUnread)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  project.keep(call);
  std::filesystem::resize_file(call.record, std::uintmax_t(300) << 20); // sparse: costs no disk
  EXPECT_FALSE(builder::replay_noop(call));
}

TEST(NoopRecord, ALinkWhereRecordsAreKeptIsNeverFollowed)
{
  BuiltProject project;
  builder::NoopCall call = project.call();
  fs::TempDir outside;
  for (int i = 0; i < 30; ++i) {
    fs::write_file_atomic(outside.path() / (std::string(14, 'a') + std::to_string(10 + i) + ".json"), "{}\n");
  }
  std::filesystem::create_directory_symlink(outside.path(), call.record.parent_path());
  project.keep(call);
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(outside.path())) {
    count += entry.path().extension() == ".json" ? 1 : 0;
  }
  EXPECT_EQ(count, 30U) << "a record was written or pruned through the link";
  EXPECT_FALSE(builder::replay_noop(call));
}
