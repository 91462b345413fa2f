#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

namespace stdfs = std::filesystem;
using namespace opkit::settings;

namespace {

struct SettingsTest : ::testing::Test
{
  stdfs::path root = stdfs::temp_directory_path() / ("opkit-settings-" + std::to_string(::getpid()));
  std::map<std::string, std::string> env;

  void SetUp() override
  {
    stdfs::remove_all(root);
    stdfs::create_directories(root / "xdg" / "opkit");
    env = {{"HOME", (root / "home").string()}, {"XDG_CONFIG_HOME", (root / "xdg").string()}};
  }
  void TearDown() override { stdfs::remove_all(root); }

  void write(const stdfs::path& path, const std::string& text)
  {
    stdfs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  Settings load(std::optional<stdfs::path> project = std::nullopt)
  {
    return Settings::load(Environment::from_map(env), [project] { return project; });
  }
  stdfs::path user_file() const { return root / "xdg" / "opkit" / "config.yaml"; }
};

std::string
read_text(const stdfs::path& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST_F(SettingsTest, DefaultsAreDerivedFromTheEnvironmentAndOtherSettings)
{
  Value home = load().resolve("home");
  EXPECT_EQ(home.value, (root / "home" / ".cache" / "opkit").string());
  EXPECT_EQ(home.source, Source::default_value);
  EXPECT_EQ(home.origin(), "default");
  env["XDG_CACHE_HOME"] = "/xdg-cache";
  EXPECT_EQ(load().get("home"), "/xdg-cache/opkit");
  EXPECT_EQ(load().get("venvs"), "/xdg-cache/opkit/venvs");
  env["XDG_CACHE_HOME"] = ""; // empty is unset, as opkit always read it
  env.erase("HOME");
  EXPECT_EQ(load().get("home"), "/tmp/.cache/opkit");
  EXPECT_EQ(load().get("cxx"), "g++");
  EXPECT_EQ(load().get("cache"), "auto");
  Value protoc = load().resolve("protoc");
  EXPECT_FALSE(protoc.is_set());
  EXPECT_EQ(protoc.origin(), "unset (protoc on PATH)");
}

TEST_F(SettingsTest, EnvironmentBeatsProjectBeatsUserFileBeatsDefault)
{
  write(user_file(), "# mine\nhome: /from-file\ncache: \"off\"\nindex_url: http://file/simple\n");
  write(root / "p" / "opkit.yaml", "name: p\nsettings:\n  cache: 'on'\n");
  Settings settings = load(root / "p" / "opkit.yaml");

  Value home = settings.resolve("home");
  EXPECT_EQ(home.value, "/from-file");
  EXPECT_EQ(home.source, Source::config_file);
  EXPECT_EQ(home.origin(), "config file (" + user_file().string() + ":2)");
  EXPECT_EQ(settings.get("venvs"), "/from-file/venvs"); // the default follows the effective home

  Value cache = settings.resolve("cache");
  EXPECT_EQ(cache.value, "on");
  EXPECT_EQ(cache.origin(), "project (" + (root / "p" / "opkit.yaml").string() + ":3)");
  EXPECT_EQ(settings.get("index_url"), "http://file/simple"); // a project setting the project leaves alone

  env["OPKIT_HOME"] = "/from-env";
  env["OPKIT_CACHE"] = "off";
  env["PIP_INDEX_URL"] = "http://pip/simple";
  settings = load(root / "p" / "opkit.yaml");
  EXPECT_EQ(settings.resolve("home").origin(), "environment (OPKIT_HOME)");
  EXPECT_EQ(settings.get("home"), "/from-env");
  EXPECT_EQ(settings.get("cache"), "off");
  EXPECT_EQ(settings.resolve("index_url").origin(), "environment (PIP_INDEX_URL)");
  env["OPKIT_INDEX_URL"] = "http://opkit/simple";
  EXPECT_EQ(load().resolve("index_url").origin(), "environment (OPKIT_INDEX_URL)"); // the first variable wins

  Value flag = load().resolve("index_url", "http://flag/simple");
  EXPECT_EQ(flag.value, "http://flag/simple");
  EXPECT_EQ(flag.origin(), "command line (--index-url)");
}

TEST_F(SettingsTest, WithProjectReplacesTheFoundProject)
{
  write(user_file(), "cache_remote: redis://file:6379\n");
  Settings settings = load();
  EXPECT_EQ(settings.get("cache_remote"), "redis://file:6379");
  opkit::project::SettingEntry entry{"cache_remote", "redis://project:6379", "/p/opkit.yaml", 9, 3};
  Value remote = settings.with_project({entry}).resolve("cache_remote");
  EXPECT_EQ(remote.value, "redis://project:6379");
  EXPECT_EQ(remote.origin(), "project (/p/opkit.yaml:9)");
  EXPECT_EQ(settings.get("cache_remote"), "redis://file:6379"); // the original is unchanged
}

TEST_F(SettingsTest, ConfigFileLocations)
{
  EXPECT_EQ(user_config_file(Environment::from_map(env)).path, user_file());
  EXPECT_EQ(user_config_file(Environment::from_map(env)).chosen_by, "XDG_CONFIG_HOME");
  env.erase("XDG_CONFIG_HOME");
  EXPECT_EQ(user_config_file(Environment::from_map(env)).path, root / "home" / ".config" / "opkit" / "config.yaml");
  env["OPKIT_CONFIG"] = (root / "other.yaml").string();
  write(root / "other.yaml", "cxx: clang++\n");
  EXPECT_EQ(load().get("cxx"), "clang++");
  std::vector<SettingsFile> files = load().files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(files[0].exists);
  EXPECT_EQ(files[0].chosen_by, "OPKIT_CONFIG");

  write(root / "p" / "opkit.yaml", "name: p\n");
  stdfs::create_directories(root / "p" / "src" / "deep");
  EXPECT_EQ(find_project_file(root / "p" / "src" / "deep"), root / "p" / "opkit.yaml");
  EXPECT_EQ(find_project_file(root / "home"), std::nullopt);
}

TEST_F(SettingsTest, BadInputIsOneUsageError)
{
  write(user_file(), "home: /x\n  bad: [\n");
  try {
    load();
    FAIL() << "no error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    EXPECT_EQ(std::string(e.what()).rfind(user_file().string() + ":2:", 0), 0u) << e.what();
  }
  write(user_file(), "");
  env["OPKIT_CACHE"] = "maybe";
  try {
    load().get("cache");
    FAIL() << "no error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(std::string(e.what()), "OPKIT_CACHE: must be auto, on or off, got 'maybe'");
  }
  try {
    load().get("hom");
    FAIL() << "no error";
  } catch (const opkit::Error& e) {
    EXPECT_EQ(std::string(e.what()), "opkit config: unknown setting 'hom' (did you mean 'home'?)");
  }
}

TEST_F(SettingsTest, PythonFamily)
{
  write(user_file(), "python_3_7: /file/python3.7\n");
  env["OPKIT_PYTHON_3_6"] = "/env/python3.6";
  Settings settings = load();
  EXPECT_EQ(settings.resolve_variable("OPKIT_PYTHON_3_6")->value, "/env/python3.6");
  EXPECT_EQ(settings.resolve_variable("OPKIT_PYTHON_3_7")->origin(), "config file (" + user_file().string() + ":1)");
  EXPECT_FALSE(settings.resolve_variable("OPKIT_PYTHON_3_8")->is_set());
  EXPECT_EQ(settings.resolve_variable("OPKIT_HOME")->key, "home");
  EXPECT_EQ(settings.resolve_variable("NOT_OURS"), std::nullopt);
  std::vector<std::string> keys;
  for (const Value& value : settings.list()) {
    keys.push_back(value.key);
  }
  EXPECT_NE(std::find(keys.begin(), keys.end(), "python_3_6"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "python_3_7"), keys.end());
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "python_X_Y"), keys.end());
}

TEST_F(SettingsTest, SetWritesTheUserFileKeepingTheRest)
{
  write(user_file(), "# mine\ncxx: clang++\n");
  ::setenv("OPKIT_CONFIG", user_file().c_str(), 1);
  EXPECT_EQ(set_user_setting("home", "/srv/opkit"), user_file());
  EXPECT_EQ(read_text(user_file()), "# mine\ncxx: clang++\nhome: \"/srv/opkit\"\n");
  EXPECT_THROW(set_user_setting("cache", "maybe"), opkit::Error);
  EXPECT_EQ(read_text(user_file()), "# mine\ncxx: clang++\nhome: \"/srv/opkit\"\n"); // nothing half-written
  ::unsetenv("OPKIT_CONFIG");
}

// Every environment variable opkit reads is in the settings table of docs/settings.md:
// the names src/ passes to getenv, and every setting's variables from configs/settings.yaml.
TEST(SettingsDocs, EveryVariableIsInTheReadme)
{
  std::string page = read_text(stdfs::path(OPKIT_TEST_SOURCE_DIR) / "docs" / "settings.md");
  ASSERT_EQ(page.rfind("# Settings\n", 0), 0u) << "docs/settings.md does not start with '# Settings'";
  std::string section = page.substr(0, page.find("\n## ")); // up to the next section (opkit config)
  std::set<std::string> names;
  std::regex getenv_call(R"re(getenv\("([A-Z_][A-Z0-9_]*)"\))re");
  for (const auto& entry : stdfs::recursive_directory_iterator(stdfs::path(OPKIT_TEST_SOURCE_DIR) / "src")) {
    std::string text = read_text(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), getenv_call), end; it != end; ++it) {
      names.insert((*it)[1]);
    }
  }
  EXPECT_GE(names.size(), 5u) << "the scan found too few getenv calls to be real";
  for (const opkit::project::SettingSpec& spec : opkit::project::setting_specs()) {
    names.insert(spec.env.begin(), spec.env.end());
  }
  for (const std::string& name : names) {
    EXPECT_NE(section.find("`" + name + "`"), std::string::npos)
      << name << " is read by opkit but not in docs/settings.md's Settings table";
  }
}
