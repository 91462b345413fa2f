#include "opkit/adopt/adopt.hpp"
#include "opkit/project/manifest.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;
namespace stdfs = std::filesystem;

namespace {

const char* const k_ops = R"cc(
#include "tensorflow/core/framework/op.h"
REGISTER_OP("Acme>LoadKVEmbed")
    .Input("path: string")
    .Output("table: T")
    .Attr("dim: int")
    .Attr("T: {float, double} = DT_FLOAT");
)cc";

const char* const k_kernels = R"cc(
#include "acme/common/hash.h"
#include "kv_embed.h"
#define REGISTER_CPU(T) \
  REGISTER_KERNEL_BUILDER(Name("Acme>LoadKVEmbed").Device(DEVICE_CPU).TypeConstraint<T>("T"), Op<T>);
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#if GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("Acme>LoadKVEmbed").Device(DEVICE_GPU).TypeConstraint<float>("T"), Gpu<float>);
#endif
)cc";

const char* const k_text_ops = R"cc(
// Written for TF 2.x: tstring.
#include "common/util.h"
REGISTER_OP("HashStrings").Input("keys: string").Output("buckets: int64").Attr("num_buckets: int >= 1");
REGISTER_KERNEL_BUILDER(Name("HashStrings").Device(DEVICE_CPU), HashStringsOp);
void f(const Tensor& t) { auto in = t.flat<tstring>(); }
)cc";

// A tree: the ops of `embed` in acme/embed, the text ops under src/ with a
// header included from src/, Python that loads _embed_ops.so.
adopt::AdoptedTree
sample_tree()
{
  std::vector<adopt::TreeText> cpp = {
    {"acme/embed/kv_embed_ops.cc", k_ops},
    {"acme/embed/kv_embed_kernels.cc", k_kernels},
    {"acme/embed/kv_embed_kernels.cu.cc", "#include \"acme/embed/kv_embed.h\"\n"},
    {"acme/embed/kv_embed_test.cc", "REGISTER_OP(\"NotThisOne\");\n"},
    {"acme/embed/kv_embed.h", "#include \"acme/common/hash.h\"\n"},
    {"acme/common/hash.h", ""},
    {"src/text/text_ops.cc", k_text_ops},
    {"src/common/util.h", ""},
  };
  std::vector<std::string> files = {"README.md", "python/acme/__init__.py"};
  for (const adopt::TreeText& file : cpp) {
    files.push_back(file.path);
  }
  std::vector<adopt::TreeText> python = {
    {"python/acme/__init__.py",
     "a = load('kv_embed.so', 'my_text.so')\nb = tf.load_op_library(os.path.join(d, '_embed_ops.so'))\n"}};
  return adopt::scan_tree(files, cpp, python);
}

bool
contains_line(const std::vector<std::string>& lines, const std::string& part)
{
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

void
write(const stdfs::path& path, const std::string& text)
{
  fs::create_dirs(path.parent_path());
  fs::write_file_atomic(path, text);
}

} // namespace

