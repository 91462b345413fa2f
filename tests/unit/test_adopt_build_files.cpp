#include "opkit/adopt/adopt.hpp"
#include "opkit/adopt/build_files.hpp"
#include "opkit/adopt/call_reader.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;
using adopt::BuildDescription;
using adopt::DeclaredLibrary;
using adopt::TreeText;
using Strings = std::vector<std::string>;

namespace {

BuildDescription
read(const std::vector<TreeText>& build_files, Strings files, const std::vector<TreeText>& python = {})
{
  std::sort(files.begin(), files.end());
  return adopt::read_build_description(build_files, python, files);
}

const DeclaredLibrary*
find(const BuildDescription& description, const std::string& output)
{
  auto found = std::find_if(description.libraries.begin(), description.libraries.end(),
                            [&](const DeclaredLibrary& library) { return library.output == output; });
  return found == description.libraries.end() ? nullptr : &*found;
}

bool
has_note(const BuildDescription& description, const std::string& part)
{
  return std::any_of(description.notes.begin(), description.notes.end(),
                     [&](const std::string& note) { return note.find(part) != std::string::npos; });
}

Strings
sorted(Strings list)
{
  std::sort(list.begin(), list.end());
  return list;
}

} // namespace

TEST(AdoptBuildFiles, ReadsBazelRulesGlobsConcatenationAndLocalDeps)
{
  const char* const build = R"(
load("//:defs.bzl", "tf_custom_op_library")
COMMON = ["//ops/common:util"]
tf_custom_op_library(
    name = "_text_ops.so",
    srcs = ["text_ops.cc"] + glob(["**/text_*.cc", "kernels/**/*.cc"], exclude = ["*_test.cc", "*.cu.cc"]),
    gpu_srcs = ["text_kernels.cu.cc", "text.h"],
    deps = COMMON + [":tables", "@org_tensorflow//tensorflow/core:framework"],
)
cc_library(name = "tables", srcs = ["tables.cc"], hdrs = ["tables.h"], deps = [":tables"])
cc_binary(name = "libsketch.so", srcs = ["sketch.cc"], linkshared = True)
cc_binary(name = "tool", srcs = ["tool.cc"])
cc_binary(name = "_notshared.so", srcs = ["sketch.cc"], linkshared = 0)
)";
  const char* const common = "cc_library(\n  name = 'util',\n  srcs = ['util.cc'],\n  hdrs = ['util.h'],\n)\n";
  Strings files = {"ops/BUILD",
                   "ops/text_ops.cc",
                   "ops/text_kernels.cc",
                   "ops/text_kernels_test.cc",
                   "ops/text_kernels.cu.cc",
                   "ops/text.h",
                   "ops/kernels/a/deep.cc",
                   "ops/sub/BUILD",
                   "ops/sub/text_other.cc",
                   "ops/tables.cc",
                   "ops/tables.h",
                   "ops/sketch.cc",
                   "ops/tool.cc",
                   "ops/common/BUILD",
                   "ops/common/util.cc",
                   "ops/common/util.h"};
  BuildDescription description =
    read({{"ops/BUILD", build}, {"ops/common/BUILD", common}, {"ops/sub/BUILD", ""}}, files);
  ASSERT_EQ(description.libraries.size(), 2u);
  const DeclaredLibrary* text = find(description, "_text_ops.so");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->rule, "tf_custom_op_library");
  EXPECT_EQ(text->origin(), "ops/BUILD:4 tf_custom_op_library \"_text_ops.so\"");
  // glob: the exclude applies, the kernels/** pattern crosses folders, not into ops/sub (its own package).
  EXPECT_EQ(sorted(text->sources),
            sorted({"ops/text_ops.cc", "ops/text_kernels.cc", "ops/kernels/a/deep.cc", "ops/common/util.cc",
                    "ops/common/util.h", "ops/tables.cc", "ops/tables.h"}));
  EXPECT_EQ(text->gpu_sources, (Strings{"ops/text_kernels.cu.cc", "ops/text.h"}));
  const DeclaredLibrary* sketch = find(description, "libsketch.so");
  ASSERT_NE(sketch, nullptr);
  EXPECT_EQ(sketch->rule, "cc_binary");
  EXPECT_EQ(sketch->sources, (Strings{"ops/sketch.cc"}));
  EXPECT_EQ(find(description, "_notshared.so"), nullptr);
}

