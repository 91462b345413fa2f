#include "opkit/util/html.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit;

TEST(Html, HrefsQuotedEitherWayOrNot)
{
  std::vector<HtmlLink> links = html_links("<html><body>\n"
                                           "<a href=\"double.whl\">double</a>\n"
                                           "<a href='single.whl'>single</a>\n"
                                           "<a href=unquoted.whl>unquoted</a>\n"
                                           "<A HREF='upper.whl'>upper</A>\n"
                                           "<a name=\"no-href\">skipped</a>\n"
                                           "</body></html>");
  ASSERT_EQ(links.size(), 4U);
  EXPECT_EQ(links[0].href, "double.whl");
  EXPECT_EQ(links[0].text, "double");
  EXPECT_EQ(links[1].href, "single.whl");
  EXPECT_EQ(links[1].text, "single");
  EXPECT_EQ(links[2].href, "unquoted.whl");
  EXPECT_EQ(links[3].href, "upper.whl");
  EXPECT_EQ(links[3].text, "upper");
}

TEST(Html, EntitiesFragmentsAndDataAttributes)
{
  std::vector<HtmlLink> links = html_links(
    "<!DOCTYPE html><html><body>"
    "<a href=\"../../files/a-1.0-py3-none-any.whl?x=1&amp;y=2#sha256=00ff\" data-requires-python=\"&gt;=3.7, &lt;4\""
    " data-core-metadata=\"sha256=ab\" data-yanked>a-1.0-py3-none-any.whl</a><br/>"
    "<a href='b.whl' data-dist-info-metadata='true' data-yanked='broken &quot;build&quot;'>b &amp; <b>c</b></a>"
    "</body></html>");
  ASSERT_EQ(links.size(), 2U);
  EXPECT_EQ(links[0].href, "../../files/a-1.0-py3-none-any.whl?x=1&y=2#sha256=00ff");
  EXPECT_EQ(links[0].attribute("data-requires-python"), ">=3.7, <4");
  EXPECT_EQ(links[0].attribute("data-core-metadata"), "sha256=ab");
  EXPECT_EQ(links[0].attribute("data-yanked"), ""); // present, no value
  EXPECT_FALSE(links[0].attribute("data-dist-info-metadata"));
  EXPECT_EQ(links[1].attribute("data-dist-info-metadata"), "true");
  EXPECT_EQ(links[1].attribute("data-yanked"), "broken \"build\"");
  EXPECT_EQ(links[1].text, "b & c");
}

TEST(Html, MalformedPagesDoNotCrash)
{
  EXPECT_TRUE(html_links("").empty());
  EXPECT_TRUE(html_links("not html at all <<<>>> &&&").empty());
  // Unclosed and misnested tags, an unterminated attribute, bytes that are not UTF-8.
  std::vector<HtmlLink> links = html_links("<body><p><a href=\"one.whl\">one<a href='two.whl'>two</p><div><a "
                                           "href=\"three\xff\xfe.whl\">three</div><a href=\"four.whl");
  ASSERT_GE(links.size(), 2U);
  EXPECT_EQ(links[0].href, "one.whl");
  EXPECT_EQ(links[1].href, "two.whl");
  std::string deep;
  for (int i = 0; i < 5000; ++i) {
    deep += "<div>";
  }
  deep += "<a href=\"deep.whl\">deep</a>";
  links = html_links(deep); // libxml2 stops nesting at its own limit; no recursion here either way
  for (const HtmlLink& link : links) {
    EXPECT_EQ(link.href, "deep.whl");
  }
  std::string binary("\0\x01<a href=x>\0</a>", 16);
  EXPECT_NO_THROW(html_links(binary));
}
