#include "opkit/check/target.hpp"

#include <gtest/gtest.h>

// A Python module's file says the CPython it is for: its process is that interpreter.
TEST(CheckTarget, AModulesFileNameSaysItsPython)
{
  using opkit::check::python_of_module_file;
  EXPECT_EQ(python_of_module_file("/b/torch-2.8.0-cuda/_C.cpython-311-x86_64-linux-gnu.so"), "3.11");
  EXPECT_EQ(python_of_module_file("rowkit_cpp.cpython-39-x86_64-linux-gnu.so"), "3.9");
  EXPECT_EQ(python_of_module_file("_segment.so"), "");
  EXPECT_EQ(python_of_module_file("x.cpython-3-x86_64.so"), "");
  EXPECT_EQ(python_of_module_file("x.cpython-311"), "");
  EXPECT_EQ(python_of_module_file("/a.cpython-311-x/libz.so"), "") << "the folder's name is not the file's";
}

// The interpreter asked for, not the wheel tag's; none for a Python opkit has no symbols of.
TEST(CheckTarget, ThePythonInterpreterIsTheOneAskedFor)
{
  opkit::sdk::Sdk sdk;
  sdk.wheel_tag = "cp310-cp310-manylinux1_x86_64";
  ASSERT_TRUE(opkit::check::python_interpreter(sdk).has_value());
  EXPECT_EQ(opkit::check::python_interpreter(sdk)->soname, "python3.10 (the interpreter)");
  EXPECT_EQ(opkit::check::python_interpreter(sdk, "3.11")->soname, "python3.11 (the interpreter)");
  EXPECT_FALSE(opkit::check::python_interpreter(sdk, "3.99").has_value());
}