TEST(AdoptBuildFiles, NotesWhatItCannotReadAndGoesOn)
{
  const char* const build = R"(
tf_custom_op_library(name = "_a_ops.so", srcs = ["a.cc", "missing.cc"] + select({"//c": ["b.cc"]}))
tf_custom_op_library(name = NAME, srcs = ["a.cc"])
tf_custom_op_library(name = "not_a_library", srcs = ["a.cc"])
tf_custom_op_library(name = "_escape.so", srcs = ["../../etc/passwd", "/abs.cc"])
)";
  BuildDescription description = read({{"x/BUILD", build}}, {"x/BUILD", "x/a.cc", "x/b.cc"});
  ASSERT_EQ(description.libraries.size(), 2u);
  const DeclaredLibrary* a = find(description, "_a_ops.so");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->sources, (Strings{"x/a.cc"})) << "select() is left out, the rest of the sum kept";
  EXPECT_TRUE(has_note(description, "x/BUILD:2: \"missing.cc\" is not a file of the tree"));
  EXPECT_TRUE(has_note(description, "x/BUILD:2: srcs of \"_a_ops.so\" is not a list of names opkit reads"));
  EXPECT_TRUE(has_note(description, "x/BUILD:3: tf_custom_op_library has no plain string name"));
  EXPECT_TRUE(has_note(description, "\"not_a_library\" does not make a *.so file"));
  EXPECT_TRUE(has_note(description, "\"../../etc/passwd\" is not a file of the tree"));
  EXPECT_TRUE(has_note(description, "\"/abs.cc\" is not a file of the tree"));
  EXPECT_TRUE(find(description, "_escape.so")->sources.empty());

  // A missing file is a note; the rest of the list is kept.
  description =
    read({{"x/BUILD", "tf_custom_op_library(name = '_m.so', srcs = ['a.cc', 'missing.cc'])"}}, {"x/BUILD", "x/a.cc"});
  EXPECT_EQ(description.libraries.at(0).sources, (Strings{"x/a.cc"}));
  EXPECT_TRUE(has_note(description, "x/BUILD:1: \"missing.cc\" is not a file of the tree"));
}

TEST(AdoptBuildFiles, MalformedAndHostileFilesAreNotes)
{
  std::string binary = "tf_custom_op_library(name = \"_b.so\", srcs = [\"a.cc\"])";
  binary += std::string(1, '\0') + "\x01\xff";
  std::string huge(1100000, '#');
  std::string deep = "tf_custom_op_library(name = \"_deep.so\", srcs = " + std::string(100000, '[') + "\"a.cc\"";
  std::string unterminated = "tf_custom_op_library(name = \"_u.so\", srcs = [\"a.cc\", \"b.cc";
  BuildDescription description = read({{"bin/BUILD", binary},
                                       {"big/BUILD", huge},
                                       {"deep/BUILD", deep},
                                       {"u/BUILD", unterminated},
                                       {"c/CMakeLists.txt", "add_library(x SHARED \"a.cc"},
                                       {"m/Makefile", "x.so: $(A\nA = $(A) $(A)\n"}},
                                      {"bin/a.cc", "deep/a.cc", "u/a.cc", "c/a.cc"});
  EXPECT_TRUE(has_note(description, "bin/BUILD: not text (NUL bytes)"));
  EXPECT_TRUE(has_note(description, "big/BUILD: larger than opkit reads"));
  EXPECT_EQ(find(description, "_b.so"), nullptr);
  ASSERT_NE(find(description, "_deep.so"), nullptr);
  EXPECT_TRUE(find(description, "_deep.so")->sources.empty());
  ASSERT_NE(find(description, "_u.so"), nullptr);
  EXPECT_EQ(find(description, "_u.so")->sources, (Strings{"u/a.cc"}));
  ASSERT_NE(find(description, "libx.so"), nullptr);
}

