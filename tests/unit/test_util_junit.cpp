#include "opkit/util/junit.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit;

TEST(Junit, CountsPerSuiteAndInAll)
{
  std::vector<JunitSuite> suites = {
    {"opkit test tf-1.12.0",
     {{"opkit.test.tf-1.12.0", "zero_out", JunitOutcome::passed, "", ""},
      {"opkit.test.tf-1.12.0", "hash_ops", JunitOutcome::failure, "did not load: undefined symbol", "loader: x\n"}}},
    {"opkit test tf-2.10.1",
     {{"opkit.test.tf-2.10.1", "zero_out", JunitOutcome::error, "no vector ran", ""},
      {"opkit.test", "tf-2.4.0: no library", JunitOutcome::skipped, "no library", ""}}},
  };
  std::string xml = render_junit("opkit test", suites);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"opkit test\" tests=\"4\" "
                      "failures=\"1\" errors=\"1\">\n",
                      0),
            0U)
    << xml;
  EXPECT_NE(xml.find("<testsuite name=\"opkit test tf-1.12.0\" tests=\"2\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\">"),
            std::string::npos)
    << xml;
  EXPECT_NE(xml.find("<testcase classname=\"opkit.test.tf-1.12.0\" name=\"zero_out\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"did not load: undefined symbol\" type=\"failure\">loader: x\n</failure>"),
            std::string::npos)
    << xml;
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"no library\" type=\"skipped\"></skipped>"), std::string::npos) << xml;
}

TEST(Junit, EscapesMarkupAndBytesXmlCannotHold)
{
  JunitCase test{"c", "a<b>&\"q\"", JunitOutcome::failure, "line one\nline two\t<x>", "text <y> & \"z\"\x01\xff\r\n"};
  std::string xml = render_junit("n", {{"s", {test}}});
  EXPECT_NE(xml.find("name=\"a&lt;b&gt;&amp;&quot;q&quot;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("message=\"line one&#10;line two&#9;&lt;x&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find(">text &lt;y&gt; &amp; \"z\"\\x01\\xff&#13;\n</failure>"), std::string::npos) << xml;
}

TEST(Junit, KeepsUtf8AndPassedDetailsAsSystemOut)
{
  JunitCase test{"c", "zéro_öut ✓", JunitOutcome::passed, "", "loaded\n"};
  std::string xml = render_junit("n", {{"s", {test}}});
  EXPECT_NE(xml.find("name=\"zéro_öut ✓\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<system-out>loaded\n</system-out>"), std::string::npos) << xml;
  // A truncated sequence is no UTF-8: written as bytes.
  xml = render_junit("n", {{"s", {{"c", "a\xe2\x9c", JunitOutcome::passed, "", ""}}}});
  EXPECT_NE(xml.find("name=\"a\\xe2\\x9c\""), std::string::npos) << xml;
}
