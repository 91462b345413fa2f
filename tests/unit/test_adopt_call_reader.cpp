// adopt/call_reader: expressions, formats, the caller's context and bounds (read_calls;
// statements in test_adopt_call_statements.cpp, more through test_adopt_build_files.cpp
// and test_adopt_setup_py.cpp).

#include "call_reader_test_util.hpp"

#include "opkit/adopt/call_reader.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit;
using adopt::CallValue;
using Kind = CallValue::Kind;
using test::calls;
using test::strings;

TEST(AdoptCallReader, ReadsFormatsAndSaysWhyNot)
{
  std::vector<CallValue> found = calls(R"(
pkg = "kit"
n = 2
f(f"{pkg}._C", f'{ pkg }_{n}' "!", "%s.%s_%d%%" % (pkg, "x", n), "%s" % pkg, pkg + "._y")
f(f"{nope}", f"{pkg!r}", "%x" % pkg, "%s %s" % pkg, missing + "x", f"{pkg")
)");
  ASSERT_EQ(found.size(), 2u);
  std::vector<std::string> texts;
  for (const CallValue& item : found[0].items) {
    EXPECT_EQ(item.kind, Kind::string);
    texts.push_back(item.text);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"kit._C", "kit_2!", "kit.x_2%", "kit", "kit._y"}));
  std::vector<std::string> whys;
  for (const CallValue& item : found[1].items) {
    EXPECT_EQ(item.kind, Kind::unknown);
    whys.push_back(item.why);
  }
  EXPECT_EQ(whys, (std::vector<std::string>{"an f-string with {nope}", "an f-string with {pkg!r}",
                                            "a %-format opkit cannot read", "a %-format opkit cannot read",
                                            "missing is no name opkit read", "an f-string with {pkg}"}));
}

TEST(AdoptCallReader, TheCallersEvaluatorAndNamesTakePart)
{
  adopt::CallContext context;
  CallValue file;
  file.kind = Kind::string;
  file.text = "setup.py";
  context.variables["__file__"] = file;
  int seen = 0;
  context.evaluate = [&](const CallValue& call) -> std::optional<CallValue> {
    ++seen;
    if (call.text != "twice" || call.items.size() != 1 || call.items[0].kind != Kind::string) {
      return std::nullopt;
    }
    CallValue list;
    list.kind = Kind::list;
    list.items = {call.items[0], call.items[0]};
    return list;
  };
  std::vector<CallValue> found = calls("f(twice(__file__), other(1))\n", {"f"}, context);
  EXPECT_EQ(seen, 3); // twice, other, f
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(strings(found[0].items.at(0)), (std::vector<std::string>{"setup.py", "setup.py"}));
  EXPECT_EQ(found[0].items.at(1).kind, Kind::call);

  // What the evaluator makes counts against max_values, as the file's own lists do.
  context.evaluate = [](const CallValue& call) -> std::optional<CallValue> {
    CallValue list;
    list.kind = Kind::list;
    list.items.resize(call.text == "huge" ? 300000 : 0);
    return list;
  };
  EXPECT_THROW(calls("x = huge()\n", {"f"}, context), Error);
}

TEST(AdoptCallReader, HostileStatementsAreBounded)
{
  std::string chain = "x = ";
  for (int i = 0; i < 50000; ++i) {
    chain += "a if b else ";
  }
  chain += "c\nf(x)\n";
  std::vector<CallValue> found = calls(chain);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].items.at(0).kind, Kind::choice);

  std::string growing = "x = Ext\n";
  for (int i = 0; i < 5000; ++i) { // a choice of copies: each x bigger than the last
    growing += "if c:\n  x = [x, x]\nelse:\n  x = x\n";
  }
  EXPECT_THROW(calls(growing), Error);

  std::string formats = "s = 'x'\n";
  for (int i = 0; i < 40; ++i) {
    formats += "s = f'{s}{s}'\ns = '%s%s' % (s, s)\n";
  }
  formats += "f(s)\n";
  found = calls(formats);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].items.at(0).kind, Kind::unknown);
  EXPECT_EQ(found[0].items.at(0).why, "an f-string with {s}"); // past 65536 characters at the 9th f-string
}
