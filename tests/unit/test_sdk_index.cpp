#include "opkit/sdk/fetch.hpp"
#include "opkit/sdk/index.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace opkit::sdk;

TEST(SdkIndex, ParsesPep503Html)
{
  std::string html = R"(<!DOCTYPE html><html><body>
    <a href="../../files/tensorflow-1.12.0-cp36-cp36m-manylinux1_x86_64.whl#sha256=abc123" data-requires-python="&gt;=3.4">tensorflow-1.12.0-cp36-cp36m-manylinux1_x86_64.whl</a>
    <a href="https://files.example.com/x/tensorflow-1.12.0-cp27-cp27mu-manylinux1_x86_64.whl" data-yanked="">tensorflow-1.12.0-cp27-cp27mu-manylinux1_x86_64.whl</a>
  </body></html>)";
  std::vector<IndexFile> files = parse_simple_html(html, "http://127.0.0.1:8080/simple/tensorflow/");
  ASSERT_EQ(files.size(), 2U);
  EXPECT_EQ(files[0].url, "http://127.0.0.1:8080/files/tensorflow-1.12.0-cp36-cp36m-manylinux1_x86_64.whl");
  EXPECT_EQ(files[0].sha256, "abc123");
  EXPECT_FALSE(files[0].yanked);
  EXPECT_EQ(files[1].url, "https://files.example.com/x/tensorflow-1.12.0-cp27-cp27mu-manylinux1_x86_64.whl");
  EXPECT_TRUE(files[1].yanked);
}

TEST(SdkIndex, ParsesPep691Json)
{
  std::string json = R"({"meta": {"api-version": "1.0"}, "name": "tensorflow-cpu", "files": [
    {"filename": "a-1.0-py3-none-any.whl", "url": "../../files/a-1.0-py3-none-any.whl", "hashes": {"sha256": "ff"}},
    {"filename": "b-1.0-py3-none-any.whl", "url": "/b.whl", "hashes": {}, "yanked": "broken"}]})";
  std::vector<IndexFile> files = parse_simple_json(json, "https://idx/simple/a/");
  ASSERT_EQ(files.size(), 2U);
  EXPECT_EQ(files[0].url, "https://idx/files/a-1.0-py3-none-any.whl");
  EXPECT_EQ(files[0].sha256, "ff");
  EXPECT_EQ(files[1].url, "https://idx/b.whl");
  EXPECT_TRUE(files[1].yanked);
  EXPECT_THROW(parse_simple_json("{\"files\": 3}", "u"), opkit::Error);
}

