#include "opkit/project/names.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

using opkit::project::derive_names;

TEST(Names, DerivesSnakeAndCamelFromAnySpelling)
{
  for (const char* name : {"zero_out", "zero-out", "ZeroOut", "zeroOut"}) {
    EXPECT_EQ(derive_names(name).snake, "zero_out") << name;
    EXPECT_EQ(derive_names(name).camel, "ZeroOut") << name;
  }
  EXPECT_EQ(derive_names("fm2_layer").camel, "Fm2Layer");
  EXPECT_EQ(derive_names("x").snake, "x");
}

TEST(Names, InvalidNamesSayWhy)
{
  struct Case
  {
    const char* name;
    const char* message;
  };
  for (const Case& c : {
         Case{"", "invalid project name: the name is empty"},
         Case{"9lives", "'9lives': invalid project name: it must start with a letter"},
         Case{"_zero", "'_zero': invalid project name: it must start with a letter"},
         Case{"zero out",
              "'zero out': invalid project name: character ' ' is not allowed (use letters, digits, '_' or '-')"},
         Case{"zero.out",
              "'zero.out': invalid project name: character '.' is not allowed (use letters, digits, '_' or '-')"},
         Case{"zero__out", "'zero__out': invalid project name: separators must sit between words"},
         Case{"zero_", "'zero_': invalid project name: it must not end with a separator"},
         Case{"class", "'class': invalid project name: 'class' is a reserved word in C++ or Python"},
         Case{"int", "'int': invalid project name: 'int' is a reserved word in C++ or Python"},
         Case{"pass", "'pass': invalid project name: 'pass' is a reserved word in C++ or Python"},
         Case{"None", "'None': invalid project name: 'none' is a reserved word in C++ or Python"},
         Case{"co_await", "'co_await': invalid project name: 'co_await' is a reserved word in C++ or Python"},
         // TensorFlow makes no Python function for these; errno is a C macro.
         Case{"print", "'print': invalid project name: 'print' is a reserved word in C++ or Python"},
         Case{"Exec", "'Exec': invalid project name: 'exec' is a reserved word in C++ or Python"},
         Case{"errno", "'errno': invalid project name: 'errno' is a reserved word in C++ or Python"},
       }) {
    try {
      derive_names(c.name);
      ADD_FAILURE() << "accepted " << c.name;
    } catch (const opkit::Error& e) {
      EXPECT_EQ(e.code(), opkit::ExitCode::usage);
      EXPECT_STREQ(e.what(), c.message);
    }
  }
}

TEST(Names, OpAndArgNameRules)
{
  EXPECT_TRUE(opkit::project::is_valid_op_name("ZeroOut"));
  EXPECT_FALSE(opkit::project::is_valid_op_name("zeroOut"));
  EXPECT_FALSE(opkit::project::is_valid_op_name("Zero_Out"));
  // TensorFlow's grammar: namespaces separated by '>'.
  EXPECT_TRUE(opkit::project::is_valid_op_name("Addons>Resampler"));
  EXPECT_TRUE(opkit::project::is_valid_op_name("Vendor>Sub>OpName"));
  EXPECT_FALSE(opkit::project::is_valid_op_name("Vendor>"));
  EXPECT_FALSE(opkit::project::is_valid_op_name("vendor>Op"));
  EXPECT_FALSE(opkit::project::is_valid_op_name("Vendor::Op"));
  EXPECT_TRUE(opkit::project::is_valid_arg_name("to_zero"));
  EXPECT_TRUE(opkit::project::is_valid_arg_name("T"));
  EXPECT_FALSE(opkit::project::is_valid_arg_name("1x"));
}

// TensorFlow's GenerateLowerCaseOpName, checked against what TF 1.12 and 2.10
// generated for these names (GetPythonWrappers on an OpList of them).
TEST(Names, TfPythonNameIsTensorFlowsOwn)
{
  using opkit::project::tf_python_name;
  EXPECT_EQ(tf_python_name("ZeroOut"), "zero_out");
  EXPECT_EQ(tf_python_name("Vendor>Thing"), "vendor_thing");
  EXPECT_EQ(tf_python_name("Vendor>ThingOne"), "vendor_thing_one");
  EXPECT_EQ(tf_python_name("Conv2D"), "conv2d");
  EXPECT_EQ(tf_python_name("MatMulV2"), "mat_mul_v2");
  EXPECT_EQ(tf_python_name("HTTPGet"), "http_get");
  EXPECT_EQ(tf_python_name("None"), "none");
}

TEST(Names, OpNamesWhosePythonFunctionBreaksAreRefused)
{
  using opkit::project::op_name_problem;
  // Python 3 keywords: TensorFlow writes `def pass(...)`, a SyntaxError for the whole module.
  for (const char* name : {"Pass", "Class", "Async", "Await", "Nonlocal", "Yield", "Lambda"}) {
    std::string problem = op_name_problem(name);
    EXPECT_NE(problem.find("a Python keyword"), std::string::npos) << name << ": " << problem;
  }
  // On TensorFlow's own reserved list: skipped, so the module has no function for the op.
  EXPECT_EQ(op_name_problem("Print"), "TensorFlow makes no Python function for it ('print' is on its reserved list)");
  EXPECT_NE(op_name_problem("Exec"), "");
  // Builtins TensorFlow generates as they are (int, list), and None/True, which become none/true: fine.
  for (const char* name : {"Int", "List", "None", "True", "ZeroOut", "Vendor>Pass", "Vendor>Import", "PassThrough"}) {
    EXPECT_EQ(op_name_problem(name), "") << name;
  }
}
