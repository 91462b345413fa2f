// adopt/call_reader: statements, choices, blocks and formats (read_calls; more through
// test_adopt_build_files.cpp and test_adopt_setup_py.cpp).

#include "opkit/adopt/call_reader.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using namespace opkit;
using adopt::CallValue;
using Kind = CallValue::Kind;

namespace {

std::vector<CallValue>
calls(const std::string& text, const std::set<std::string>& names = {"Ext", "CudaExt", "f"},
      const adopt::CallContext& context = {})
{
  return adopt::read_calls(text, names, "setup.py", context).calls;
}

// The strings of a list, each with its conditions joined by "&" ("a.cc", "b.cc@c&d").
std::vector<std::string>
strings(const CallValue& list)
{
  std::vector<std::string> out;
  for (const CallValue& item : list.items) {
    std::string conditions;
    for (const std::string& condition : item.conditions ? *item.conditions : std::vector<std::string>{}) {
      conditions += (conditions.empty() ? "@" : "&") + condition;
    }
    out.push_back((item.kind == Kind::string ? item.text : "?") + conditions);
  }
  return out;
}

// "CudaExt when use, else Ext (e of line 2) on line 3".
std::string
describe(const CallValue& call)
{
  return call.text + " when " + call.condition + ", else " + call.alternative + " (" + call.via + " of line "
         + std::to_string(call.via_line) + ") on line " + std::to_string(call.line);
}

} // namespace

TEST(AdoptCallReader, ACallThroughANameChosenBetweenTwoClasses)
{
  std::vector<CallValue> found = calls("use = has_cuda() and x\n"
                                       "e = CudaExt if use else mod.Ext\n"
                                       "e('m', [])\n"
                                       "g = mod.Ext\n"
                                       "g('n', [])\n"
                                       "h = Ext if not use else CudaExt\n"
                                       "h('o', [])\n"
                                       "k = Other if use else Ext\n"
                                       "k('p', [])\n");
  std::vector<std::string> described;
  for (const CallValue& call : found) {
    described.push_back(describe(call));
  }
  // k: Other is none of the names, so Ext is called when `use` does not hold.
  EXPECT_EQ(described, (std::vector<std::string>{"CudaExt when use, else mod.Ext (e of line 2) on line 3",
                                                 "mod.Ext when , else  (g of line 4) on line 5",
                                                 "Ext when not use, else CudaExt (h of line 6) on line 7",
                                                 "Ext when not use, else  (k of line 8) on line 9"}));
}

TEST(AdoptCallReader, IfBlocksMarkWhatTheyAddAndIfElseMakesChoices)
{
  std::vector<CallValue> found = calls(R"(
def sources():
    s = ["a.cc"]
    if cuda.ok(x, "y"):
        s += ["b.cu"]
        if deep: s.append("c.cc")
        e = CudaExt
    elif other:
        s.extend(["d.cc"])
    else:
        e = Ext
        s += ["e.cc"]
    s += ["f.cc"]
    f(s)
    f(e)
)");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(strings(found[0].items[0]),
            (std::vector<std::string>{"a.cc", "b.cu@cuda.ok(x, \"y\")", "c.cc@cuda.ok(x, \"y\")&deep", "d.cc@other",
                                      "e.cc@not other", "f.cc"}));
  // `else` follows the `elif`: `e` was assigned in the `if`, not the `elif`, so no choice is made.
  EXPECT_EQ(found[1].items.at(0).kind, Kind::name);
  EXPECT_EQ(found[1].items.at(0).text, "Ext");

  // `+=` after if/else adds to each side of the choice.
  found = calls("if a:\n  s = ['x.cu']\nelse:\n  s = []\ns += ['y.cc']\nf(s)\n");
  ASSERT_EQ(found.size(), 1u);
  const CallValue& both = found[0].items.at(0);
  ASSERT_EQ(both.kind, Kind::choice);
  EXPECT_EQ(both.text, "a");
  EXPECT_EQ(strings(both.items.at(0)), (std::vector<std::string>{"x.cu", "y.cc"}));
  EXPECT_EQ(strings(both.items.at(1)), (std::vector<std::string>{"y.cc"}));

  found = calls("if a:\n  e = CudaExt\nelse:\n  e = Ext\ne('m', [])\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text, "CudaExt");
  EXPECT_EQ(found[0].alternative, "Ext");
  EXPECT_EQ(found[0].condition, "a");
}

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