TEST(AdoptBuildFiles, ReadsSetupPyExtensions)
{
  const char* const setup = R"(
from setuptools import setup, Extension
import os
SOURCES = ["src/hash_ops.cc", "src/hash_kernels.cc"]
setup(
    name="hashing",
    ext_modules=[
        Extension("hashing._hash_ops", sources=SOURCES, include_dirs=[os.getcwd()]),
        Extension(name="hashing.lib.native", sources=[os.path.join("src", "native.cc")]),
    ],
)
)";
  BuildDescription description =
    read({}, {"pkg/setup.py", "pkg/src/hash_ops.cc", "pkg/src/hash_kernels.cc"}, {{"pkg/setup.py", setup}});
  ASSERT_EQ(description.libraries.size(), 2u);
  const DeclaredLibrary* hash = find(description, "_hash_ops.so");
  ASSERT_NE(hash, nullptr);
  EXPECT_EQ(hash->origin(), "pkg/setup.py:8 Extension \"_hash_ops.so\"");
  EXPECT_EQ(hash->sources, (Strings{"pkg/src/hash_ops.cc", "pkg/src/hash_kernels.cc"}));
  ASSERT_NE(find(description, "native.so"), nullptr);
  EXPECT_EQ(find(description, "native.so")->python_module, "hashing.lib.native");
  EXPECT_TRUE(find(description, "native.so")->sources.empty()); // os.path.join is read: a file the tree lacks
  EXPECT_TRUE(has_note(description, "pkg/setup.py:9: \"src/native.cc\" is not a file of the tree (left out)"));
}