TEST(AdoptAdopt, GroupsFoldersAndRendersAManifestThatParsesBack)
{
  adopt::AdoptOptions options;
  options.target_versions = {"1.12", "2.10.1"};
  adopt::Adoption adoption = adopt::plan_adoption(sample_tree(), "/work/acme-ops", options);
  std::string text = adopt::render_manifest(adoption);
  project::Manifest manifest = project::parse_manifest(text, "opkit.yaml", "/work/acme-ops");
  EXPECT_EQ(manifest.name, "acme_ops");
  EXPECT_EQ(manifest.target_versions, (std::vector<std::string>{"1.12", "2.10.1"}));
  ASSERT_EQ(manifest.libraries.size(), 2u) << text;

  const project::LibrarySpec& embed = manifest.libraries[0];
  EXPECT_EQ(embed.name, "embed");
  EXPECT_EQ(embed.output, "_embed_ops.so");
  EXPECT_EQ(embed.versions.text, ">=2.0"); // namespaced op names
  ASSERT_EQ(embed.settings.size(), 2u);
  EXPECT_EQ(embed.settings[0].sources,
            (std::vector<std::string>{"acme/embed/kv_embed_kernels.cc", "acme/embed/kv_embed_ops.cc"}));
  EXPECT_EQ(embed.settings[1].when.device, "gpu");
  EXPECT_EQ(embed.settings[1].sources, (std::vector<std::string>{"acme/embed/kv_embed_kernels.cu.cc"}));
  ASSERT_EQ(embed.ops.size(), 1u);
  const project::OpSpec& op = embed.ops[0];
  EXPECT_EQ(op.name, "Acme>LoadKVEmbed");
  ASSERT_EQ(op.attrs.size(), 2u);
  EXPECT_EQ(op.attrs[1].allowed, (std::vector<std::string>{"float", "double"}));
  ASSERT_EQ(op.kernels.size(), 2u);
  EXPECT_EQ(op.kernels[0].device, "CPU");
  EXPECT_EQ(op.kernels[0].constraints,
            (std::vector<std::pair<std::string, std::vector<std::string>>>{{"T", {"double", "float"}}}));
  EXPECT_EQ(op.kernels[1].device, "GPU");
  EXPECT_EQ(op.kernels[1].constraints,
            (std::vector<std::pair<std::string, std::vector<std::string>>>{{"T", {"float"}}}));

  const project::LibrarySpec& textlib = manifest.libraries[1];
  EXPECT_EQ(textlib.name, "text");
  EXPECT_EQ(textlib.output, "libtext.so");
  EXPECT_TRUE(textlib.versions.empty());
  ASSERT_EQ(textlib.ops.size(), 1u);
  ASSERT_EQ(textlib.ops[0].kernels.size(), 1u);
  EXPECT_TRUE(textlib.ops[0].kernels[0].constraints.empty());

  // acme/common/hash.h resolves from the tree root, common/util.h from src/; kv_embed.h from its own folder.
  ASSERT_EQ(manifest.settings.size(), 2u);
  EXPECT_EQ(manifest.settings[0].include_dirs, (std::vector<std::string>{".", "src"}));
  EXPECT_EQ(manifest.settings[1].when.versions.text, "<1.15");
  EXPECT_EQ(manifest.settings[1].compat, (std::vector<std::string>{"tstring"})); // a forced-in header
  EXPECT_TRUE(manifest.settings[1].defines.empty());

  EXPECT_TRUE(contains_line(adoption.report, "guessed: library embed builds _embed_ops.so (python/acme/__init__.py"));
  EXPECT_TRUE(contains_line(adoption.report, "guessed: library text builds libtext.so (the default"));
  EXPECT_TRUE(contains_line(adoption.report, "found: include folder src (src/text/text_ops.cc:3"));
  EXPECT_TRUE(contains_line(adoption.report, "CUDA builds only"));
  EXPECT_FALSE(contains_line(adoption.report, "NotThisOne"));
}

TEST(AdoptAdopt, SharedFolderNamesTakeTheirParentAndKernelFoldersJoinTheirOps)
{
  std::vector<adopt::TreeText> cpp = {
    {"a/ops/x.cc", "REGISTER_OP(\"XOp\");"},
    {"b/ops/y.cc", "REGISTER_OP(\"YOp\");"},
    {"b/kernels/y_kernels.cc", "REGISTER_KERNEL_BUILDER(Name(\"YOp\").Device(DEVICE_CPU), Y);"},
  };
  adopt::AdoptedTree tree = adopt::scan_tree({"a/ops/x.cc", "b/ops/y.cc", "b/kernels/y_kernels.cc"}, cpp, {});
  adopt::Adoption adoption = adopt::plan_adoption(tree, "tree", {});
  ASSERT_EQ(adoption.libraries.size(), 2u);
  EXPECT_EQ(adoption.libraries[0].name, "a_ops");
  EXPECT_EQ(adoption.libraries[1].name, "b_ops");
  EXPECT_EQ(adoption.libraries[1].settings[0].sources,
            (std::vector<std::string>{"b/kernels/y_kernels.cc", "b/ops/y.cc"}));
  ASSERT_EQ(adoption.libraries[1].ops[0].kernels.size(), 1u);
  project::parse_manifest(adopt::render_manifest(adoption), "opkit.yaml", "/tree");

  adopt::AdoptOptions single;
  single.single_library = "all-ops";
  single.name = "MyProject";
  adoption = adopt::plan_adoption(tree, "tree", single);
  EXPECT_EQ(adoption.name, "my_project");
  ASSERT_EQ(adoption.libraries.size(), 1u);
  EXPECT_EQ(adoption.libraries[0].name, "all_ops");
  EXPECT_EQ(adoption.libraries[0].ops.size(), 2u);
}

