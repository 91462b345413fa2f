#include "opkit/build/noop_record.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
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

  build::NoopCall call() const
  {
    std::optional<build::NoopCall> call = build::noop_call(build);
    EXPECT_TRUE(call);
    return *call;
  }

  void keep(const build::NoopCall& call) const
  {
    build::record_noop(call, build, root, {root / "opkit.yaml"}, {target},
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
  build::NoopCall call = project.call();
  EXPECT_FALSE(build::replay_noop(call)) << "nothing kept yet";
  project.keep(call);
  std::optional<build::NoopOutput> kept = build::replay_noop(call);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->printed, "tf-2.10.1     up to date\n");
  ASSERT_EQ(kept->notes.size(), 1U);
  EXPECT_EQ(kept->notes.front(), "building p for tensorflow-2.10.1 ...");
}

TEST(NoopRecord, AnotherCallIsNotReplayed)
{
  BuiltProject project;
  build::NoopCall call = project.call();
  project.keep(call);
  build::NoopCall other = call;
  other.key += "argv opkit build --tf 1.12\n";
  EXPECT_FALSE(build::replay_noop(other)) << "another call's record";
}

TEST(NoopRecord, ASourceChangedIsNotANoop)
{
  BuiltProject project;
  build::NoopCall call = project.call();
  project.keep(call);
  touch(project.root / "src" / "op.cc"); // ninja's input, from `ninja -t inputs`
  EXPECT_FALSE(build::replay_noop(call));
}

TEST(NoopRecord, ASourceAddedBesideTheOthersIsNotANoop)
{
  BuiltProject project;
  build::NoopCall call = project.call();
  project.keep(call);
  // A glob (src/*.cc) would take it: its folder's stamp changed.
  fs::write_file_atomic(project.root / "src" / "new.cc", "int other;\n");
  EXPECT_FALSE(build::replay_noop(call));
}

TEST(NoopRecord, AnOutputRemovedOrTheManifestChangedIsNotANoop)
{
  {
    BuiltProject project;
    build::NoopCall call = project.call();
    project.keep(call);
    std::filesystem::remove(project.target / "op.o");
    EXPECT_FALSE(build::replay_noop(call)) << "the target's output is gone";
  }
  {
    BuiltProject project;
    build::NoopCall call = project.call();
    project.keep(call);
    touch(project.root / "opkit.yaml");
    EXPECT_FALSE(build::replay_noop(call)) << "a watched file changed";
  }
}

TEST(NoopRecord, AFileChangedAsTheCallBeganKeepsNothing)
{
  BuiltProject project;
  std::optional<build::NoopCall> call = build::noop_call(project.build);
  ASSERT_TRUE(call);
  touch(project.root / "src" / "op.cc"); // saved as the call began: ninja may have seen it before or after
  project.keep(*call);
  EXPECT_FALSE(std::filesystem::exists(call->record));
  EXPECT_FALSE(build::replay_noop(*call));
}

TEST(NoopRecord, ADamagedRecordIsBuiltAgain)
{
  BuiltProject project;
  build::NoopCall call = project.call();
  project.keep(call);
  ASSERT_TRUE(std::filesystem::exists(call.record));
  fs::write_file_atomic(call.record, "{\"schema\": \"opkit.noop/1\", \"key\": ");
  EXPECT_FALSE(build::replay_noop(call));
}

TEST(NoopRecord, NoProjectNoCall)
{
  fs::TempDir tmp;
  std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(tmp.path());
  std::optional<build::NoopCall> call = build::noop_call("");
  std::filesystem::current_path(here);
  EXPECT_FALSE(call) << "no opkit.yaml above " << tmp.path();
}

TEST(NoopRecord, ABuildFolderKeepsTheNewestSixteen)
{
  BuiltProject project;
  build::NoopCall call = project.call();
  std::vector<std::filesystem::path> records;
  auto now = std::filesystem::file_time_type::clock::now();
  for (int i = 0; i < 18; ++i) { // 18 other calls, each with its own record, made in this order
    build::NoopCall other = call;
    other.key += "argv " + std::to_string(i) + "\n";
    other.record = call.record.parent_path() / ("call-" + std::to_string(i) + ".json");
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
  EXPECT_TRUE(build::replay_noop(call)) << "the newest is kept";
}
