#include "opkit/probe/python_vectors.hpp"

#include "opkit/project/op_yaml.hpp"
#include "opkit/project/yaml_util.hpp"

#include <gtest/gtest.h>

namespace {

opkit::Json
torch_vectors(const std::string& text)
{
  opkit::project::OpSpec op =
    opkit::project::parse_op(opkit::project::yaml::load(text, "opkit.yaml"), "opkit.yaml", "torch");
  return opkit::probe::vectors_json(op, "/p");
}

} // namespace

TEST(PythonVectors, TorchOptionalsWithoutADefaultLeftOutArePassedAsNoneAndNullsAreMarked)
{
  opkit::Json vectors =
    torch_vectors("schema: \"pyg::f(Tensor _0, Tensor? _1, int? _2, int? k=3, Tensor? out=None) -> Tensor\"\n"
                  "tests:\n"
                  "  - inputs: {_0: [1]}\n"
                  "    outputs: {output: [1]}\n"
                  "  - inputs: {_0: [1], _1: null, _2: 4, k: null}\n"
                  "    outputs: {output: [1]}\n");
  ASSERT_EQ(vectors.size(), 2u);
  // k has a default (3): left out it is the op's, never None; a Tensor?'s default is None.
  EXPECT_EQ(vectors[0]["pass_none"], opkit::Json::parse(R"(["_1", "out", "_2"])"));
  EXPECT_EQ(vectors[1]["pass_none"], opkit::Json::parse(R"(["out"])"));
  const opkit::Json& inputs = vectors[1]["inputs"];
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_FALSE(inputs[0].contains("none"));
  EXPECT_EQ(inputs[1]["name"], "_1");
  EXPECT_EQ(inputs[1]["none"], true);
  EXPECT_EQ(inputs[1]["kind"], "tensor");
  const opkit::Json& attrs = vectors[1]["attrs"];
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_FALSE(attrs[0].contains("none")); // _2: 4
  EXPECT_EQ(attrs[1]["name"], "k");
  EXPECT_EQ(attrs[1]["none"], true);
}

TEST(PythonVectors, AnOutputThatIsAnArgumentTheOpWritesIntoIsMarkedSo)
{
  opkit::Json vectors =
    torch_vectors("schema: \"pyg::add_out(Tensor x, Tensor[] xs, *, Tensor(a!) out) -> Tensor(a!)\"\n"
                  "tests:\n"
                  "  - inputs: {x: [1], xs: [[1], [2]], out: [0]}\n"
                  "    outputs: {output: [2], out: [2]}\n");
  const opkit::Json& vector = vectors.at(0);
  EXPECT_EQ(vector["inputs"][1]["kind"], "tensors");
  ASSERT_EQ(vector["outputs"].size(), 2u);
  EXPECT_EQ(vector["outputs"][0]["name"], "output"); // the result, first, in the schema's order
  EXPECT_FALSE(vector["outputs"][0].contains("argument"));
  EXPECT_EQ(vector["outputs"][1]["name"], "out");
  EXPECT_EQ(vector["outputs"][1]["argument"], true);
  EXPECT_EQ(vector["pass_none"], opkit::Json::array());
}
