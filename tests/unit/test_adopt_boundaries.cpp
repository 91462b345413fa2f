#include "opkit/adopt/adopt.hpp"
#include "opkit/project/manifest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

using namespace opkit;
using Strings = std::vector<std::string>;

namespace {

std::string
op(const std::string& name)
{
  return "REGISTER_OP(\"" + name + "\");\n";
}

std::string
kernel(const std::string& name)
{
  return "REGISTER_KERNEL_BUILDER(Name(\"" + name + "\").Device(DEVICE_CPU), K);\n";
}

// A tree of C++ sources, build files and Python files.
adopt::AdoptedTree
tree(const std::vector<adopt::TreeText>& cpp, const std::vector<adopt::TreeText>& build_files,
     const std::vector<adopt::TreeText>& python = {})
{
  Strings files;
  for (const auto* list : {&cpp, &build_files, &python}) {
    for (const adopt::TreeText& file : *list) {
      files.push_back(file.path);
    }
  }
  adopt::AdoptedTree scanned = adopt::scan_tree(files, cpp, python);
  scanned.build_files = build_files;
  return scanned;
}

const project::LibrarySpec*
library(const adopt::Adoption& adoption, const std::string& name)
{
  auto found = std::find_if(adoption.libraries.begin(), adoption.libraries.end(),
                            [&](const project::LibrarySpec& spec) { return spec.name == name; });
  return found == adoption.libraries.end() ? nullptr : &*found;
}

Strings
names(const adopt::Adoption& adoption)
{
  Strings result;
  for (const project::LibrarySpec& spec : adoption.libraries) {
    result.push_back(spec.name + ":" + spec.output);
  }
  return result;
}

bool
has_line(const adopt::Adoption& adoption, const std::string& line)
{
  return std::find(adoption.report.begin(), adoption.report.end(), line) != adoption.report.end();
}

bool
has_part(const adopt::Adoption& adoption, const std::string& part)
{
  return std::any_of(adoption.report.begin(), adoption.report.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

} // namespace

TEST(AdoptBoundaries, BuildFilesSplitAFolderAndTheRestFallsBackToFolders)
{
  const char* const build = R"(
tf_custom_op_library(name = "_a_ops.so", srcs = ["a_ops.cc", "a_kernels.cc"], gpu_srcs = ["a.cu.cc"])
cc_binary(name = "libb.so", srcs = ["b_ops.cc"], linkshared = 1)
cc_binary(name = "_util.so", srcs = ["util.cc"], linkshared = 1)
)";
  adopt::AdoptedTree scanned = tree({{"ops/a_ops.cc", op("AOp")},
                                     {"ops/a_kernels.cc", kernel("AOp")},
                                     {"ops/a.cu.cc", ""},
                                     {"ops/b_ops.cc", op("BOp") + kernel("BOp")},
                                     {"ops/util.cc", "int util() { return 1; }"},
                                     {"other/c_ops.cc", op("COp")}},
                                    {{"ops/BUILD", build}}, {{"other/load.py", "load_op_library('_c_ops.so')"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_EQ(names(adoption), (Strings{"a_ops:_a_ops.so", "b:libb.so", "other:_c_ops.so"}));
  const project::LibrarySpec& a = *library(adoption, "a_ops");
  EXPECT_EQ(a.settings.at(0).sources, (Strings{"ops/a_kernels.cc", "ops/a_ops.cc"}));
  ASSERT_EQ(a.settings.size(), 2u);
  EXPECT_EQ(a.settings[1].sources, (Strings{"ops/a.cu.cc"}));
  EXPECT_EQ(library(adoption, "b")->ops.at(0).name, "BOp");
  EXPECT_EQ(library(adoption, "other")->settings.at(0).sources, (Strings{"other/c_ops.cc"}));
  EXPECT_TRUE(has_line(adoption, "found: library a_ops <- ops/BUILD:2 tf_custom_op_library \"_a_ops.so\" (2 sources, "
                                 "1 GPU source)"));
  EXPECT_TRUE(has_line(adoption, "guessed: library other <- folder other (no build file names its sources; 1 source)"));
  EXPECT_TRUE(has_part(adoption, "note: ops/BUILD:4 cc_binary \"_util.so\" registers no op of its own"));
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/src/repo");

  // --lib-per-folder: the build files are not read.
  adopt::AdoptOptions per_folder;
  per_folder.per_folder = true;
  adoption = adopt::plan_adoption(scanned, "/src/repo", per_folder);
  EXPECT_EQ(names(adoption), (Strings{"ops:libops.so", "other:_c_ops.so"}));
  EXPECT_TRUE(has_part(adoption, "guessed: library ops <- folder ops (--lib-per-folder; 4 sources, 1 GPU source)"));
}

TEST(AdoptBoundaries, PythonLoadersSplitAFolderWhoseSourcesTheyName)
{
  const char* const loader = R"(
_norm = tf.load_op_library(get_path_to_datafile("_normalize_ops.so"))
_split = tf.load_op_library(get_path_to_datafile("_regex_split_ops.so"))
_gone = tf.load_op_library(get_path_to_datafile("_gone_ops.so"))
)";
  adopt::AdoptedTree scanned = tree({{"text/normalize_ops.cc", op("Normalize")},
                                     {"text/normalize_kernels.cc", kernel("Normalize")},
                                     {"text/regex_split_ops.cc", op("RegexSplit") + kernel("RegexSplit")},
                                     {"text/regex_split_util.cc", ""},
                                     {"text/other_ops.cc", op("Other")}},
                                    {}, {{"python/text_ops.py", loader}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_EQ(names(adoption),
            (Strings{"normalize_ops:_normalize_ops.so", "regex_split_ops:_regex_split_ops.so", "text:libtext.so"}));
  EXPECT_EQ(library(adoption, "regex_split_ops")->settings.at(0).sources,
            (Strings{"text/regex_split_ops.cc", "text/regex_split_util.cc"}));
  EXPECT_EQ(library(adoption, "text")->settings.at(0).sources, (Strings{"text/other_ops.cc"}));
  EXPECT_TRUE(has_line(adoption, "found: library normalize_ops <- python/text_ops.py:2 get_path_to_datafile "
                                 "\"_normalize_ops.so\" (its sources in text are named normalize_*: 2 sources)"));
  EXPECT_TRUE(has_part(adoption, "note: python/text_ops.py:4: get_path_to_datafile loads _gone_ops.so, which no "
                                 "library here makes"));

  // One loader naming every op source of the folder: the folder's library, named by its folder.
  scanned = tree({{"text/normalize_ops.cc", op("Normalize")}}, {}, {{"python/text_ops.py", loader}});
  adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_EQ(names(adoption), (Strings{"text:_normalize_ops.so"}));
}

TEST(AdoptBoundaries, TwoBuildFilesMakingOneFileKeepTheFirst)
{
  // tensorflow/custom-op's shape: a BUILD file and a Makefile for the same library.
  adopt::AdoptedTree scanned =
    tree({{"zero_out/cc/ops/zero_out_ops.cc", op("ZeroOut")},
          {"zero_out/cc/kernels/zero_out_kernels.cc", kernel("ZeroOut")}},
         {{"zero_out/BUILD", "tf_custom_op_library(name = 'python/ops/_zero_out_ops.so', srcs = glob(['cc/**/*.cc']))"},
          {"Makefile", "SRCS = $(wildcard zero_out/cc/*/*.cc)\nzero_out/python/ops/_zero_out_ops.so: $(SRCS)\n"
                       "zero_out.so: zero_out/cc/ops/zero_out_ops.cc\n"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/custom-op", {});
  EXPECT_EQ(names(adoption), (Strings{"zero_out_ops:_zero_out_ops.so"}));
  EXPECT_EQ(library(adoption, "zero_out_ops")->settings.at(0).sources,
            (Strings{"zero_out/cc/kernels/zero_out_kernels.cc", "zero_out/cc/ops/zero_out_ops.cc"}));
  EXPECT_TRUE(has_part(adoption, "note: Makefile:2 make rule \"_zero_out_ops.so\" makes _zero_out_ops.so again "
                                 "(the first, zero_out/BUILD:1 tf_custom_op_library \"_zero_out_ops.so\", is kept)"));
  EXPECT_TRUE(has_part(adoption, "zero_out/cc/ops/zero_out_ops.cc is in an earlier library already"));
  EXPECT_TRUE(has_part(adoption, "note: Makefile:3 make rule \"zero_out.so\" registers no op of its own"));
}

TEST(AdoptBoundaries, NamesThatCollideTakeTheirFolders)
{
  adopt::AdoptedTree scanned = tree(
    {{"image/ops.cc", op("ImageOp")}, {"text/ops.cc", op("TextOp")}},
    {{"image/BUILD", "tf_custom_op_library(name = '_ops.so', srcs = ['ops.cc'])"},
     {"text/CMakeLists.txt", "add_library(ops SHARED ops.cc)\nset_target_properties(ops PROPERTIES PREFIX \"\")"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_EQ(names(adoption), (Strings{"image_ops:_ops.so", "text_ops:ops.so"}));
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/src/repo");
}

TEST(AdoptBoundaries, AFileNamedOutsideALoaderIsGuessedByFolderWords)
{
  adopt::AdoptedTree scanned = tree({{"tensorflow_zero_out/cc/ops/ops.cc", op("ZeroOut")}}, {},
                                    {{"build_pip_pkg.py", "LIBRARY = '_zero_out_ops.so'\n"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/custom-op", {});
  EXPECT_EQ(names(adoption), (Strings{"ops:_zero_out_ops.so"}));
  EXPECT_TRUE(has_part(adoption, "guessed: library ops builds _zero_out_ops.so (build_pip_pkg.py loads it; its name "
                                 "matches the library's folder)"));
}

TEST(AdoptBoundaries, OneLoadedFileNamingTwoFoldersGoesToTheFirstOnly)
{
  adopt::AdoptedTree scanned = tree({{"a/text_ops.cc", op("AOp")}, {"b/text_more.cc", op("BOp")}}, {},
                                    {{"load.py", "load_op_library('_text_ops.so')"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_EQ(names(adoption), (Strings{"a:_text_ops.so", "b:libb.so"}));
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/src/repo");
}

TEST(AdoptBoundaries, FolderNamesThatAreNoIdentifiersAreMadeIntoOnesWithANote)
{
  adopt::AdoptedTree scanned = tree({{"3d_interpolation/tf_interpolate.cpp", op("ThreeInterpolate")},
                                     {"sampling/tf_sampling.cpp", op("FarthestPointSample")},
                                     {"123/ops.cc", op("DigitsOp")},
                                     {"class/ops.cc", op("ClassOp")}},
                                    {});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/2019-pointnet2", {});
  EXPECT_EQ(adoption.name, "pointnet2_2019");
  Strings made = names(adoption);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made, (Strings{"class_op:libclass_op.so", "interpolation_3d:libinterpolation_3d.so", "op_123:libop_123.so",
                           "sampling:libsampling.so"}));
  EXPECT_TRUE(has_line(adoption,
                       "note: folder 3d_interpolation: '3d_interpolation' is no valid library name (it must start "
                       "with a letter); named 'interpolation_3d'"));
  EXPECT_TRUE(has_part(adoption, "'2019_pointnet2' is no valid project name"));
  EXPECT_TRUE(has_part(adoption, "'class' is no valid library name ('class' is a reserved word in C++ or Python); "
                                 "named 'class_op'"));
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/src/2019-pointnet2");
}

TEST(AdoptBoundaries, AProgramBesideTheOpsIsLeftOutOfItsFoldersLibraryUnlessABuildFileNamesIt)
{
  std::string bench = "#include <cstdio>\nfloat interpolate(float a) { return a; }\n\nint main(int argc, char** argv)\n"
                      "{\n  return 0;\n}\n";
  std::string source =
    op("ThreeInterpolate") + kernel("ThreeInterpolate") + "float interpolate(float a) { return a; }\n";
  adopt::AdoptedTree scanned =
    tree({{"interpolation/interpolate.cpp", bench}, {"interpolation/tf_interpolate.cpp", source}}, {});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  ASSERT_EQ(adoption.libraries.size(), 1U);
  EXPECT_EQ(adoption.libraries[0].settings.at(0).sources, (Strings{"interpolation/tf_interpolate.cpp"}));
  EXPECT_TRUE(has_line(adoption, "note: interpolation/interpolate.cpp:4: a program (int main) that registers no op: "
                                 "left out of the library of its folder (a build file naming it would put it in)"));

  // A Makefile naming the program's file keeps it.
  adopt::AdoptedTree named =
    tree({{"interpolation/interpolate.cpp", bench}, {"interpolation/tf_interpolate.cpp", source}},
         {{"interpolation/Makefile", "tf_interpolate_so.so: tf_interpolate.cpp interpolate.cpp\n\tg++ -shared "
                                     "-o tf_interpolate_so.so tf_interpolate.cpp interpolate.cpp\n"}});
  adopt::Adoption kept = adopt::plan_adoption(named, "/src/repo", {});
  ASSERT_EQ(kept.libraries.size(), 1U);
  EXPECT_EQ(kept.libraries[0].settings.at(0).sources,
            (Strings{"interpolation/interpolate.cpp", "interpolation/tf_interpolate.cpp"}));
}

TEST(AdoptBoundaries, AResearchTreesLoadersNameItsLibrariesFiles)
{
  std::string interpolate = op("ThreeNn") + kernel("ThreeNn") + "float interpolate(float a) { return a; }\n";
  std::string bench = "float interpolate(float a) { return a; }\nint main() { return 0; }\n";
  adopt::AdoptedTree scanned = tree(
    {{"tf_ops/3d_interpolation/tf_interpolate.cpp", interpolate},
     {"tf_ops/3d_interpolation/interpolate.cpp", bench},
     {"tf_ops/sampling/tf_sampling.cpp", op("FarthestPointSample")},
     {"tf_ops/sampling/tf_sampling_g.cu",
      "__global__ void k() {}\nREGISTER_KERNEL_BUILDER(Name(\"FarthestPointSample\").Device(DEVICE_GPU), K);\n"}},
    {},
    {{"tf_ops/3d_interpolation/tf_interpolate.py",
      "import tensorflow as tf\nimport os\nBASE_DIR = os.path.dirname(__file__)\n"
      "interpolate_module = tf.load_op_library(os.path.join(BASE_DIR, 'tf_interpolate_so.so'))\n"},
     {"tf_ops/sampling/tf_sampling.py",
      "import tensorflow as tf\nsampling_module = tf.load_op_library(os.path.join(BASE_DIR, 'tf_sampling_so.so'))\n"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/pointnet2", {});
  Strings made = names(adoption);
  std::sort(made.begin(), made.end());
  EXPECT_EQ(made, (Strings{"interpolation_3d:tf_interpolate_so.so", "sampling:tf_sampling_so.so"}));
  EXPECT_FALSE(has_part(adoption, "which no library here makes"));
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/src/pointnet2");
}

TEST(AdoptBoundaries, AGpuSourceNoLibraryTakesIsNamed)
{
  adopt::AdoptedTree scanned = tree({{"ops/ops.cc", op("AOp") + kernel("AOp")},
                                     {"bench/cuda_bench.cu", "__global__ void k() {}\nint main() { return 0; }\n"},
                                     {"ops/a_kernels.cu.cc", "__global__ void k() {}\n"}},
                                    {{"ops/Makefile", "liba.so: ops.cc\n\tg++ -shared -o liba.so ops.cc\n"}});
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/repo", {});
  EXPECT_TRUE(has_line(adoption, "note: bench/cuda_bench.cu: a GPU source no library here takes (no build file or "
                                 "folder puts it in one)"));
  EXPECT_TRUE(has_part(adoption, "note: ops/a_kernels.cu.cc: a GPU source no library here takes"));
}

TEST(AdoptBoundaries, APrebuiltLibraryRegisteringTheSameOpsNamesTheLibrary)
{
  std::string elf_bytes = std::string("\x7f"
                                      "ELF\x02\x01\x01",
                                      7)
                          + std::string(9, '\0') + "LoadEmbedVariable" + std::string(1, '\0') + "SaveEmbedVariable"
                          + std::string(1, '\0') + "float" + std::string(1, '\0');
  std::optional<std::set<std::string>> strings = adopt::op_strings_of(elf_bytes);
  ASSERT_TRUE(strings);
  EXPECT_EQ(*strings, (std::set<std::string>{"LoadEmbedVariable", "SaveEmbedVariable"}));
  EXPECT_FALSE(adopt::op_strings_of("not an ELF file"));

  adopt::AdoptedTree scanned = tree({{"src/load_embed.cc", op("LoadEmbedVariable") + kernel("LoadEmbedVariable")},
                                     {"src/save_embed.cc", op("SaveEmbedVariable") + kernel("SaveEmbedVariable")}},
                                    {});
  scanned.prebuilt = {{"2.12/libload_embed.so", *strings},
                      {"1.15/libload_embed.so", *strings},
                      {"other/libunrelated.so", {"LoadEmbedVariable"}}};
  adopt::Adoption adoption = adopt::plan_adoption(scanned, "/src/easyrec", {});
  EXPECT_EQ(names(adoption), (Strings{"load_embed:libload_embed.so"}));
  EXPECT_TRUE(has_part(adoption, "guessed: library src is load_embed, builds libload_embed.so (2.12/libload_embed.so, "
                                 "1.15/libload_embed.so in the tree registers the same ops: a prebuilt copy of it)"));
  // Two prebuilt files of different names registering the ops: no guess.
  scanned.prebuilt.push_back({"3.0/libembed_v3.so", *strings});
  EXPECT_EQ(names(adopt::plan_adoption(scanned, "/src/easyrec", {})), (Strings{"src:libsrc.so"}));
}