TEST(AdoptAdopt, GuessesOutputsFromPythonByFolderWordsWhenUnambiguous)
{
  // tensorflow/custom-op's layout: cc/ops and cc/kernels per op, Python loading _<op>_ops.so.
  std::vector<adopt::TreeText> cpp = {
    {"tensorflow_zero_out/cc/ops/zero_out_ops.cc", "REGISTER_OP(\"ZeroOut\");"},
    {"tensorflow_zero_out/cc/kernels/zero_out_kernels.cc",
     "REGISTER_KERNEL_BUILDER(Name(\"ZeroOut\").Device(DEVICE_CPU), Z);"},
    {"tensorflow_time_two/cc/ops/time_two_ops.cc", "REGISTER_OP(\"TimeTwo\");"},
  };
  std::vector<std::string> files;
  for (const adopt::TreeText& file : cpp) {
    files.push_back(file.path);
  }
  std::vector<adopt::TreeText> python = {
    {"tensorflow_zero_out/python/ops/zero_out_ops.py", "load(get_path_to_datafile('_zero_out_ops.so'))"},
    {"tensorflow_time_two/python/ops/time_two_ops.py", "load('_time_two_ops.so')\nload('_time_two_cc.so')"}};
  adopt::Adoption adoption = adopt::plan_adoption(adopt::scan_tree(files, cpp, python), "custom-op", {});
  ASSERT_EQ(adoption.libraries.size(), 2u);
  EXPECT_EQ(adoption.libraries[0].name, "tensorflow_time_two_cc_ops");
  EXPECT_EQ(adoption.libraries[0].output, "libtensorflow_time_two_cc_ops.so"); // two candidates: no guess
  EXPECT_EQ(adoption.libraries[1].name, "tensorflow_zero_out_cc_ops");
  EXPECT_EQ(adoption.libraries[1].output, "_zero_out_ops.so");
  EXPECT_EQ(adoption.libraries[1].settings[0].sources.size(), 2u);
  // get_path_to_datafile names it, and its op sources are named alike.
  EXPECT_TRUE(contains_line(adoption.report, "get_path_to_datafile loads it; its op sources are named zero_out_*"));
}

TEST(AdoptAdopt, RefusesATreeWithoutOpSourcesAndBadVersions)
{
  adopt::AdoptedTree empty = adopt::scan_tree({"a.cc"}, {{"a.cc", "int main() {}"}}, {});
  try {
    adopt::plan_adoption(empty, "/x/tree", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("/x/tree: no op sources"), std::string::npos);
  }
  adopt::AdoptOptions options;
  options.target_versions = {"latest"};
  EXPECT_THROW(adopt::plan_adoption(sample_tree(), "tree", options), Error);
}

TEST(AdoptAdopt, InitWritesOnceSkipsBuildOutputAndFollowsThirdPartyIncludes)
{
  fs::TempDir dir;
  stdfs::path root = dir.path() / "kv-ops";
  write(root / "ops/kv.cc", "#include \"third_party/farmhash/farmhash.h\"\n" + std::string(k_ops));
  write(root / "third_party/farmhash/farmhash.h", "");
  write(root / "third_party/other/reg.cc", "REGISTER_OP(\"Vendored\");");
  write(root / "build/gen.cc", "REGISTER_OP(\"Generated\");");
  write(root / ".hidden/h.cc", "REGISTER_OP(\"Hidden\");");
  write(root / "bazel-out/b.cc", "REGISTER_OP(\"Bazel\");");

  adopt::InitResult dry = adopt::init_project(root, {}, true);
  EXPECT_FALSE(stdfs::exists(root / "opkit.yaml"));
  ASSERT_EQ(dry.adoption.libraries.size(), 1u);
  EXPECT_EQ(dry.adoption.libraries[0].name, "ops");
  EXPECT_EQ(dry.adoption.include_dirs, (std::vector<std::string>{"."}));

  adopt::InitResult result = adopt::init_project(root, {}, false);
  EXPECT_EQ(result.manifest, root / "opkit.yaml");
  EXPECT_EQ(fs::read_file(root / "opkit.yaml"), dry.text);
  project::Manifest manifest = project::load_manifest(root);
  EXPECT_EQ(manifest.name, "kv_ops");
  ASSERT_EQ(manifest.libraries.size(), 1u);
  EXPECT_TRUE(manifest.libraries[0].ops.empty()) << "no ops: unless asked (init --ops): opkit.lock is the contract";

  fs::write_file_atomic(root / "opkit.yaml", "mine\n");
  try {
    adopt::init_project(root, {}, false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find((root / "opkit.yaml").string()), std::string::npos);
  }
  EXPECT_EQ(fs::read_file(root / "opkit.yaml"), "mine\n");
  std::vector<std::string> left;
  for (const auto& entry : stdfs::directory_iterator(root)) {
    left.push_back(entry.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{".hidden", "bazel-out", "build", "opkit.yaml", "ops", "third_party"}));
}

