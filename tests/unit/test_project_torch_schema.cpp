#include "opkit/project/torch_schema.hpp"

#include <gtest/gtest.h>

using opkit::project::parse_torch_schema;
using opkit::project::render_torch_schema;
using opkit::project::SpecError;
using opkit::project::TorchSchema;

namespace {

size_t
error_offset(const std::string& text)
{
  try {
    parse_torch_schema(text);
  } catch (const SpecError& e) {
    return e.offset;
  }
  return std::string::npos;
}

} // namespace

TEST(TorchSchema, ReadsArgumentsDefaultsKeywordOnlyAndResults)
{
  TorchSchema schema = parse_torch_schema(
    "demo::segment_sum.out ( Tensor src, Tensor(a!) index , int[ 2 ]? dims=None, *, float scale = 1.5, "
    "str reduce=\"sum, mean\") -> (Tensor values, Tensor)");
  EXPECT_EQ(schema.name, "demo::segment_sum.out");
  ASSERT_EQ(schema.args.size(), 5u);
  EXPECT_EQ(schema.args[1].type, "Tensor(a!)");
  EXPECT_EQ(schema.args[1].base_type(), "Tensor");
  EXPECT_TRUE(schema.args[1].is_tensor());
  EXPECT_EQ(schema.args[2].type, "int[2]?");
  EXPECT_TRUE(schema.args[2].may_omit());
  EXPECT_FALSE(schema.args[2].is_tensor());
  EXPECT_FALSE(schema.args[2].keyword_only);
  EXPECT_TRUE(schema.args[3].keyword_only);
  EXPECT_EQ(schema.args[3].default_value, "1.5");
  EXPECT_EQ(schema.args[4].default_value, "\"sum, mean\""); // spaces inside quotes are kept
  ASSERT_EQ(schema.returns.size(), 2u);
  EXPECT_EQ(schema.returns[0].name, "values");
  EXPECT_EQ(opkit::project::torch_result_names(schema), (std::vector<std::string>{"values", "output1"}));
  EXPECT_EQ(render_torch_schema(schema), "demo::segment_sum.out(Tensor src, Tensor(a!) index, int[2]? dims=None, *, "
                                         "float scale=1.5, str reduce=\"sum, mean\") -> (Tensor values, Tensor)");
}

TEST(TorchSchema, RendersOneResultWithoutParenthesesAsTheDispatcherPrintsIt)
{
  EXPECT_EQ(render_torch_schema(parse_torch_schema("zo::zero_out(Tensor x) -> (Tensor)")),
            "zo::zero_out(Tensor x) -> Tensor");
  EXPECT_EQ(render_torch_schema(parse_torch_schema("zo::noop() -> ()")), "zo::noop() -> ()");
  TorchSchema lists = parse_torch_schema("zo::cat(Tensor?[] xs, Tensor[] ys) -> Tensor[]");
  EXPECT_TRUE(lists.args[0].is_tensors());
  EXPECT_TRUE(lists.args[1].is_tensors());
  EXPECT_EQ(opkit::project::torch_result_names(lists), (std::vector<std::string>{"output"}));
  std::string canonical = render_torch_schema(lists);
  EXPECT_EQ(render_torch_schema(parse_torch_schema(canonical)), canonical);
}

TEST(TorchSchema, SaysWhichArgumentsTakeNoneAndWhichTheOpWritesInto)
{
  TorchSchema schema =
    parse_torch_schema("zo::f(Tensor(a!) out, Tensor(b) view, Tensor? w, int? n, int dim=-1, Tensor?[] xs, "
                       "int[]? sizes, Tensor(c!)? maybe, Tensor(d!)[] outs) -> ()");
  std::vector<bool> optional, mutated;
  for (const opkit::project::TorchArg& arg : schema.args) {
    optional.push_back(arg.is_optional());
    mutated.push_back(arg.is_mutated());
  }
  EXPECT_EQ(optional, (std::vector<bool>{false, false, true, true, false, false, true, true, false}));
  EXPECT_EQ(mutated, (std::vector<bool>{true, false, false, false, false, false, false, true, true}));
  EXPECT_TRUE(schema.args[4].may_omit()); // a default, yet no None
}

TEST(TorchSchema, RefusesWhatTheDispatcherWouldNotDefineAndSaysWhere)
{
  EXPECT_EQ(error_offset("zero_out(Tensor x) -> Tensor"), 8u);      // no namespace: "::" expected at '('
  EXPECT_EQ(error_offset("zo::zero_out(Tensor) -> Tensor"), 19u);   // an argument needs a name
  EXPECT_EQ(error_offset("zo::zero_out(Tensor x)"), 22u);           // no results
  EXPECT_EQ(error_offset("zo::f(Tensor x, int x) -> Tensor"), 21u); // a name twice
  EXPECT_EQ(error_offset("zo::f(Tensor x) -> Tensor extra junk"), 32u);
  EXPECT_EQ(error_offset("zo::f(str s=\"open) -> Tensor"), 12u);
  EXPECT_EQ(error_offset("zo::f(Tensor x, *, *, int y) -> Tensor"), 20u);
}

// Float defaults as the dispatcher prints them (c10's IValue printing), so a
// schema written "shift=0.0" matches what torch registered ("shift=0.").
TEST(TorchSchema, FloatDefaultsAreWrittenAsTheDispatcherPrintsThem)
{
  TorchSchema schema =
    parse_torch_schema("ns::f(Tensor x, float a=0.0, float b=2, float c=0.5, float? d=1e-12, float e=-0.0, "
                       "float f=inf, int n=3) -> Tensor");
  EXPECT_EQ(render_torch_schema(schema), "ns::f(Tensor x, float a=0., float b=2., float c=0.5, "
                                         "float? d=9.9999999999999998e-13, float e=-0., float f=inf, int n=3) -> "
                                         "Tensor");
}
