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
         Case{"", "invalid op name: the name is empty"},
         Case{"9lives", "'9lives': invalid op name: it must start with a letter"},
         Case{"_zero", "'_zero': invalid op name: it must start with a letter"},
         Case{"zero out", "'zero out': invalid op name: character ' ' is not allowed (use letters, digits, '_' or '-')"},
         Case{"zero.out", "'zero.out': invalid op name: character '.' is not allowed (use letters, digits, '_' or '-')"},
         Case{"zero__out", "'zero__out': invalid op name: separators must sit between words"},
         Case{"zero_", "'zero_': invalid op name: it must not end with a separator"},
         Case{"class", "'class': invalid op name: 'class' is a reserved word in C++ or Python"},
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
  EXPECT_TRUE(opkit::project::is_valid_arg_name("to_zero"));
  EXPECT_TRUE(opkit::project::is_valid_arg_name("T"));
  EXPECT_FALSE(opkit::project::is_valid_arg_name("1x"));
}