TEST(AdoptBuildFiles, ReadsCMakeSharedLibrariesWithTheirNames)
{
  const char* const cmake = R"(
cmake_minimum_required(VERSION 3.16)
project(ops CXX)
set(KERNELS kernels/a.cc kernels/b.cc)  # two kernels
file(GLOB OPS_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ops/*.cc)
add_library(zero_out SHARED ${OPS_SRCS} ${KERNELS})
set_target_properties(zero_out PROPERTIES PREFIX "" OUTPUT_NAME "_zero_out_ops")
add_library(helpers STATIC util.cc)
add_library(time_two MODULE ops/time_two.cc)
target_sources(time_two PRIVATE "kernels/time_two_kernels.cc")
#[[ add_library(commented SHARED x.cc) ]]
)";
  BuildDescription description =
    read({{"cc/CMakeLists.txt", cmake}}, {"cc/CMakeLists.txt", "cc/kernels/a.cc", "cc/kernels/b.cc", "cc/ops/x_ops.cc",
                                          "cc/ops/time_two.cc", "cc/kernels/time_two_kernels.cc", "cc/util.cc"});
  ASSERT_EQ(description.libraries.size(), 2u);
  const DeclaredLibrary* zero_out = find(description, "_zero_out_ops.so");
  ASSERT_NE(zero_out, nullptr);
  EXPECT_EQ(zero_out->origin(), "cc/CMakeLists.txt:6 add_library \"_zero_out_ops.so\"");
  EXPECT_EQ(sorted(zero_out->sources),
            sorted({"cc/ops/time_two.cc", "cc/ops/x_ops.cc", "cc/kernels/a.cc", "cc/kernels/b.cc"}));
  const DeclaredLibrary* time_two = find(description, "libtime_two.so");
  ASSERT_NE(time_two, nullptr);
  EXPECT_EQ(time_two->sources, (Strings{"cc/ops/time_two.cc", "cc/kernels/time_two_kernels.cc"}));
}

TEST(AdoptBuildFiles, ReadsMakefileRulesMakingSharedObjects)
{
  const char* const makefile = "CXX := g++\n"
                               "ZERO_OUT_SRCS = $(wildcard zero_out/cc/kernels/*.cc) \\\n"
                               "    $(wildcard zero_out/cc/ops/*.cc)\n"
                               "ZERO_OUT_LIB = zero_out/python/ops/_zero_out_ops.so\n"
                               "TIME_OBJS = time_two/ops.o time_two/kernels.o\n"
                               "\n"
                               "all: $(ZERO_OUT_LIB) time_two.so  # both\n"
                               "$(ZERO_OUT_LIB): $(ZERO_OUT_SRCS)\n"
                               "\t$(CXX) -shared $^ -o $@\n"
                               "time_two.so: $(TIME_OBJS) time_two/util.h\n"
                               "\t$(CXX) -shared $^ -o $@\n"
                               "%.so: %.cc\n";
  BuildDescription description =
    read({{"Makefile", makefile}}, {"Makefile", "zero_out/cc/kernels/z.cc", "zero_out/cc/ops/z_ops.cc",
                                    "time_two/ops.cc", "time_two/kernels.cu.cc", "time_two/util.h"});
  ASSERT_EQ(description.libraries.size(), 2u);
  const DeclaredLibrary* zero_out = find(description, "_zero_out_ops.so");
  ASSERT_NE(zero_out, nullptr);
  EXPECT_EQ(zero_out->origin(), "Makefile:8 make rule \"_zero_out_ops.so\"");
  EXPECT_EQ(zero_out->sources, (Strings{"zero_out/cc/kernels/z.cc", "zero_out/cc/ops/z_ops.cc"}));
  const DeclaredLibrary* time_two = find(description, "time_two.so");
  ASSERT_NE(time_two, nullptr);
  EXPECT_EQ(time_two->sources, (Strings{"time_two/ops.cc", "time_two/kernels.cu.cc", "time_two/util.h"}));
}

TEST(AdoptBuildFiles, ReadsTheNamesPythonLoadersLoad)
{
  const char* const loader = R"(
import os
import tensorflow as tf
from tensorflow.python.platform import resource_loader
_ops = tf.load_op_library(
    resource_loader.get_path_to_datafile("_text_ops.so"))
_other = tf.load_op_library(os.path.join(os.path.dirname(__file__), 'lib' '_other.so'))
_lazy = LazySO("custom_ops/image/_image_ops.so")
NOT_LOADED = "_mentioned.so"
def f():
    return load_op_library(r"_inner_ops.so")  # in a function
_f = tf.load_op_library(f"{os.path.dirname(__file__)}/_fstring_ops.so")
load = tf.load_op_library
_through = load("_through_ops.so")
)";
  BuildDescription description = read({}, {"py/ops.py"}, {{"py/ops.py", loader}});
  Strings names;
  for (const adopt::LoadedName& loaded : description.loaded) {
    names.push_back(loaded.output + "@" + loaded.place.str());
  }
  EXPECT_EQ(names,
            (Strings{"_text_ops.so@py/ops.py:6", "lib_other.so@py/ops.py:7", "_image_ops.so@py/ops.py:8",
                     "_inner_ops.so@py/ops.py:11", "_fstring_ops.so@py/ops.py:12", "_through_ops.so@py/ops.py:14"}));
}

TEST(AdoptBuildFiles, CallReaderEvaluatesWhatItCanAndStaysBounded)
{
  adopt::ReadCalls read =
    adopt::read_calls("A = ['x'] + ['y']\nf(A + ['z'], k='a' \"b\", n=1, *rest)\nf([i for i in A])\n"
                      "f({'a': 1})\nf(\"\"\"multi\nline\"\"\")\n",
                      {"f"}, "BUILD");
  ASSERT_EQ(read.calls.size(), 4u);
  const adopt::CallValue& first = read.calls[0];
  ASSERT_EQ(first.items.size(), 1u);
  ASSERT_EQ(first.items[0].kind, adopt::CallValue::Kind::list);
  ASSERT_EQ(first.items[0].items.size(), 3u);
  EXPECT_EQ(first.items[0].items[2].text, "z");
  EXPECT_EQ(first.keyword("k")->text, "ab");
  EXPECT_EQ(first.keyword("n")->text, "1");
  EXPECT_EQ(read.calls[1].items.at(0).kind, adopt::CallValue::Kind::list); // a comprehension: its items unread
  EXPECT_EQ(read.calls[2].items.at(0).kind, adopt::CallValue::Kind::unknown);
  EXPECT_EQ(read.calls[3].items.at(0).text, "multi\nline");
  EXPECT_EQ(read.calls[3].line, 5);

  std::string deep = "f(" + std::string(200000, '(') + std::string(200000, ')') + ")\nf('after')\n";
  read = adopt::read_calls(deep, {"f"}, "BUILD");
  ASSERT_EQ(read.calls.size(), 2u);
  EXPECT_EQ(read.calls[1].items.at(0).text, "after");
}

TEST(AdoptBuildFiles, AListDoubledAgainAndAgainIsOneErrorNamingItsLine)
{
  std::string build = "A = ['a.cc']\n";
  for (int i = 0; i < 200; ++i) {
    build += "A = A + A\n";
  }
  build += "cc_binary(name = 'x.so', srcs = A, linkshared = 1)\n";
  try {
    read({{"BUILD", build}}, {"a.cc"});
    FAIL() << "a list of 2^200 items was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    // Each doubling copies the list twice and joins the copies (4 x 2^n values
    // made): past 200 000 at the 16th, on line 17, where the error points.
    EXPECT_EQ(std::string(e.what()).rfind("BUILD:17: the lists here expand to more than 200000 values", 0), 0U)
      << e.what();
  }
  std::string nested = "B = ['a.cc', 'a.cc', 'a.cc', 'a.cc']\n";
  for (int i = 0; i < 40; ++i) { // growth by nesting, not by `+`
    nested += "B = [B, B, B, B]\n";
  }
  EXPECT_THROW(adopt::read_calls(nested, {"f"}, "setup.py"), Error);
}

TEST(AdoptBuildFiles, ALibraryOfTooManySourcesIsOneError)
{
  Strings files;
  for (int i = 0; i < 10001; ++i) {
    files.push_back("ops/f" + std::to_string(100000 + i) + ".cc");
  }
  try {
    read({{"ops/BUILD", "cc_binary(name = 'x.so', linkshared = 1,\n  srcs = glob(['**/*.cc']))\n"}}, files);
    FAIL() << "a library of 10001 sources was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("ops/BUILD:2: a library of more than 10000 sources", 0), 0U) << e.what();
  }
}

