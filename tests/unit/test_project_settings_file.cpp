#include "opkit/project/manifest.hpp"
#include "opkit/project/settings_file.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit::project;

namespace {

std::string
error_of(const std::function<void()>& action)
{
  try {
    action();
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

const char* k_manifest = R"(name: zero_out
op:
  name: ZeroOut
sources: [src/zero_out_op.cc]
)";

} // namespace

TEST(SettingsFile, TableHasEverySettingOnce)
{
  std::vector<std::string> keys;
  for (const SettingSpec& spec : setting_specs()) {
    EXPECT_FALSE(spec.description.empty()) << spec.key;
    EXPECT_FALSE(spec.env.empty()) << spec.key;
    EXPECT_TRUE(spec.defaults.empty() != spec.unset.empty()) << spec.key << ": a default or what unset means";
    EXPECT_EQ(std::count(keys.begin(), keys.end(), spec.key), 0) << spec.key;
    keys.push_back(spec.key);
  }
  for (const char* key : {"home", "venvs", "python", "index_url", "cache", "cache_remote", "distcc_hosts", "cxx",
                          "cuda_home", "protoc", "popart_sdk"}) {
    EXPECT_NE(find_setting_spec(key), nullptr) << key;
  }
  ASSERT_NE(find_setting_spec("python_3_6"), nullptr);
  EXPECT_EQ(find_setting_spec("python_3_6")->key, "python_X_Y");
  EXPECT_EQ(find_setting_spec("python_3"), nullptr);
  EXPECT_EQ(find_setting_spec("python_x_6"), nullptr);
}

TEST(SettingsFile, ParsesValuesWithLines)
{
  std::vector<SettingEntry> entries = parse_settings_file(
    "# mine\nhome: /srv/opkit\ndistcc_hosts: [a/8, b/4]\ncache: \"off\"\npython_3_6: /py36\n", "config.yaml");
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].key, "home");
  EXPECT_EQ(entries[0].value, "/srv/opkit");
  EXPECT_EQ(entries[0].line, 2);
  EXPECT_EQ(entries[0].where(), "config.yaml:2:1");
  EXPECT_EQ(entries[1].value, "a/8 b/4");
  EXPECT_EQ(entries[2].value, "off");
  EXPECT_EQ(entries[3].key, "python_3_6");
  EXPECT_TRUE(parse_settings_file("", "config.yaml").empty());
  EXPECT_TRUE(parse_settings_file("# only a comment\n", "config.yaml").empty());
}

TEST(SettingsFile, BadFilesNameFileLineColumn)
{
  EXPECT_NE(error_of([] { parse_settings_file("home: [unclosed\n", "c.yaml"); }).find(": invalid YAML"),
            std::string::npos);
  EXPECT_EQ(error_of([] { parse_settings_file("home: [unclosed\n", "c.yaml"); }).rfind("c.yaml:", 0), 0u);
  EXPECT_EQ(error_of([] { parse_settings_file("home: /x\nhome_dir: /y\n", "c.yaml"); }),
            "c.yaml:2:1: unknown setting 'home_dir' (did you mean 'home'?)");
  EXPECT_EQ(error_of([] { parse_settings_file("cxx: {a: b}\n", "c.yaml"); }), "c.yaml:1:6: cxx must be a single value");
  EXPECT_EQ(error_of([] { parse_settings_file("home: [a, b]\n", "c.yaml"); }),
            "c.yaml:1:7: home must be a single value");
  EXPECT_EQ(error_of([] { parse_settings_file("cache: maybe\n", "c.yaml"); }),
            "c.yaml:1:8: cache must be auto, on or off, got 'maybe'");
  // A key given twice is refused at its second place (yaml-cpp alone keeps the first).
  EXPECT_EQ(error_of([] { parse_settings_file("home: /a\ncache: on\nhome: /b\n", "c.yaml"); }),
            "c.yaml:3:1: duplicate key 'home'");
  EXPECT_EQ(error_of([] { parse_settings_file("- home\n", "c.yaml"); }),
            "c.yaml:1:1: expected a mapping of settings (key: value)");
  EXPECT_NE(error_of([] { parse_settings_file("zzzz: 1\n", "c.yaml"); }).find("known settings: home, venvs"),
            std::string::npos);
}

