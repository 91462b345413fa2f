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
    files.push_back({name, std::string("u/") + name, "", false});
  }
  auto best = pick_wheel(files, "tensorflow-cpu", "2.10.1", {"cp310", "cp39"}, {"manylinux2014_x86_64"});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->filename, "tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  files.back().yanked = true; // a yanked file only when nothing else fits
  EXPECT_EQ(pick_wheel(files, "tensorflow-cpu", "2.10.1", {"cp310", "cp39"}, {"manylinux2014_x86_64"})->filename,
            "tensorflow_cpu-2.10.1-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  EXPECT_FALSE(pick_wheel(files, "tensorflow-cpu", "2.11.0", {"cp310"}, {"manylinux2014_x86_64"}));
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

TEST(SdkIndex, ResolvesRelativeUrls)
{
  EXPECT_EQ(resolve_url("http://h:1/simple/tf/", "../../files/x.whl"), "http://h:1/files/x.whl");
  EXPECT_EQ(resolve_url("http://h/simple/tf/", "/f/x.whl"), "http://h/f/x.whl");
  EXPECT_EQ(resolve_url("http://h/simple/tf/", "x.whl"), "http://h/simple/tf/x.whl");
  EXPECT_EQ(resolve_url("http://h/simple/tf/", "https://o/x.whl"), "https://o/x.whl");
}