TEST(AdoptAdopt, ATorchTreeBecomesATorchOpProjectWithSetupPyExtensionsAsLibraries)
{
  std::vector<adopt::TreeText> cpp = {
    {"csrc/ops.cpp", "#include <torch/library.h>\nTORCH_LIBRARY(seg, m) {\n  m.def(\"sum(Tensor x, Tensor ptr) -> "
                     "Tensor\");\n  m.def(\"cumsum\", &cumsum);\n}\n"},
    {"csrc/cpu/ops_cpu.cpp", "#include \"util.h\"\nTORCH_LIBRARY_IMPL(seg, CPU, m) { m.impl(\"sum\", &sum_cpu); }\n"},
    {"csrc/util.h", ""},
  };
  std::vector<std::string> files = {"setup.py"};
  for (const adopt::TreeText& file : cpp) {
    files.push_back(file.path);
  }
  std::vector<adopt::TreeText> python = {
    {"setup.py", "from torch.utils.cpp_extension import CppExtension\nsetup(ext_modules=[CppExtension('seg._ops', "
                 "['csrc/ops.cpp', 'csrc/cpu/ops_cpu.cpp'])])\n"}};
  adopt::AdoptedTree tree = adopt::scan_tree(files, cpp, python);
  adopt::AdoptOptions options;
  options.target_versions = {"2.5", "2.8"};
  options.versions_framework = "torch";
  adopt::Adoption adoption = adopt::plan_adoption(tree, "/w/seg", options);
  EXPECT_EQ(adoption.framework, "torch");
  std::string text = adopt::render_manifest(adoption);
  project::Manifest manifest = project::parse_manifest(text, "opkit.yaml", "/w/seg");
  EXPECT_EQ(manifest.framework, "torch") << text;
  EXPECT_EQ(manifest.template_name, "torch-op");
  EXPECT_EQ(manifest.target_versions, (std::vector<std::string>{"2.5", "2.8"}));
  ASSERT_EQ(manifest.libraries.size(), 1u) << text;
  EXPECT_EQ(manifest.libraries[0].output, "_ops.so");
  ASSERT_EQ(manifest.libraries[0].ops.size(), 1u) << text; // cumsum's schema is torch's to infer: opkit.lock's
  EXPECT_EQ(manifest.libraries[0].ops[0].schema, "seg::sum(Tensor x, Tensor ptr) -> Tensor");
  EXPECT_EQ(manifest.libraries[0].ops[0].kernels.at(0).device, "CPU");
  EXPECT_EQ(manifest.settings.at(0).include_dirs, (std::vector<std::string>{"csrc"}));
  EXPECT_TRUE(contains_line(adoption.report, "found: op seg::cumsum (csrc/ops.cpp:4; schema inferred"));
  EXPECT_TRUE(contains_line(adoption.report, "found: CompositeImplicitAutograd kernel of seg::cumsum"));
  EXPECT_FALSE(contains_line(adoption.report, "note: no targets written"));

  // The flag of the other framework is refused, naming the right one.
  options.versions_framework = "tensorflow";
  options.target_versions = {"2.10"};
  try {
    adopt::plan_adoption(tree, "/w/seg", options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("--tf: the sources here register PyTorch ops (TORCH_LIBRARY): pass --torch"),
              std::string::npos);
  }
}

