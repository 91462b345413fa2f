#include "opkit/util/ci_annotations.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace opkit;

TEST(CiAnnotations, ReadsFileLineAndColumn)
{
  CiAnnotation a;
  ASSERT_TRUE(parse_located("opkit.yaml:3:7: unknown key 'libraires'", "", a));
  EXPECT_EQ(a.file, "opkit.yaml");
  EXPECT_EQ(a.line, 3);
  EXPECT_EQ(a.column, 7);
  EXPECT_EQ(a.message, "unknown key 'libraires'");
  ASSERT_TRUE(parse_located("src/zero_out.cc:12: error: x", "", a));
  EXPECT_EQ(a.line, 12);
  EXPECT_EQ(a.column, 0);
  EXPECT_EQ(a.message, "error: x");
  ASSERT_TRUE(parse_located("/ws/proj/src/a.cc:4:2: error: y", "/ws", a));
  EXPECT_EQ(a.file, "proj/src/a.cc");
  ASSERT_TRUE(parse_located("/usr/include/a.h:4:2: error: y", "/ws", a));
  EXPECT_EQ(a.file, "/usr/include/a.h"); // outside the workspace: as it is
}

TEST(CiAnnotations, LeavesLinesWithoutALocation)
{
  CiAnnotation a;
  EXPECT_FALSE(parse_located("libzero_out.so: undefined symbol: _ZN3foo", "", a));
  EXPECT_FALSE(parse_located("In file included from src/a.h:3,", "", a));
  EXPECT_FALSE(parse_located("                 from src/b.h:5:", "", a));
  EXPECT_FALSE(parse_located(":3:4: no file", "", a));
  EXPECT_FALSE(parse_located("tensorflow 2.10.1: missing", "", a));
}

TEST(CiAnnotations, ReadsNvccsFileAndLine)
{
  CiAnnotation a;
  ASSERT_TRUE(parse_located_nvcc("src/k.cu(12): error: identifier \"x\" is undefined", "", a));
  EXPECT_EQ(a.file, "src/k.cu");
  EXPECT_EQ(a.line, 12);
  EXPECT_EQ(a.column, 0);
  EXPECT_EQ(a.message, "error: identifier \"x\" is undefined");
  EXPECT_FALSE(parse_located_nvcc("f(x): error: y", "", a));
  EXPECT_FALSE(parse_located_nvcc("(12): error: y", "", a));
  EXPECT_FALSE(parse_located_nvcc("1 error detected in the compilation of \"k.cu\".", "", a));
}

TEST(CiAnnotations, CommandEscapesAsTheRunnerUnescapes)
{
  CiAnnotation a{"error", "dir,x/a:b.cc", 3, 4, "100% wrong\nsecond line"};
  EXPECT_EQ(github_command(a), "::error file=dir%2Cx/a%3Ab.cc,line=3,col=4::100%25 wrong%0Asecond line\n");
  a.column = 0;
  a.level = "warning";
  EXPECT_EQ(github_command(a), "::warning file=dir%2Cx/a%3Ab.cc,line=3::100%25 wrong%0Asecond line\n");
}

TEST(CiAnnotations, OnlyInAWorkflow)
{
  const std::string diagnostics = "src/a.cc:3:4: error: 'x' was not declared\n"
                                  "src/a.cc:3:4: note: suggested alternative\n"
                                  "src/a.cc:9:1: warning: unused\n"
                                  "src/b.cc:1:10: fatal error: y.h: No such file or directory\n"
                                  "src/k.cu(7): warning: variable \"n\" was declared but never referenced\n";
  unsetenv("GITHUB_WORKSPACE");
  setenv("GITHUB_ACTIONS", "false", 1);
  EXPECT_EQ(github_diagnostic_annotations(diagnostics), "");
  EXPECT_EQ(github_error_annotation("opkit.yaml:3:7: bad"), "");
  setenv("GITHUB_ACTIONS", "true", 1);
  EXPECT_EQ(github_diagnostic_annotations(diagnostics),
            "::error file=src/a.cc,line=3,col=4::'x' was not declared\n"
            "::warning file=src/a.cc,line=9,col=1::unused\n"
            "::error file=src/b.cc,line=1,col=10::y.h: No such file or directory\n"
            "::warning file=src/k.cu,line=7::variable \"n\" was declared but never referenced\n");
  EXPECT_EQ(github_error_annotation("opkit.yaml:3:7: bad"), "::error file=opkit.yaml,line=3,col=7::bad\n");
  EXPECT_EQ(github_error_annotation("no such SDK tensorflow-9"), "");
  unsetenv("GITHUB_ACTIONS");
}
