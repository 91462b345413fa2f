#include "opkit/project/adopt_rules.hpp"

#include <gtest/gtest.h>

using namespace opkit;

TEST(ProjectAdoptRules, TorchCppTypesMapSpellingsTemplatesAndRefuseTheRest)
{
  const project::TorchCppTypes& types = project::torch_cpp_types();
  EXPECT_EQ(types.schema_type("at::Tensor"), "Tensor");
  EXPECT_EQ(types.schema_type("::torch::Tensor"), "Tensor");
  EXPECT_EQ(types.schema_type("int64_t"), "int");
  EXPECT_EQ(types.schema_type("double"), "float");
  EXPECT_EQ(types.schema_type("c10::optional<at::Tensor>"), "Tensor?");
  EXPECT_EQ(types.schema_type("std::vector<c10::optional<at::Tensor>>"), "Tensor?[]");
  EXPECT_EQ(types.schema_type("c10::optional<std::vector<double>>"), "float[]?");
  EXPECT_EQ(types.schema_type("c10::optional<at::IntArrayRef>"), "int[]?");
  // Not schema types: torch's inference refuses int and float, a list of lists, an optional optional.
  EXPECT_EQ(types.schema_type("int"), "");
  EXPECT_EQ(types.schema_type("float"), "");
  EXPECT_EQ(types.schema_type("std::vector<std::vector<int64_t>>"), "");
  EXPECT_EQ(types.schema_type("c10::optional<c10::optional<int64_t>>"), "");
  EXPECT_EQ(types.schema_type("std::vector<at::Tensor,MyAllocator>"), "");
  EXPECT_EQ(types.schema_type("std::tuple<at::Tensor>"), "") << "a tuple is a return's business";
  EXPECT_EQ(types.tuple, (std::vector<std::string>{"std::tuple"}));
}

TEST(ProjectAdoptRules, KnowsTensorFlowsCppTypes)
{
  EXPECT_EQ(project::adopt_rules().dtype_of("::tensorflow::int32"), "int32");
  EXPECT_EQ(project::adopt_rules().dtype_of("MyType"), "");
}