TEST(AdoptBuildFiles, GlobsAndExpansionsStopAtTheirBudget)
{
  Strings files;
  for (int i = 0; i < 20000; ++i) {
    files.push_back("f" + std::to_string(i) + ".cc");
  }
  std::string patterns;
  for (int i = 0; i < 2000; ++i) {
    patterns += "'f" + std::to_string(i) + ".cc', ";
  }
  std::string build = "tf_custom_op_library(name = '_g.so', srcs = glob([" + patterns + "]))\n";
  BuildDescription description = read({{"BUILD", build}}, files);
  ASSERT_NE(find(description, "_g.so"), nullptr);
  EXPECT_LT(find(description, "_g.so")->sources.size(), 2000u);
  EXPECT_TRUE(has_note(description, "more globs or variable expansions than opkit does"));

  std::string makefile = "A := " + std::string(60000, 'a') + "\n";
  for (int i = 0; i < 2000; ++i) {
    makefile += "x" + std::to_string(i) + ".so: $(A)\n";
  }
  description = read({{"Makefile", makefile}}, {"Makefile"});
  EXPECT_EQ(description.libraries.size(), 2000u);
  EXPECT_TRUE(has_note(description, "more globs or variable expansions than opkit does"));
}

TEST(AdoptBuildFiles, ReadsTheCompilerCallsOfACompileScript)
{
  // A research repository's script: nvcc writes an object, g++ links it with
  // the op source into the library the loader names; quoting, $(...) with a
  // `;` inside, continuations, comments and a benchmark's own g++ call.
  std::string script =
    "#/bin/bash\n"
    "CUDA_ROOT=/usr/local/cuda-10.0\n"
    "TF_INC=$(python -c 'import tensorflow as tf; print(tf.sysconfig.get_include())')\n"
    "$CUDA_ROOT/bin/nvcc tf_sampling_g.cu -o tf_sampling_g.cu.o -c -O2 -DGOOGLE_CUDA=1 -x cu -Xcompiler -fPIC\n"
    "# TF1.4\n"
    "g++ -std=c++11 tf_sampling.cpp tf_sampling_g.cu.o -o tf_sampling_so.so -shared -fPIC \\\n"
    "  -I \"$TF_INC\" -I$TF_INC/external/nsync/public -lcudart -L $CUDA_ROOT/lib64/ -O2 -D_GLIBCXX_USE_CXX11_ABI=0\n"
    "g++ sampling_bench.cpp -o sampling_bench && ./sampling_bench # not a library\n";
  BuildDescription description = read({{"tf_ops/sampling/tf_sampling_compile.sh", script}},
                                      {"tf_ops/sampling/tf_sampling.cpp", "tf_ops/sampling/tf_sampling_g.cu",
                                       "tf_ops/sampling/sampling_bench.cpp", "tf_ops/sampling/tf_sampling_compile.sh"});
  ASSERT_EQ(description.libraries.size(), 1U);
  const DeclaredLibrary& library = description.libraries[0];
  EXPECT_EQ(library.output, "tf_sampling_so.so");
  EXPECT_EQ(library.sources, (Strings{"tf_ops/sampling/tf_sampling.cpp"}));
  EXPECT_EQ(library.gpu_sources, (Strings{"tf_ops/sampling/tf_sampling_g.cu"}));
  EXPECT_EQ(library.origin(), "tf_ops/sampling/tf_sampling_compile.sh:6 g++ call \"tf_sampling_so.so\"");
  EXPECT_TRUE(description.notes.empty()) << description.notes.front();
  EXPECT_TRUE(adopt::is_build_file("tf_ops/sampling/tf_sampling_compile.sh"));
  EXPECT_FALSE(adopt::is_build_file("tf_ops/sampling/run_tests.sh"));
}

