#include "opkit/project/op_yaml.hpp"

#include "opkit/project/yaml_util.hpp"

#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using opkit::project::OpSpec;
using opkit::project::TestVector;

namespace {

OpSpec
torch_op(const std::string& text)
{
  return opkit::project::parse_op(opkit::project::yaml::load(text, "opkit.yaml"), "opkit.yaml", "torch");
}

std::string
error_of(const std::string& text)
{
  try {
    torch_op(text);
  } catch (const opkit::Error& e) {
    EXPECT_EQ(e.code(), opkit::ExitCode::usage);
    return e.what();
  }
  return "no error";
}

// A PyG-style op whose schema torch inferred: `_3` and `_4` are optional without defaults.
const char* k_scatter = "schema: \"pyg::scatter_sum(Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4) -> Tensor _0\"\n"
                        "tests:\n"
                        "  - inputs: {_0: [1, 2], _1: [0, 0], _2: 0, _3: null, _4: null}\n"
                        "    outputs: {_0: [3]}\n";

// An op of `schema` with one vector.
std::string
one_vector(const std::string& schema, const std::string& inputs, const std::string& outputs)
{
  return "schema: \"" + schema + "\"\ntests:\n  - inputs: " + inputs + "\n    outputs: " + outputs + "\n";
}

void
expect_refused(const std::string& text, const std::string& message)
{
  std::string error = error_of(text);
  EXPECT_NE(error.find(message), std::string::npos) << error;
}

const TestVector::Value*
named(const std::vector<TestVector::Value>& values, const std::string& name)
{
  for (const TestVector::Value& value : values) {
    if (value.name == name) {
      return &value;
    }
  }
  return nullptr;
}

} // namespace

TEST(OpYaml, NullIsNoneForAnOptionalTensorAndAnOptionalInt)
{
  OpSpec op = torch_op(k_scatter);
  ASSERT_EQ(op.inputs.size(), 3u);
  EXPECT_FALSE(op.inputs[0].nullable);
  EXPECT_TRUE(op.inputs[2].nullable); // Tensor? _3
  EXPECT_TRUE(op.inputs[2].optional);
  const TestVector& vector = op.tests.at(0);
  ASSERT_NE(named(vector.inputs, "_3"), nullptr);
  EXPECT_EQ(named(vector.inputs, "_3")->json, "null");
  ASSERT_NE(named(vector.attrs, "_4"), nullptr);
  EXPECT_EQ(named(vector.attrs, "_4")->json, "null");
}

TEST(OpYaml, NullForAnArgumentThatIsNotOptionalIsRefusedWhereItIs)
{
  expect_refused(one_vector("pyg::f(Tensor _0, int _1) -> Tensor", "{_0: null, _1: 1}", "{output: [1]}"),
                 "opkit.yaml:3:18: input '_0' is null (None), but the op's argument '_0' is Tensor, not optional: "
                 "only `Tensor? _0` would take None");
  expect_refused(one_vector("pyg::f(Tensor _0, int _1=3) -> Tensor", "{_0: [1], _1: ~}", "{output: [1]}"),
                 "opkit.yaml:3:27: input '_1' is null (None), but the op's argument '_1' is int, not optional");
}

TEST(OpYaml, OptionalsAndDefaultsMayBeLeftOut)
{
  OpSpec op = torch_op("schema: \"pyg::f(Tensor _0, Tensor? _1, int? _2, int dim=-1, Tensor? out=None) -> Tensor\"\n"
                       "tests:\n"
                       "  - inputs: {_0: [1]}\n"
                       "    outputs: {output: [1]}\n");
  const TestVector& vector = op.tests.at(0);
  EXPECT_EQ(vector.inputs.size(), 1u); // _1 and out left to the runner (None)
  EXPECT_TRUE(vector.attrs.empty());   // _2 (None) and dim (its default)
  ASSERT_EQ(op.attrs.size(), 2u);
  EXPECT_FALSE(op.attrs[0].default_value); // int? _2: None, passed by the runner
  EXPECT_EQ(op.attrs[1].default_value.value_or(""), "-1");
}

TEST(OpYaml, AMutatedArgumentMayBeAnOutputAndIsCheckedAfterTheCall)
{
  OpSpec op = torch_op("schema: \"pyg::fill_(Tensor(a!) out, Tensor src, int? n) -> ()\"\n"
                       "tests:\n"
                       "  - inputs: {out: [0, 0], src: [1, 2]}\n"
                       "    outputs: {out: [1, 2]}\n"
                       "  - inputs: {out: [0], src: [1]}\n");
  ASSERT_EQ(op.inputs.size(), 2u);
  EXPECT_TRUE(op.inputs[0].mutated);
  EXPECT_FALSE(op.inputs[1].mutated);
  EXPECT_TRUE(op.outputs.empty());
  ASSERT_EQ(op.tests.at(0).outputs.size(), 1u);
  EXPECT_EQ(op.tests[0].outputs[0].name, "out");
  EXPECT_EQ(op.tests[0].outputs[0].json, "[1,2]");
  EXPECT_TRUE(op.tests.at(1).outputs.empty()); // it must only run without an error

  // `-> Tensor(a!)`: the result and the argument written into, both by name.
  OpSpec both = torch_op("schema: \"pyg::add_out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)\"\n"
                         "tests:\n"
                         "  - inputs: {x: [1], out: [0]}\n"
                         "    outputs: {output: [2], out: [2]}\n");
  ASSERT_EQ(both.tests.at(0).outputs.size(), 2u);
  EXPECT_EQ(both.tests[0].outputs[0].name, "output");
  EXPECT_EQ(both.tests[0].outputs[1].name, "out");
}

TEST(OpYaml, AnOutputThatIsNeitherAResultNorAMutatedArgumentIsRefusedWhereItIs)
{
  expect_refused(one_vector("pyg::fill_(Tensor(a!) out, Tensor src) -> ()", "{out: [0], src: [1]}", "{src: [1]}"),
                 "opkit.yaml:4:15: 'src' is an argument the op does not write into: only a result or an argument "
                 "it writes into (`Tensor(a!)`) is an output (this op's: out)");
  expect_refused(one_vector("pyg::fill_(Tensor(a!) out, Tensor src) -> Tensor", "{out: [0], src: [1]}",
                            "{output: [1], result: [1]}"),
                 "opkit.yaml:4:28: the op has no output 'result' (it has: output, out)");
}
