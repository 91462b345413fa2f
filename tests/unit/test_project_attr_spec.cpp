#include "opkit/project/attr_spec.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <string>

using opkit::project::canonical_value;
using opkit::project::OpArg;
using opkit::project::OpAttr;
using opkit::project::parse_arg_spec;
using opkit::project::parse_attr_spec;
using opkit::project::render_arg_spec;
using opkit::project::render_attr_spec;
using opkit::project::SpecError;

namespace {

// The canonical spec of a spec, or "error at N: cause".
std::string
canonical(const std::string& spec)
{
  try {
    return render_attr_spec(parse_attr_spec(spec));
  } catch (const SpecError& e) {
    return "error at " + std::to_string(e.offset) + ": " + e.what();
  }
}

} // namespace

TEST(AttrSpec, ReadsTensorFlowsGrammar)
{
  OpAttr clip = parse_attr_spec("clip: float = 100.0");
  EXPECT_EQ(clip.name, "clip");
  EXPECT_EQ(clip.type, "float");
  EXPECT_EQ(clip.default_value, "100");
  EXPECT_FALSE(clip.minimum);
  EXPECT_TRUE(clip.full_spec);

  OpAttr format = parse_attr_spec("data_format: {'NHWC', 'NCHW'} = 'NHWC'");
  EXPECT_EQ(format.type, "string");
  EXPECT_EQ(format.allowed, (std::vector<std::string>{"NHWC", "NCHW"}));
  EXPECT_EQ(format.default_value, "\"NHWC\"");

  OpAttr n = parse_attr_spec("n: int >= 1");
  EXPECT_EQ(n.type, "int");
  EXPECT_EQ(n.minimum, 1);
  EXPECT_FALSE(n.default_value);

  OpAttr t = parse_attr_spec("T: {float, int32} = DT_FLOAT");
  EXPECT_EQ(t.type, "type");
  EXPECT_EQ(t.allowed, (std::vector<std::string>{"float", "int32"}));
  EXPECT_EQ(t.default_value, "float");

  OpAttr types = parse_attr_spec("Tout: list({DT_INT64, half}) >= 2");
  EXPECT_EQ(types.type, "list(type)");
  EXPECT_EQ(types.allowed, (std::vector<std::string>{"int64", "half"}));
  EXPECT_EQ(types.minimum, 2);
}

TEST(AttrSpec, WritesOneCanonicalForm)
{
  EXPECT_EQ(canonical("clip: float = 100.0"), "clip: float = 100");
  EXPECT_EQ(canonical("  clip :float=1e-3 "), "clip: float = 0.001");
  EXPECT_EQ(canonical("x: float = 0.1"), "x: float = 0.1");
  EXPECT_EQ(canonical("x: float = -inf"), "x: float = -inf");
  EXPECT_EQ(canonical("data_format: {'NHWC', \"NCHW\"} = 'NHWC'"), "data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"");
  EXPECT_EQ(canonical("s: string = 'a\\'b\\n\\001'"), "s: string = \"a'b\\n\\001\"");
  EXPECT_EQ(canonical("s: string = 'caf\\303\\251'"), "s: string = \"caf\\303\\251\"");
  EXPECT_EQ(canonical("n: int >= 1 = +07"), "n: int >= 1 = 7");
  EXPECT_EQ(canonical("b: bool = false"), "b: bool = false");
  EXPECT_EQ(canonical("T: type = DT_BFLOAT16"), "T: type = bfloat16");
  EXPECT_EQ(canonical("sizes: list(int) = [1,2 , 3]"), "sizes: list(int) = [1, 2, 3]");
  EXPECT_EQ(canonical("names: list(string) = []"), "names: list(string) = []");
  EXPECT_EQ(canonical("s: shape = [-1, 3]"), "s: shape = [?, 3]");
  EXPECT_EQ(canonical("s: shape = <unknown>"), "s: shape = <unknown>");
  EXPECT_EQ(canonical("f: func"), "f: func");
  EXPECT_EQ(canonical("modes: list({'a', 'b'}) = ['a']"), "modes: list({\"a\", \"b\"}) = [\"a\"]");
  // The canonical form reads back as itself.
  for (const char* spec : {"clip: float = 100", "data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"", "n: int >= 1 = 2",
                           "s: string = \"a\\\"b\\\\c\\t\\377\"", "T: list({float, int32}) >= 1"}) {
    EXPECT_EQ(canonical(spec), spec);
  }
}

TEST(AttrSpec, FloatsAsTheShortestTextThatReadsBack)
{
  EXPECT_EQ(opkit::project::float_text(100.0f), "100");
  EXPECT_EQ(opkit::project::float_text(0.1f), "0.1");
  EXPECT_EQ(opkit::project::float_text(1.0f / 3.0f), "0.33333334");
  EXPECT_EQ(opkit::project::float_text(16777216.0f), "16777216");
  EXPECT_EQ(opkit::project::float_text(1e-5f), "1e-05");
}

TEST(AttrSpec, SaysWhereASpecGoesWrong)
{
  EXPECT_EQ(canonical("n: int >= 1 = two"), "error at 14: expected an integer, found 'two'");
  EXPECT_EQ(canonical("clip float"), "error at 5: expected a ':', found 'float'");
  EXPECT_EQ(canonical("x: tensorr"), "error at 3: unknown attr type 'tensorr' (expected one of: string, int, float, "
                                     "bool, type, shape, tensor, func, list(...), {...})");
  EXPECT_EQ(canonical("T: {float, floot}"), "error at 11: unknown dtype 'floot'");
  EXPECT_EQ(canonical("s: string >= 1"), "error at 10: a minimum (>=) is for int and list attrs, not string");
  EXPECT_EQ(canonical("s: string = 'open"), "error at 12: unterminated string");
  EXPECT_EQ(canonical("s: string = 'a' 'b'"), "error at 16: unexpected text after the string value");
  EXPECT_EQ(canonical("b: bool = yes"), "error at 10: expected true or false, found 'yes'");
  EXPECT_EQ(canonical("n: int = 99999999999999999999"),
            "error at 9: expected an integer, found '99999999999999999999'");
  EXPECT_EQ(canonical("l: list(int) = [1, 2"), "error at 20: expected the list's end ']', found the end");
}

TEST(AttrSpec, CanonicalValuesByType)
{
  EXPECT_EQ(canonical_value("float", "2.50"), "2.5");
  EXPECT_EQ(canonical_value("list(float)", "[1.0, 0.5]"), "[1, 0.5]");
  EXPECT_EQ(canonical_value("list(type)", "[DT_FLOAT, int32]"), "[float, int32]");
  EXPECT_THROW(canonical_value("int", "1.5"), SpecError);
}

TEST(ArgSpec, ReadsAndWritesTensorFlowsArgGrammar)
{
  OpArg plain = parse_arg_spec("keys: string");
  EXPECT_EQ(plain.name, "keys");
  EXPECT_EQ(plain.type, "string");
  EXPECT_EQ(render_arg_spec(plain), "keys: string");
  OpArg many = parse_arg_spec("values:N*T");
  EXPECT_EQ(many.number_attr, "N");
  EXPECT_EQ(many.type, "T");
  EXPECT_EQ(render_arg_spec(many), "values: N * T");
  OpArg ref = parse_arg_spec("var: Ref(N * float)");
  EXPECT_TRUE(ref.is_ref);
  EXPECT_EQ(render_arg_spec(ref), "var: Ref(N * float)");
  EXPECT_THROW(parse_arg_spec("var: Ref(float"), SpecError);
  EXPECT_THROW(parse_arg_spec("x: T U"), SpecError);
}