TEST(AdoptBuildFiles, WhatOnlyCudaBuildsAddIsAGpuSourceAndAnUnreadDepIsANote)
{
  // The official custom-op example's shape: the kernel's .cu.cc in a
  // cc_library that the library's deps name behind if_cuda_is_configured.
  const char* const build = R"(
cc_library(
    name = "zero_out_ops_gpu",
    srcs = ["cuda_kernel.cu.cc", "cuda_kernel.h"],
    copts = if_cuda_is_configured(["-DGOOGLE_CUDA=1", "-x cuda"]),
)
cc_binary(
    name = "_zero_out_ops.so",
    srcs = ["zero_out_kernels.cc", "zero_out_ops.cc"] + if_cuda(["zero_out_gpu_glue.cc"]),
    linkshared = 1,
    deps = [":base"] + if_cuda_is_configured([":zero_out_ops_gpu", "@local_config_cuda//cuda:cuda_headers"])
        + [select({":debug": [":debug_helpers"], "//conditions:default": []})],
)
cc_library(name = "base", srcs = ["base.cc"])
)";
  Strings files = {"zero_out/BUILD",
                   "zero_out/cuda_kernel.cu.cc",
                   "zero_out/cuda_kernel.h",
                   "zero_out/base.cc",
                   "zero_out/zero_out_kernels.cc",
                   "zero_out/zero_out_ops.cc",
                   "zero_out/zero_out_gpu_glue.cc"};
  BuildDescription description = read({{"zero_out/BUILD", build}}, files);
  const DeclaredLibrary* library = find(description, "_zero_out_ops.so");
  ASSERT_NE(library, nullptr);
  EXPECT_EQ(sorted(library->sources),
            sorted({"zero_out/zero_out_kernels.cc", "zero_out/zero_out_ops.cc", "zero_out/base.cc"}));
  EXPECT_EQ(sorted(library->gpu_sources),
            sorted({"zero_out/zero_out_gpu_glue.cc", "zero_out/cuda_kernel.cu.cc", "zero_out/cuda_kernel.h"}));
  EXPECT_TRUE(has_note(description, "deps of \"_zero_out_ops.so\" is not a list of names opkit reads"));
}

TEST(AdoptBuildFiles, AMakefilesRecipeCallingTheCompilerIsReadAsAScriptIs)
{
  // `all:` names nothing; the recipe's g++ call writes the library, the
  // variables expanded. The rule that makes x_ops.so itself is read once.
  std::string makefile = "CXX := g++\nSRCS = sampling.cpp sampling_kernels.cpp\n"
                         "all:\n\tnvcc sampling_g.cu -o sampling_g.cu.o -c\n"
                         "\t$(CXX) -shared -fPIC $(SRCS) sampling_g.cu.o -o tf_sampling_so.so \\\n\t  -O2\n"
                         "x_ops.so: x.cc\n\t$(CXX) -shared -o x_ops.so x.cc\n";
  BuildDescription description =
    read({{"ops/Makefile", makefile}},
         {"ops/Makefile", "ops/sampling.cpp", "ops/sampling_kernels.cpp", "ops/sampling_g.cu", "ops/x.cc"});
  ASSERT_EQ(description.libraries.size(), 2U) << description.libraries.size();
  const DeclaredLibrary* sampling = find(description, "tf_sampling_so.so");
  ASSERT_NE(sampling, nullptr);
  EXPECT_EQ(sampling->sources, (Strings{"ops/sampling.cpp", "ops/sampling_kernels.cpp"}));
  EXPECT_EQ(sampling->gpu_sources, (Strings{"ops/sampling_g.cu"}));
  EXPECT_EQ(sampling->origin(), "ops/Makefile:5 g++ call \"tf_sampling_so.so\"");
  ASSERT_NE(find(description, "x_ops.so"), nullptr);
  EXPECT_EQ(find(description, "x_ops.so")->rule, "make rule");
}