TEST(AdoptAdopt, AnExtensionWhoseClassIsChosenKeepsItsPythonModuleAndCudaSources)
{
  std::vector<adopt::TreeText> cpp = {
    {"kit/csrc/ops.cpp", "#include <Python.h>\n#include <torch/library.h>\nTORCH_LIBRARY(kit, m) {\n  "
                         "m.def(\"mul(Tensor x) -> Tensor\");\n}\nextern \"C\" PyObject* PyInit__C(void) { return "
                         "PyModule_Create(&def); }\n"},
    {"kit/csrc/cuda/ops.cu", "#include <torch/library.h>\nTORCH_LIBRARY_IMPL(kit, CUDA, m) { m.impl(\"mul\", "
                             "&mul_cuda); }\n"},
  };
  std::vector<adopt::TreeText> python = {
    {"setup.py", "import glob, os\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension\n"
                 "name = 'kit'\nuse_cuda = os.getenv('USE_CUDA') == '1'\n"
                 "extension = CUDAExtension if use_cuda else CppExtension\n"
                 "sources = glob.glob(os.path.join(name, 'csrc', '*.cpp'))\n"
                 "if use_cuda:\n    sources += glob.glob(f'{name}/csrc/cuda/*.cu')\n"
                 "modules = [extension(f'{name}._C', sources)]\n"},
    {"kit/__init__.py", "from . import _C\n"}};
  std::vector<std::string> files = {"kit/__init__.py", "kit/csrc/cuda/ops.cu", "kit/csrc/ops.cpp", "setup.py"};
  adopt::AdoptedTree tree = adopt::scan_tree(files, cpp, python);
  adopt::Adoption adoption = adopt::plan_adoption(tree, "/w/kit", {});
  ASSERT_EQ(adoption.libraries.size(), 1u);
  const project::LibrarySpec& library = adoption.libraries[0];
  EXPECT_EQ(library.output, "_C.so");
  EXPECT_EQ(library.python_module, "kit._C") << "setup.py's name for a library whose source defines PyInit__C";
  EXPECT_EQ(adoption.package, "kit") << "kit/__init__.py: the tree's own package";
  EXPECT_TRUE(contains_line(adoption.report, "found: Python module kit._C (kit/csrc/ops.cpp:6: defines PyInit__C): "
                                             "built per CPython, imported by that name"));
  EXPECT_EQ(library.settings.at(0).sources, (std::vector<std::string>{"kit/csrc/ops.cpp"}));
  ASSERT_EQ(library.settings.size(), 2u);
  EXPECT_EQ(library.settings[1].sources, (std::vector<std::string>{"kit/csrc/cuda/ops.cu"}));
  EXPECT_TRUE(contains_line(adoption.report, "<- setup.py:9 extension (CUDAExtension or CppExtension) \"_C.so\" (1 "
                                             "source, 1 GPU source)"));
}

TEST(AdoptAdopt, ARegisterOperatorsExtensionGetsItsSchemasInferredFromItsFunctions)
{
  stdfs::path root = stdfs::path(OPKIT_TEST_SOURCE_DIR) / "tests/fixtures/clusterkit";
  adopt::AdoptOptions options;
  options.target_versions = {"2.5", "2.8"};
  options.versions_framework = "torch";
  options.write_ops = true;
  adopt::Adoption adoption = adopt::plan_adoption(adopt::read_tree(root), root.string(), options);
  EXPECT_EQ(adoption.framework, "torch");
  std::string text = adopt::render_manifest(adoption);
  project::Manifest manifest = project::parse_manifest(text, "opkit.yaml", root);
  ASSERT_EQ(manifest.libraries.size(), 2u) << text;
  std::vector<std::string> declared;
  for (const project::LibrarySpec& library : manifest.libraries) {
    for (const project::OpSpec& op : library.ops) {
      std::string keys;
      for (const project::KernelSpec& kernel : op.kernels) {
        keys += " " + kernel.device;
      }
      declared.push_back(library.output + " " + op.schema + keys);
    }
  }
  std::sort(declared.begin(), declared.end());
  EXPECT_EQ(
    declared,
    (std::vector<std::string>{
      "_graclus.so clusterkit::graclus(Tensor _0, Tensor _1, Tensor? _2) -> Tensor _0 CompositeImplicitAutograd",
      "_graclus.so clusterkit::grid_cluster(Tensor pos, Tensor size) -> Tensor CPU",
      "_pool.so clusterkit::cluster_max(Tensor src, Tensor cluster, int num_clusters) -> (Tensor out, Tensor "
      "arg_out) CompositeImplicitAutograd",
      "_pool.so clusterkit::cluster_pool(Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4) -> Tensor _0 "
      "CompositeImplicitAutograd"}))
    << text;
  EXPECT_TRUE(contains_line(adoption.report,
                            "found: op clusterkit::cluster_pool (csrc/pool.cpp:36; schema inferred from its C++ "
                            "function: clusterkit::cluster_pool(Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4) -> "
                            "Tensor _0)"));
  EXPECT_FALSE(contains_line(adoption.report, "unresolved:"));
}

TEST(AdoptAdopt, ATreeWhoseEveryRegistrationWasSkippedSaysHowManyAndWhere)
{
  adopt::AdoptedTree tree = adopt::scan_tree(
    {"csrc/a.cpp", "csrc/b.h"},
    {{"csrc/a.cpp", "static auto r = torch::RegisterOperators()\n  .op(kName, &f)\n  .op(kOther, &g);\n"},
     {"csrc/b.h", "#define LIB(ns) TORCH_LIBRARY(ns, m) {}\n"}},
    {});
  try {
    adopt::plan_adoption(tree, "/x/tree", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("or a torch operator (TORCH_LIBRARY, torch::RegisterOperators); 3 torch "
                                         "registrations opkit could not read, the first at csrc/a.cpp:2"),
              std::string::npos)
      << e.what();
  }
}
