#include "opkit/util/secrets.hpp"

#include <gtest/gtest.h>

using namespace opkit;

TEST(Secrets, MaskedSecretsKeepAllButTheSecrets)
{
  EXPECT_EQ(mask_secrets("https://bot:t0k@en@mirror.example:8443/simple?x=1"),
            "https://bot:****@mirror.example:8443/simple?x=****");
  EXPECT_EQ(mask_secrets("redis://:pw@cache:6379/0"), "redis://:****@cache:6379/0");
  EXPECT_EQ(mask_secrets("https://bot@mirror.example/simple"), "https://bot@mirror.example/simple");
  EXPECT_EQ(mask_secrets("https://mirror.example/a@b"), "https://mirror.example/a@b"); // '@' in the path
  EXPECT_EQ(mask_secrets("https://mirror.example/simple?flag&t=&k=v#frag"),
            "https://mirror.example/simple?flag&t=&k=****#frag");
  EXPECT_EQ(mask_secrets("/home/me/.cache/opkit"), "/home/me/.cache/opkit");
  EXPECT_EQ(mask_secrets("Authorization: Bearer abc"), "Authorization: ****");
  EXPECT_EQ(mask_secrets("host:3632/4"), "host:3632/4"); // a distcc host, not a header
}

TEST(Secrets, EveryUrlInALineIsMasked)
{
  EXPECT_EQ(mask_secrets("Looking in indexes: https://mirror.example/simple?token=abc123, http://u:pw@other/x"),
            "Looking in indexes: https://mirror.example/simple?token=****, http://u:****@other/x");
  EXPECT_EQ(mask_secrets("GET 'https://h/s?sig=zz' failed: <a href=\"https://h/s?sig=zz\">"),
            "GET 'https://h/s?sig=****' failed: <a href=\"https://h/s?sig=****\">");
  EXPECT_EQ(mask_secrets("no scheme :// here, a://, 9x://y?k=v"), "no scheme :// here, a://, 9x://y?k=v");
  // A line of opkit's own that only looks like a header keeps its text.
  EXPECT_EQ(mask_secrets("--torch: this project's template is for TensorFlow"),
            "--torch: this project's template is for TensorFlow");
  EXPECT_EQ(mask_secrets("note: building"), "note: building");
  // A credential header anywhere in a line.
  EXPECT_EQ(mask_secrets("sent Authorization: Basic dXNlcjpwYXNz"), "sent Authorization: ****");
  EXPECT_EQ(mask_header("X-JFrog-Art-Api: abc"), "X-JFrog-Art-Api: ****");
}

TEST(Secrets, RememberedSecretsAreMaskedWhereverTheyAppear)
{
  remember_secrets("https://ci:hunter2pass@index.example/simple/?token=tok3n-value&x=1");
  remember_secrets("Authorization: Bearer b34rer-token");
  EXPECT_EQ(mask_secrets("404: no such page /simple/tensorflow/?token=tok3n-value"),
            "404: no such page /simple/tensorflow/?token=****");
  EXPECT_EQ(mask_secrets("login hunter2pass failed"), "login **** failed");
  EXPECT_EQ(mask_secrets("the server said b34rer-token is expired"), "the server said **** is expired");
  EXPECT_EQ(mask_secrets("x=1 stays"), "x=1 stays") << "values under 4 bytes are not remembered";
  remember_secrets("https://h/s?token=tok3n-value-longer");
  EXPECT_EQ(mask_secrets("saw tok3n-value-longer"), "saw ****") << "the longer secret is masked whole";
}
