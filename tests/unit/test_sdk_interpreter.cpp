#include "opkit/sdk/interpreter.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace stdfs = std::filesystem;
using opkit::sdk::find_interpreter;
using opkit::sdk::InterpreterSearch;

namespace {

stdfs::path
make_program(const stdfs::path& path)
{
  stdfs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\n";
  stdfs::permissions(path, stdfs::perms::owner_all);
  return path;
}

struct Fixture : ::testing::Test
{
  stdfs::path root = stdfs::temp_directory_path() / ("opkit-interp-" + std::to_string(::getpid()));
  std::map<std::string, std::string> env;
  InterpreterSearch search;

  void SetUp() override
  {
    stdfs::remove_all(root);
    search.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    search.path = {root / "bin"};
    search.pyenv_root = root / "pyenv";
  }
  void TearDown() override { stdfs::remove_all(root); }
};

using Interpreter = Fixture;

} // namespace

TEST_F(Interpreter, VariableThenPathThenNewestPyenvVersion)
{
  make_program(root / "pyenv/versions/3.6.9/bin/python3.6");
  stdfs::path newest = make_program(root / "pyenv/versions/3.6.15/bin/python3.6");
  make_program(root / "pyenv/versions/3.10.13/bin/python3.10");
  EXPECT_EQ(find_interpreter("3.6", "TF 1.12.0", search), newest);
  stdfs::path on_path = make_program(root / "bin/python3.6");
  search.is_version = [](const stdfs::path&, const std::string&) { return false; }; // a pyenv shim, say
  EXPECT_EQ(find_interpreter("3.6", "TF 1.12.0", search), newest) << "a candidate that does not run is passed over";
  search.is_version = {};
  EXPECT_EQ(find_interpreter("3.6", "TF 1.12.0", search), on_path);
  env["OPKIT_PYTHON_3_6"] = make_program(root / "custom/py36").string();
  EXPECT_EQ(find_interpreter("3.6", "TF 1.12.0", search), root / "custom/py36");
}

TEST_F(Interpreter, NothingFoundNamesTheVersionAndTheVariable)
{
  make_program(root / "pyenv/versions/3.10.13/bin/python3.10");
  try {
    find_interpreter("3.6", "tensorflow 1.12.0", search);
    ADD_FAILURE() << "found one";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::missing);
    EXPECT_NE(std::string(e.what()).find("Python 3.6: no interpreter found (needed for tensorflow 1.12.0)"),
              std::string::npos)
      << e.what();
    EXPECT_NE(e.hint().find("OPKIT_PYTHON_3_6="), std::string::npos) << e.hint();
  }
  env["OPKIT_PYTHON_3_6"] = (root / "nope").string();
  EXPECT_THROW(find_interpreter("3.6", "tensorflow 1.12.0", search), opkit::Error);
}

TEST(CpythonTag, IsCpAndTheVersionsDigits)
{
  EXPECT_EQ(opkit::sdk::cpython_tag("3.10"), "cp310");
  EXPECT_EQ(opkit::sdk::cpython_tag("3.9"), "cp39");
}
