#include "opkit/util/strings.hpp"

#include <gtest/gtest.h>

using opkit::ascii_lower;
using opkit::escape_clipped;
using opkit::escape_text;
using opkit::is_utf8;

TEST(UtilStrings, EscapeTextKeepsUtf8AndEscapesTheRest)
{
  EXPECT_EQ(escape_text("plain/path.whl"), "plain/path.whl");
  EXPECT_EQ(escape_text("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(escape_text("x\xff\x01y"), "x\\xff\\x01y");
  EXPECT_EQ(escape_text("caf\xc3\xa9"), "caf\xc3\xa9");      // é stays
  EXPECT_EQ(escape_text("\xe4\xb8\xad"), "\xe4\xb8\xad");    // 中 stays
  EXPECT_EQ(escape_text("\xc3"), "\\xc3");                   // a cut sequence
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a surrogate
  EXPECT_EQ(escape_text(std::string("a\0b", 3)), "a\\x00b");
}

TEST(UtilStrings, IsUtf8)
{
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("ascii"));
  EXPECT_TRUE(is_utf8("caf\xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(is_utf8("\xff"));
  EXPECT_FALSE(is_utf8("caf\xc3"));
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80")); // past U+10FFFF
}

TEST(UtilStrings, EscapeClippedShowsTheStartOfALongName)
{
  EXPECT_EQ(escape_clipped("short", 10), "short");
  EXPECT_EQ(escape_clipped(std::string(65000, 'a'), 4), "aaaa...");
  EXPECT_EQ(escape_clipped("a\nbcdef", 3), "a\\nb...");
}

TEST(UtilStrings, AsciiLowerMapsOnlyAToZ)
{
  EXPECT_EQ(ascii_lower("DT_FLOAT"), "dt_float");
  EXPECT_EQ(ascii_lower("Content-Type: X"), "content-type: x");
  EXPECT_EQ(ascii_lower("\xC3\x84-\xC4\xB0"), "\xC3\x84-\xC4\xB0") << "UTF-8 bytes stay as they are";
  EXPECT_EQ(ascii_lower(""), "");
}
