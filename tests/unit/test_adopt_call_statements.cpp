// adopt/call_statements: assignments, `+=`, `if` blocks, calls through a name (read_calls).

#include "call_reader_test_util.hpp"

#include "opkit/adopt/call_reader.hpp"

#include <gtest/gtest.h>

using namespace opkit;
using adopt::CallValue;
using Kind = CallValue::Kind;
using test::calls;
using test::strings;

namespace {

// "CudaExt when use, else Ext (e of line 2) on line 3".
std::string
describe(const CallValue& call)
{
  return call.text + " when " + call.condition + ", else " + call.alternative + " (" + call.via + " of line "
         + std::to_string(call.via_line) + ") on line " + std::to_string(call.line);
}

} // namespace

TEST(AdoptCallStatements, ACallThroughANameChosenBetweenTwoClasses)
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

TEST(AdoptCallStatements, IfBlocksMarkWhatTheyAddAndIfElseMakesChoices)
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

TEST(AdoptCallStatements, AnIfBodyReassigningAClassMakesAChoiceAtItsEnd)
{
  std::vector<CallValue> found = calls(R"(
def get():
    e = Ext
    s = ["a.cc"]
    if cuda_ok:
        e = CudaExt
        s += ["b.cc"]
    return [e("m", s)]
e2 = Ext
if x:
    if y:
        e2 = CudaExt
e2("n", [])
e3 = Ext
if z: e3 = CudaExt
)");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(describe(found[0]), "CudaExt when cuda_ok, else Ext (e of line 6) on line 8");
  EXPECT_EQ(strings(found[0].items.at(1)), (std::vector<std::string>{"a.cc", "b.cc@cuda_ok"}));
  EXPECT_EQ(describe(found[1]), "CudaExt when y, else Ext (e2 of line 12) on line 13"); // the inner block's condition
}