TEST(SdkIndex, WheelNamesAndNormalisation)
{
  EXPECT_EQ(normalize_project("TensorFlow_CPU"), "tensorflow-cpu");
  EXPECT_EQ(normalize_project("a.-_b"), "a-b");
  auto name = parse_wheel_name("tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->project, "tensorflow-cpu");
  EXPECT_EQ(name->version, "2.10.1");
  EXPECT_EQ(name->platforms, (std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"}));
  EXPECT_FALSE(parse_wheel_name("tensorflow-2.10.1.tar.gz"));
  EXPECT_FALSE(parse_wheel_name("x-1.whl"));
}

TEST(SdkIndex, PicksTheBestTaggedFileOfTheVersion)
{
  std::vector<IndexFile> files;
  for (const char* name : {"tensorflow_cpu-2.10.1-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                           "tensorflow_cpu-2.10.1-cp310-cp310-win_amd64.whl",
                           "tensorflow_cpu-2.10.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                           "tensorflow-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                           "tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"}) {
    IndexFile file;
    file.filename = name;
    file.url = std::string("u/") + name;
    files.push_back(file);
  }
  auto best = pick_wheel(files, "tensorflow-cpu", "2.10.1", {"cp310", "cp39"});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->filename, "tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  files.back().yanked = true; // a yanked file only when nothing else fits
  EXPECT_EQ(pick_wheel(files, "tensorflow-cpu", "2.10.1", {"cp310", "cp39"})->filename,
            "tensorflow_cpu-2.10.1-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  EXPECT_FALSE(pick_wheel(files, "tensorflow-cpu", "2.11.0", {"cp310"}));
}

TEST(SdkIndex, AnyManylinuxTagTheOldestGlibcFirst)
{
  auto files_named = [](std::vector<const char*> names) {
    std::vector<IndexFile> files;
    for (const char* name : names) {
      IndexFile file;
      file.filename = name;
      file.url = std::string("u/") + name;
      files.push_back(file);
    }
    return files;
  };
  // TF 2.21 publishes manylinux_2_27 only: taken, though no table names it.
  std::vector<IndexFile> tf221 = files_named({"tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl",
                                              "tensorflow-2.21.0-cp310-cp310-manylinux_2_27_x86_64.whl",
                                              "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_aarch64.whl",
                                              "tensorflow-2.21.0-cp310-cp310-macosx_12_0_arm64.whl"});
  EXPECT_EQ(pick_wheel(tf221, "tensorflow", "2.21.0", {"cp310"})->filename,
            "tensorflow-2.21.0-cp310-cp310-manylinux_2_27_x86_64.whl");
  // A python the list lacks still fits (the oldest such first); free-threaded builds never.
  std::vector<IndexFile> torch = files_named({"torch-2.15.0-cp315t-cp315t-manylinux_2_28_x86_64.whl",
                                              "torch-2.15.0-cp313-cp313-manylinux_2_28_x86_64.whl",
                                              "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"});
  EXPECT_EQ(pick_wheel(torch, "torch", "2.15.0", {"cp39"})->filename,
            "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_FALSE(
    pick_wheel(files_named({"torch-2.15.0-cp315t-cp315t-manylinux_2_28_x86_64.whl"}), "torch", "2.15.0", {"cp315"}));
  // Two glibcs of one release: the older wins over the preferred python.
  std::vector<IndexFile> mixed =
    files_named({"x-1.0.0-cp311-cp311-manylinux_2_28_x86_64.whl", "x-1.0.0-cp310-cp310-manylinux2014_x86_64.whl",
                 "x-1.0.0-cp311-cp311-linux_x86_64.whl"});
  EXPECT_EQ(pick_wheel(mixed, "x", "1.0.0", {"cp311", "cp310"})->filename,
            "x-1.0.0-cp310-cp310-manylinux2014_x86_64.whl");

  EXPECT_EQ(linux_x86_64_glibc("manylinux1_x86_64"), 2005);
  EXPECT_EQ(linux_x86_64_glibc("manylinux2010_x86_64"), 2012);
  EXPECT_EQ(linux_x86_64_glibc("manylinux_2_17_x86_64"), 2017);
  EXPECT_EQ(linux_x86_64_glibc("manylinux_2_27_x86_64"), 2027);
  EXPECT_EQ(linux_x86_64_glibc("linux_x86_64"), k_unstated_glibc);
  for (const char* other : {"manylinux_2_27_aarch64", "manylinux_3_1_x86_64", "manylinux_2__x86_64",
                            "manylinux_2_1234_x86_64", "manylinux_x86_64", "win_amd64", "musllinux_1_2_x86_64"}) {
    EXPECT_FALSE(linux_x86_64_glibc(other)) << other;
  }
  std::optional<WheelName> name =
    parse_wheel_name("t-2.20.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  ASSERT_TRUE(name);
  EXPECT_EQ(wheel_platform(*name)->glibc_text(), "2.17");
  std::vector<std::string> pip_tags = pip_platform_tags();
  EXPECT_EQ(pip_tags.front(), "manylinux1_x86_64");
  EXPECT_EQ(pip_tags.back(), "linux_x86_64");
  EXPECT_NE(std::find(pip_tags.begin(), pip_tags.end(), "manylinux_2_27_x86_64"), pip_tags.end());
}

TEST(SdkIndex, IndexUrlPrecedence)
{
  ::setenv("OPKIT_INDEX_URL", "http://opkit/", 1);
  ::setenv("PIP_INDEX_URL", "http://pip/", 1);
  EXPECT_EQ(configured_index_url("http://flag/"), "http://flag/");
  EXPECT_EQ(configured_index_url(""), "http://opkit/");
  ::unsetenv("OPKIT_INDEX_URL");
  EXPECT_EQ(configured_index_url(""), "http://pip/");
  ::unsetenv("PIP_INDEX_URL");
}

TEST(SdkIndex, HtmlLinksAsPipReadsThem)
{
  // Single-quoted and unquoted hrefs, a scheme-relative link to a file host,
  // entities, PEP 658/714 metadata and yanked attributes.
  std::string html = "<html><body>\n"
                     "<a href='../../files/a-1.0-py3-none-any.whl#sha256=aa' data-requires-python='&gt;=3.7'>"
                     "a-1.0-py3-none-any.whl</a>\n"
                     "<a href=\"//files.example:8443/p/a-1.1-py3-none-any.whl?x=1&amp;y=2#sha256=bb\" "
                     "data-dist-info-metadata=\"sha256=cc\" data-yanked=\"bad build\">a-1.1-py3-none-any.whl</a>\n"
                     "<a href=a-1.2-py3-none-any.whl data-core-metadata=false></a>\n"
                     "<a href=\"http://bad host/x.whl\">x.whl</a>\n"
                     "</body></html>";
  std::vector<IndexFile> files = parse_simple_html(html, "https://idx:1/simple/a/");
  ASSERT_EQ(files.size(), 3U); // the link that makes no URL is skipped
  EXPECT_EQ(files[0].url, "https://idx:1/files/a-1.0-py3-none-any.whl");
  EXPECT_EQ(files[0].sha256, "aa");
  EXPECT_EQ(files[0].requires_python, ">=3.7");
  EXPECT_FALSE(files[0].core_metadata);
  EXPECT_FALSE(files[0].yanked);
  EXPECT_EQ(files[1].url, "https://files.example:8443/p/a-1.1-py3-none-any.whl?x=1&y=2");
  EXPECT_EQ(files[1].sha256, "bb");
  EXPECT_TRUE(files[1].core_metadata);
  EXPECT_TRUE(files[1].yanked);
  EXPECT_EQ(files[1].yanked_reason, "bad build");
  EXPECT_EQ(files[2].filename, "a-1.2-py3-none-any.whl"); // no text: the URL's last part
  EXPECT_FALSE(files[2].core_metadata);
  EXPECT_TRUE(parse_simple_html("<a href=\"x.whl\"", "http://h/").size() <= 1); // cut off: no crash
}

namespace {

std::vector<IndexFile>
named(std::initializer_list<const char*> names)
{
  std::vector<IndexFile> files;
  for (const char* name : names) {
    IndexFile file;
    file.filename = name;
    files.push_back(file);
  }
  return files;
}

opkit::project::Version
version(const char* text)
{
  return *opkit::project::parse_version(text);
}

} // namespace

TEST(SdkIndex, ListedVersionsAndWhatARequirementNames)
{
  std::vector<IndexFile> files =
    named({"tensorflow_cpu-2.10.1-cp310-cp310-manylinux2014_x86_64.whl",
           "tensorflow_cpu-2.10.1-cp39-cp39-manylinux2014_x86_64.whl",
           "tensorflow_cpu-2.9.3-cp310-cp310-manylinux2014_x86_64.whl",
           "tensorflow_cpu-2.10.0-cp310-cp310-manylinux2014_x86_64.whl",
           "tensorflow_cpu-2.11.0rc1-cp310-cp310-manylinux2014_x86_64.whl",
           "tensorflow-2.12.0-cp310-cp310-manylinux2014_x86_64.whl", "tensorflow_cpu-2.10.0.tar.gz"});
  std::vector<opkit::project::Version> versions = listed_versions(files, "tensorflow-cpu");
  std::vector<std::string> text;
  for (const auto& v : versions) {
    text.push_back(v.str());
  }
  EXPECT_EQ(text, (std::vector<std::string>{"2.9.3", "2.10.0", "2.10.1", "2.11.0rc1"}));

  EXPECT_TRUE(requirement_names(version("2.10"), version("2.10.1")));
  EXPECT_TRUE(requirement_names(version("2"), version("2.10.1")));
  EXPECT_FALSE(requirement_names(version("2.1"), version("2.10.1"))); // parts, not characters
  EXPECT_TRUE(requirement_names(version("2.10.1"), version("2.10.1")));
  EXPECT_FALSE(requirement_names(version("2.10.1"), version("2.10.0")));
  EXPECT_FALSE(requirement_names(version("2.11"), version("2.11.0rc1"))); // pre-releases only exactly
  EXPECT_FALSE(requirement_names(version("2.11.0"), version("2.11.0rc1")));
  EXPECT_TRUE(requirement_names(version("2.11.0rc1"), version("2.11.0rc1")));
}

TEST(SdkIndex, PostAndDevReleasesAndRcNumbersAsPipHasThem)
{
  std::vector<IndexFile> files = named({"tensorflow_cpu-2.11.0rc10-cp310-cp310-manylinux2014_x86_64.whl",
                                        "tensorflow_cpu-2.11.0rc2-cp310-cp310-manylinux2014_x86_64.whl",
                                        "tensorflow_cpu-2.10.0.post1-cp310-cp310-manylinux2014_x86_64.whl",
                                        "tensorflow_cpu-2.10.0-cp310-cp310-manylinux2014_x86_64.whl",
                                        "tensorflow_cpu-2.12.0.dev20221001-cp310-cp310-manylinux2014_x86_64.whl"});
  std::vector<std::string> text;
  for (const auto& v : listed_versions(files, "tensorflow-cpu")) {
    text.push_back(v.str());
  }
  EXPECT_EQ(text,
            (std::vector<std::string>{"2.10.0", "2.10.0.post1", "2.11.0rc2", "2.11.0rc10", "2.12.0.dev20221001"}));
  EXPECT_TRUE(requirement_names(version("2.10"), version("2.10.0.post1"))) << "pip's ==2.10.* has post-releases";
  EXPECT_FALSE(requirement_names(version("2.10.0"), version("2.10.0.post1"))) << "==2.10.0 is that release";
  EXPECT_FALSE(requirement_names(version("2.12"), version("2.12.0.dev20221001")));
  EXPECT_TRUE(requirement_names(version("2.12.0.dev20221001"), version("2.12.0.dev20221001")));
  EXPECT_EQ(nearest_versions(listed_versions(files, "tensorflow-cpu"), version("2.13")),
            (std::vector<std::string>{"2.10.0", "2.10.0.post1"}));
}

TEST(SdkIndex, NearestVersionsForTheError)
{
  std::vector<opkit::project::Version> few = {version("2.9.3"), version("2.10.0"), version("2.10.1"),
                                              version("2.11.0rc1")};
  EXPECT_EQ(nearest_versions(few, version("2.99")), (std::vector<std::string>{"2.9.3", "2.10.0", "2.10.1"}));
  EXPECT_EQ(nearest_versions(few, version("2.11.0rc2")),
            (std::vector<std::string>{"2.9.3", "2.10.0", "2.10.1", "2.11.0rc1"}));
  EXPECT_TRUE(nearest_versions({}, version("2.10")).empty());

  std::vector<opkit::project::Version> many;
  for (int minor = 0; minor < 20; ++minor) {
    many.push_back(version(("2." + std::to_string(minor) + ".0").c_str()));
  }
  EXPECT_EQ(nearest_versions(many, version("2.99"), 4),
            (std::vector<std::string>{"...", "2.16.0", "2.17.0", "2.18.0", "2.19.0"}));
  EXPECT_EQ(nearest_versions(many, version("1.0"), 4),
            (std::vector<std::string>{"2.0.0", "2.1.0", "2.2.0", "2.3.0", "..."}));
  EXPECT_EQ(nearest_versions(many, version("2.10.5"), 4),
            (std::vector<std::string>{"...", "2.9.0", "2.10.0", "2.11.0", "2.12.0", "..."}));
}
