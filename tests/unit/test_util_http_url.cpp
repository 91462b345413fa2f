#include "opkit/util/error.hpp"
#include "opkit/util/http_url.hpp"

#include <gtest/gtest.h>

using namespace opkit;

TEST(HttpUrl, ResolvesAsABrowserDoes)
{
  const std::string page = "http://h:1/simple/tf/";
  EXPECT_EQ(resolve_url(page, "../../files/x.whl").url, "http://h:1/files/x.whl");
  EXPECT_EQ(resolve_url(page, "/f/x.whl").url, "http://h:1/f/x.whl");
  EXPECT_EQ(resolve_url(page, "x.whl").url, "http://h:1/simple/tf/x.whl");
  EXPECT_EQ(resolve_url(page, "./a/../x.whl").url, "http://h:1/simple/tf/x.whl");
  EXPECT_EQ(resolve_url(page, "https://o/x.whl").url, "https://o/x.whl");
  // Scheme-relative: the page's scheme, the link's host (no "http://h:1//other/...").
  EXPECT_EQ(resolve_url(page, "//other:8080/files/x.whl").url, "http://other:8080/files/x.whl");
  EXPECT_EQ(resolve_url("https://idx/simple/tf/", "//files.example/p/x.whl").url, "https://files.example/p/x.whl");
  // More ".." than the path has stops at the root.
  EXPECT_EQ(resolve_url(page, "../../../../x.whl").url, "http://h:1/x.whl");
  EXPECT_EQ(resolve_url(page, "x.whl?a=1&b=2").url, "http://h:1/simple/tf/x.whl?a=1&b=2");
}

TEST(HttpUrl, SplitsTheFragment)
{
  ResolvedUrl url = resolve_url("http://h/simple/tf/", "../../files/x.whl#sha256=00ff");
  EXPECT_EQ(url.url, "http://h/files/x.whl");
  EXPECT_EQ(url.fragment, "sha256=00ff");
  EXPECT_EQ(resolve_url("http://h/simple/tf/", "x.whl").fragment, "");
}

TEST(HttpUrl, RefusesWhatIsNoUrl)
{
  EXPECT_THROW(resolve_url("not a url", "x.whl"), Error);
  EXPECT_THROW(resolve_url("http://h/simple/", "http://bad host/x.whl"), Error);
}
