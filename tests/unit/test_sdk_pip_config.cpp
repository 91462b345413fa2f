#include "opkit/sdk/pip_config.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <map>

namespace stdfs = std::filesystem;
using namespace opkit::sdk;
using opkit::settings::Environment;
using opkit::settings::Source;
using opkit::settings::Value;

namespace {

// pip's world as data: variables, files (path -> text), the python's sys.prefix.
struct PipConfig : ::testing::Test
{
  std::map<std::string, std::string> env = {{"HOME", "/home/u"}};
  std::map<std::string, std::string> files;
  std::optional<std::string> prefix = "/venv";

  PipEnvironment pip() const
  {
    PipEnvironment pip;
    pip.env = Environment::from_map(env);
    pip.read = [files = files](const stdfs::path& file) -> std::optional<std::string> {
      auto it = files.find(file.string());
      return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    pip.exists = [files = files](const stdfs::path& file) {
      return files.count(file.string()) > 0 || file == "/dev/null";
    };
    pip.sys_prefix = [prefix = prefix]() -> std::optional<stdfs::path> {
      return prefix ? std::optional<stdfs::path>(*prefix) : std::nullopt;
    };
    return pip;
  }
  std::vector<std::string> file_list() const
  {
    std::vector<std::string> out;
    for (const stdfs::path& file : pip_config_files(pip())) {
      out.push_back(file.string());
    }
    return out;
  }
  PipIndexUrl answer() const { return pip_index_url(pip()); }
};

} // namespace

// pip's load order: global (XDG_CONFIG_DIRS, /etc) < user (legacy, XDG) < site < PIP_CONFIG_FILE.
TEST_F(PipConfig, FilesInPipsOrder)
{
  EXPECT_EQ(file_list(), (std::vector<std::string>{"/etc/xdg/pip/pip.conf", "/etc/pip.conf", "/home/u/.pip/pip.conf",
                                                   "/home/u/.config/pip/pip.conf", "/venv/pip.conf"}));
  env["XDG_CONFIG_DIRS"] = "/a:/b/";
  env["XDG_CONFIG_HOME"] = "/xdg";
  env["PIP_CONFIG_FILE"] = "/c/pip.conf"; // absent: the user's files are read too
  prefix.reset();                         // no python3
  EXPECT_EQ(file_list(), (std::vector<std::string>{"/a/pip/pip.conf", "/b/pip/pip.conf", "/etc/pip.conf",
                                                   "/home/u/.pip/pip.conf", "/xdg/pip/pip.conf", "/c/pip.conf"}));
  files["/c/pip.conf"] = "";
  EXPECT_EQ(file_list(), (std::vector<std::string>{"/a/pip/pip.conf", "/b/pip/pip.conf", "/etc/pip.conf",
                                                   "/c/pip.conf"})); // there: it stands for them
  env["PIP_CONFIG_FILE"] = "/dev/null";
  EXPECT_TRUE(file_list().empty());
}

TEST_F(PipConfig, LaterFilesWinWithTheirOrigin)
{
  EXPECT_EQ(answer().url, "");
  EXPECT_EQ(answer().where(), "");
  files["/etc/pip.conf"] = "[global]\nindex-url = https://etc/simple\n";
  EXPECT_EQ(answer().url, "https://etc/simple");
  EXPECT_EQ(answer().where(), "/etc/pip.conf:2 [global] index-url");
  files["/home/u/.config/pip/pip.conf"] = "# mine\n[global]\ntimeout = 5\nindex-url = https://user/simple\n";
  EXPECT_EQ(answer().where(), "/home/u/.config/pip/pip.conf:4 [global] index-url");
  files["/venv/pip.conf"] = "[global]\nindex-url = https://site/simple\n";
  EXPECT_EQ(answer().url, "https://site/simple");
  env["PIP_CONFIG_FILE"] = "/tmp/pip.conf";
  files["/tmp/pip.conf"] = "[global]\nindex-url = https://env/simple\n";
  EXPECT_EQ(answer().url, "https://env/simple");
  EXPECT_EQ(answer().file, "/tmp/pip.conf");
}

// The command's section beats [global] whatever file each is in.
TEST_F(PipConfig, DownloadSectionOverGlobal)
{
  files["/etc/pip.conf"] = "[download]\nindex_url = https://etc-download/simple\n";
  files["/home/u/.config/pip/pip.conf"] = "[global]\nindex-url = https://user-global/simple\n";
  EXPECT_EQ(answer().url, "https://etc-download/simple");
  EXPECT_EQ(answer().where(), "/etc/pip.conf:2 [download] index_url");
  files["/home/u/.pip/pip.conf"] = "[install]\nindex-url = https://install/simple\n"; // another command's
  EXPECT_EQ(answer().url, "https://etc-download/simple");
}

// index-url, index_url, --index-url, any case; ':' as delimiter; section names keep their case.
TEST_F(PipConfig, PipsSpellings)
{
  for (const char* line : {"index-url = https://i/simple", "INDEX_URL: https://i/simple",
                           "--index-url=https://i/simple", "--Index_Url = https://i/simple"}) {
    files["/etc/pip.conf"] = std::string("[global]\n") + line + "\n";
    EXPECT_EQ(answer().url, "https://i/simple") << line;
  }
  files["/etc/pip.conf"] = "[Global]\nindex-url = https://i/simple\n[DOWNLOAD]\nindex-url = https://j/simple\n";
  EXPECT_EQ(answer().url, "");
  // Two spellings in one section: the later line wins (pip's dict of normalized names).
  files["/etc/pip.conf"] = "[global]\nindex_url = https://a/simple\nindex-url = https://b/simple\n";
  EXPECT_EQ(answer().url, "https://b/simple");
  // [DEFAULT] lends its options to every section of its file.
  files["/etc/pip.conf"] = "[DEFAULT]\nindex-url = https://d/simple\n[global]\ntimeout = 5\n";
  EXPECT_EQ(answer().where(), "/etc/pip.conf:2 [global] index-url");
}

TEST_F(PipConfig, XdgConfigHome)
{
  env["XDG_CONFIG_HOME"] = "/xdg";
  files["/home/u/.config/pip/pip.conf"] = "[global]\nindex-url = https://not-read/simple\n";
  EXPECT_EQ(answer().url, "");
  files["/xdg/pip/pip.conf"] = "[global]\nindex-url = https://xdg/simple\n";
  EXPECT_EQ(answer().where(), "/xdg/pip/pip.conf:2 [global] index-url");
  env["XDG_CONFIG_DIRS"] = "/sys1:/sys2";
  files["/sys2/pip/pip.conf"] = "[download]\nindex-url = https://sys2/simple\n";
  EXPECT_EQ(answer().url, "https://sys2/simple");
}

// A later file's empty value unsets the name; then none counts.
TEST_F(PipConfig, AnEmptyValueUnsets)
{
  files["/etc/pip.conf"] = "[global]\nindex-url = https://etc/simple\n";
  files["/home/u/.config/pip/pip.conf"] = "[global]\nindex-url =\n";
  EXPECT_EQ(answer().url, "");
}

TEST_F(PipConfig, DevNullLoadsNoFileButTheEnvironmentCounts)
{
  files["/etc/pip.conf"] = "[global]\nindex-url = https://etc/simple\n";
  env["PIP_CONFIG_FILE"] = "/dev/null";
  EXPECT_EQ(answer().url, "");
  EXPECT_TRUE(answer().files.empty());
  env["PIP_INDEX_URL"] = "https://env/simple";
  EXPECT_EQ(answer().url, "https://env/simple");
}

TEST_F(PipConfig, TheEnvironmentWins)
{
  files["/etc/pip.conf"] = "[download]\nindex-url = https://etc/simple\n";
  env["PIP_index_url"] = "https://env/simple"; // pip lower-cases what follows PIP_
  EXPECT_EQ(answer().url, "https://env/simple");
  EXPECT_EQ(answer().where(), "environment (PIP_index_url)");
  env["PIP_index_url"] = ""; // empty: as unset
  EXPECT_EQ(answer().url, "https://etc/simple");
}

TEST_F(PipConfig, RefusedFilesAreErrors)
{
  files["/home/u/.config/pip/pip.conf"] = "index-url = https://x/simple\n";
  EXPECT_THROW(answer(), opkit::Error);
  files["/home/u/.config/pip/pip.conf"] = "[global]\nindex-url = https://x/simple\n  https://y/simple\n";
  try {
    answer();
    ADD_FAILURE() << "a two-line index-url was taken";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(std::string(e.what()), "/home/u/.config/pip/pip.conf:2: [global] index-url: a value on several "
                                     "lines; pip would take it as one URL");
  }
  // One that pip does not take is no matter.
  files["/home/u/.config/pip/pip.conf"] += "[download]\nindex-url = https://d/simple\n";
  EXPECT_EQ(answer().url, "https://d/simple");
}

// The setting: opkit's own sources first; pip's answer only for an unset one, with its origin.
TEST_F(PipConfig, TheSettingFallsBackToPip)
{
  files["/home/u/.config/pip/pip.conf"] = "[download]\nindex_url = https://pip/simple\n";
  Value unset;
  unset.key = "index_url";
  Value value = with_pip_index_url(unset, pip());
  EXPECT_EQ(value.value, "https://pip/simple");
  EXPECT_EQ(value.source, Source::pip);
  EXPECT_EQ(value.origin(), "pip (/home/u/.config/pip/pip.conf:2 [download] index_url)");
  Value set = unset;
  set.value = "https://opkit/simple";
  set.source = Source::environment;
  set.variable = "OPKIT_INDEX_URL";
  EXPECT_EQ(with_pip_index_url(set, pip()).value, "https://opkit/simple");
  files.clear(); // pip's configuration names no index: pip's default, which pip reads then
  Value fallback = with_pip_index_url(unset, pip());
  EXPECT_EQ(fallback.value, "https://pypi.org/simple/");
  EXPECT_EQ(fallback.origin(), "pip (its default index: no index-url in its configuration)");
  // no-index on (pip reads only find-links): unset, whatever index-url says, so `pip download`
  files["/home/u/.config/pip/pip.conf"] = "[global]\nindex-url = https://pip/simple\nno-index = yes\n";
  EXPECT_FALSE(with_pip_index_url(unset, pip()).is_set());
  files["/home/u/.config/pip/pip.conf"] = "[global]\nno-index = yes\n[download]\nno-index = off\n";
  EXPECT_EQ(with_pip_index_url(unset, pip()).value, "https://pypi.org/simple/") << "[download] wins";
  files.clear();
  env["PIP_NO_INDEX"] = "1";
  EXPECT_FALSE(with_pip_index_url(unset, pip()).is_set());
  env.erase("PIP_NO_INDEX");
}
