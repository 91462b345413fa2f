#include "opkit/probe/framework_venv.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/project/version.hpp"

#include <gtest/gtest.h>

using opkit::probe::venv_recipe;

namespace {

opkit::sdk::Sdk
sdk_of(const std::string& framework, const std::string& version, const std::string& wheel_tag)
{
  opkit::sdk::Sdk sdk;
  sdk.framework = framework;
  sdk.version = *opkit::project::parse_version(version);
  sdk.wheel_tag = wheel_tag;
  return sdk;
}

opkit::project::FrameworkFlags
flags_of(const opkit::sdk::Sdk& sdk)
{
  return opkit::project::FrameworkTable::get(sdk.framework).flags_for(sdk.version);
}

} // namespace

TEST(VenvRecipe, TheTableOverridesWhereItHasARecipe)
{
  // 1.12.0 needs an old pip and pins: the table's, whatever the wheel says.
  auto sdk = sdk_of("tensorflow", "1.12.0", "cp36-cp36m-manylinux1_x86_64");
  auto chosen = venv_recipe(sdk, flags_of(sdk));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->recipe.python, "3.6");
  EXPECT_EQ(chosen->recipe.pip, "pip==21.3.1");
  EXPECT_EQ(chosen->origin, "the table, range >=1.12");
}

TEST(VenvRecipe, ElseThePythonOfTheWheelTheSdkCameFrom)
{
  // TF 2.21.0's range has no python_env: the wheel's cp311 tag decides, no pins.
  auto sdk = sdk_of("tensorflow", "2.21.0", "cp311-cp311-manylinux_2_27_x86_64");
  auto chosen = venv_recipe(sdk, flags_of(sdk));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->recipe.python, "3.11");
  EXPECT_TRUE(chosen->recipe.pins.empty());
  EXPECT_TRUE(chosen->recipe.pip.empty());
  EXPECT_EQ(chosen->origin, "the wheel's tag cp311-cp311-manylinux_2_27_x86_64");

  auto torch = sdk_of("torch", "2.15.0", "cp313-cp313-manylinux_2_28_x86_64");
  auto flags = flags_of(torch);
  flags.python_env.reset(); // as a range without a recipe
  EXPECT_EQ(venv_recipe(torch, flags)->recipe.python, "3.13");
}

TEST(VenvRecipe, NothingWhereNeitherSays)
{
  auto folder = sdk_of("tensorflow", "2.21.0", ""); // imported from a folder: no tag
  EXPECT_FALSE(venv_recipe(folder, flags_of(folder)).has_value());
  auto pure = sdk_of("tensorflow", "2.21.0", "py3-none-any");
  EXPECT_FALSE(venv_recipe(pure, flags_of(pure)).has_value());
  auto odd = sdk_of("tensorflow", "2.21.0", "cp3x-cp3x-manylinux_2_27_x86_64");
  EXPECT_FALSE(venv_recipe(odd, flags_of(odd)).has_value());
}