TEST(SettingsFile, ManifestSettingsSection)
{
  Manifest m = parse_manifest(std::string(k_manifest) + "settings:\n  index_url: http://mirror/simple\n  cache: 'on'\n",
                              "opkit.yaml", "/p");
  ASSERT_EQ(m.project_settings.size(), 2u);
  EXPECT_EQ(m.project_settings[0].where(), "opkit.yaml:6:3");
  EXPECT_EQ(m.sharing.cache, "on");
  ASSERT_EQ(m.sharing.entries.size(), 1u);
  EXPECT_EQ(m.sharing.entries[0].line, 7);

  // build.cache is the same setting's older spelling.
  Manifest b = parse_manifest(std::string(k_manifest) + "build:\n  distcc_hosts: [h/2]\n", "opkit.yaml", "/p");
  ASSERT_EQ(b.project_settings.size(), 1u);
  EXPECT_EQ(b.project_settings[0].value, "h/2");

  EXPECT_EQ(error_of([] { parse_manifest(std::string(k_manifest) + "settings:\n  cahce: on\n", "opkit.yaml", "/p"); }),
            "opkit.yaml:6:3: unknown setting 'cahce' (did you mean 'cache'?)");
  EXPECT_EQ(error_of([] { parse_manifest(std::string(k_manifest) + "settings:\n  home: /x\n", "opkit.yaml", "/p"); }),
            "opkit.yaml:6:3: 'home' is a setting of this machine, not of a project (set it in the user config file "
            "or $OPKIT_HOME)");
  EXPECT_EQ(error_of([] {
              parse_manifest(std::string(k_manifest) + "settings:\n  cache: 'on'\nbuild:\n  cache: 'off'\n",
                             "opkit.yaml", "/p");
            }),
            "opkit.yaml:8:3: build.cache is also set as settings.cache at line 6: keep one");
  EXPECT_EQ(error_of([] { parse_manifest(std::string(k_manifest) + "settings: [cache]\n", "opkit.yaml", "/p"); }),
            "opkit.yaml:5:11: settings: expected a mapping (key: value)");
}

TEST(SettingsFile, SetKeepsOtherKeysAndComments)
{
  std::string text = "# my settings\nhome: /old\ndistcc_hosts:\n  - a/8\n  - b/8\n\n# the compiler\ncxx: g++-12\n";
  EXPECT_EQ(set_setting_in_text(text, "c.yaml", "home", "/new"),
            "# my settings\nhome: \"/new\"\ndistcc_hosts:\n  - a/8\n  - b/8\n\n# the compiler\ncxx: g++-12\n");
  EXPECT_EQ(set_setting_in_text(text, "c.yaml", "distcc_hosts", "c/4"),
            "# my settings\nhome: /old\ndistcc_hosts: \"c/4\"\n\n# the compiler\ncxx: g++-12\n");
  EXPECT_EQ(set_setting_in_text("", "c.yaml", "cache", "off"), "cache: \"off\"\n");
  EXPECT_EQ(set_setting_in_text("home: /x", "c.yaml", "cxx", "ccache \"g++\""),
            "home: /x\ncxx: \"ccache \\\"g++\\\"\"\n");
  EXPECT_EQ(error_of([] { set_setting_in_text("", "c.yaml", "cache", "maybe"); }),
            "c.yaml:1:8: cache must be auto, on or off, got 'maybe'");
  EXPECT_EQ(error_of([] { set_setting_in_text("", "c.yaml", "hme", "/x"); }),
            "opkit config set: unknown setting 'hme' (did you mean 'home'?)");
}
