// adopt/call_lexer: tokens, the text of a stretch of them, f-strings and %-formats.

#include "opkit/adopt/call_lexer.hpp"

#include <gtest/gtest.h>

using namespace opkit::adopt;
using namespace opkit::adopt::call_lexer;

TEST(AdoptCallLexer, TokensKnowTheirStatementsIndentationAndFStrings)
{
  std::vector<CallToken> tokens = tokenize("if a:\n    b = f'{x}' \\\n  + rb'y'\n    c = [\n  1]\n# c\n\tz\n");
  std::vector<std::pair<std::string, int>> starts;
  for (const CallToken& token : tokens) {
    if (token.indent >= 0) {
      starts.emplace_back(token.text, token.indent);
    }
  }
  EXPECT_EQ(starts, (std::vector<std::pair<std::string, int>>{{"if", 0}, {"b", 4}, {"c", 4}, {"z", 1}}));
  EXPECT_EQ(tokens[6].kind, CallTok::fstring);
  EXPECT_EQ(tokens[6].text, "{x}");
  EXPECT_EQ(tokens[8].kind, CallTok::string);
  EXPECT_EQ(tokens.back().kind, CallTok::end);
}

TEST(AdoptCallLexer, TokensTextReadsAsWritten)
{
  std::string text = "not torch.cuda.is_available() and d[\"k\"] in {'a': f(1, 2)}";
  std::vector<CallToken> tokens = tokenize(text);
  EXPECT_EQ(tokens_text(tokens, 0, tokens.size() - 1),
            "not torch.cuda.is_available() and d[\"k\"] in {\"a\": f(1, 2)}");
  std::string long_text(500, 'a');
  tokens = tokenize(long_text);
  EXPECT_EQ(tokens_text(tokens, 0, 1), std::string(100, 'a') + "...");
  EXPECT_EQ(negated("not x"), "x");
  EXPECT_EQ(negated("x"), "not x");
}

TEST(AdoptCallLexer, FormatsReadWhatTheyCanAndSayWhyNot)
{
  auto lookup = [](const std::string& name) -> std::optional<std::string> {
    return name == "a" ? std::optional<std::string>("A") : std::nullopt;
  };
  EXPECT_EQ(format_fstring("{a}.{{b}}_{ a }", 1, lookup).text, "A.{b}_A");
  CallValue unknown = format_fstring("x{b:>3}", 4, lookup);
  EXPECT_EQ(unknown.kind, CallValue::Kind::unknown);
  EXPECT_EQ(unknown.why, "an f-string with {b:>3}");
  EXPECT_EQ(unknown.line, 4);
  EXPECT_EQ(format_fstring("{" + std::string(300, 'z') + "}", 1, lookup).why,
            "an f-string with {" + std::string(100, 'z') + "...}");

  CallValue format;
  format.kind = CallValue::Kind::string;
  format.text = "%s-%d%%";
  CallValue tuple;
  tuple.kind = CallValue::Kind::list;
  tuple.items.resize(2);
  tuple.items[0].kind = CallValue::Kind::string;
  tuple.items[0].text = "s";
  tuple.items[1].kind = CallValue::Kind::number;
  tuple.items[1].text = "3";
  EXPECT_EQ(percent_format(format, tuple).text, "s-3%");
  tuple.items[1].kind = CallValue::Kind::name;
  tuple.items[1].text = "n";
  EXPECT_EQ(percent_format(format, tuple).why, "n is no name opkit read");
  tuple.items.pop_back();
  EXPECT_EQ(percent_format(format, tuple).why, "a %-format opkit cannot read");
}
