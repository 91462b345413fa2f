// torch's registrations as adopt::scan_source reads them (adopt/torch_scan.cpp).
#include "opkit/adopt/scan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;

namespace {

// "name | schema" per op, "op key" per kernel.
std::vector<std::string>
op_summary(const adopt::SourceScan& scan)
{
  std::vector<std::string> lines;
  for (const adopt::FoundOp& op : scan.ops) {
    lines.push_back(op.op.name + " | " + op.op.schema + (op.inferred ? " (inferred)" : ""));
  }
  return lines;
}

std::vector<std::string>
kernel_summary(const adopt::SourceScan& scan)
{
  std::vector<std::string> lines;
  for (const adopt::FoundKernel& kernel : scan.kernels) {
    lines.push_back(kernel.op + " " + kernel.device + " :" + std::to_string(kernel.place.line));
  }
  return lines;
}

bool
has_problem(const adopt::SourceScan& scan, const std::string& part)
{
  return std::any_of(scan.problems.begin(), scan.problems.end(),
                     [&](const std::string& p) { return p.find(part) != std::string::npos; });
}

} // namespace

TEST(AdoptTorchScan, ReadsARegisterOperatorsChainWithAndWithoutSchemas)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
#include <torch/torch.h>
std::tuple<at::Tensor, at::Tensor> scatter_max(at::Tensor src, at::Tensor index, int64_t dim);
static auto registry = torch::RegisterOperators()
    .op("mykit::scatter_sum", &scatter_sum)
    .op("mykit::scatter_max(Tensor src, Tensor index, int dim) -> (Tensor, Tensor)", &scatter_max)
    .op(TORCH_SELECTIVE_SCHEMA("mykit::scatter_min(Tensor src) -> Tensor"), scatter_min)
    .op("mykit::schema_only(Tensor a) -> Tensor");
)cc",
                                              "csrc/scatter.cpp");
  EXPECT_TRUE(scan.registers);
  EXPECT_TRUE(scan.torch);
  EXPECT_EQ(op_summary(scan),
            (std::vector<std::string>{"mykit::scatter_sum | ",
                                      "mykit::scatter_max | mykit::scatter_max(Tensor src, Tensor index, int dim) -> "
                                      "(Tensor, Tensor)",
                                      "mykit::scatter_min | mykit::scatter_min(Tensor src) -> Tensor",
                                      "mykit::schema_only | mykit::schema_only(Tensor a) -> Tensor"}));
  EXPECT_EQ(kernel_summary(scan), (std::vector<std::string>{"mykit::scatter_sum CompositeImplicitAutograd :5",
                                                            "mykit::scatter_max CompositeImplicitAutograd :6",
                                                            "mykit::scatter_min CompositeImplicitAutograd :7"}));
  EXPECT_EQ(scan.ops[0].place.line, 5);
  EXPECT_TRUE(scan.problems.empty()) << scan.problems.front();
  EXPECT_TRUE(scan.skipped.empty());
}

TEST(AdoptTorchScan, SplitStatementsTheC10SpellingAndAConstructorsOwnOp)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
namespace {
auto first = c10::RegisterOperators().op("kit::a", &a);
}
static torch::RegisterOperators second = torch::RegisterOperators()
  .op("kit::b(Tensor x) -> Tensor", &b);
static torch::RegisterOperators third("kit::c(Tensor x) -> Tensor", &c);
)cc",
                                              "x.cpp");
  EXPECT_EQ(op_summary(scan), (std::vector<std::string>{"kit::a | ", "kit::b | kit::b(Tensor x) -> Tensor",
                                                        "kit::c | kit::c(Tensor x) -> Tensor"}));
  EXPECT_EQ(kernel_summary(scan),
            (std::vector<std::string>{"kit::a CompositeImplicitAutograd :3", "kit::b CompositeImplicitAutograd :6",
                                      "kit::c CompositeImplicitAutograd :7"}));
}

TEST(AdoptTorchScan, ReadsTheOptionsFormsKernelsByDispatchKey)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
at::Tensor knn_cpu(const at::Tensor& pos, int64_t k);
static auto registry = torch::RegisterOperators()
  .op(torch::RegisterOperators::options()
        .schema("geo::knn")
        .kernel<decltype(knn_cpu), &knn_cpu>(c10::DispatchKey::CPU)
        .kernel<decltype(knn_cuda), &knn_cuda>(c10::DispatchKey::CUDA))
  .op("geo::fps(Tensor pos) -> Tensor", torch::RegisterOperators::options()
        .kernel(c10::DispatchKey::CPU, &fps_cpu)
        .aliasAnalysis(c10::AliasAnalysisKind::FROM_SCHEMA))
  .op(c10::RegisterOperators::options().schema("geo::grid(Tensor pos) -> Tensor").catchAllKernel([](at::Tensor p) { return p; }));
)cc",
                                              "csrc/geo.cpp");
  EXPECT_EQ(op_summary(scan),
            (std::vector<std::string>{"geo::knn | geo::knn(Tensor _0, int _1) -> Tensor _0 (inferred)",
                                      "geo::fps | geo::fps(Tensor pos) -> Tensor",
                                      "geo::grid | geo::grid(Tensor pos) -> Tensor"}));
  EXPECT_EQ(kernel_summary(scan), (std::vector<std::string>{"geo::knn CPU :4", "geo::knn CUDA :4", "geo::fps CPU :8",
                                                            "geo::grid CompositeImplicitAutograd :11"}));
  EXPECT_TRUE(scan.skipped.empty());
}

TEST(AdoptTorchScan, RegistrationsItCannotReadAreNamedAndCounted)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
static auto r = torch::RegisterOperators()
  .op(kOpName, &f)
  .op(torch::RegisterOperators::options().schema("kit::g").kernel<G>(some_key()))
  .op(torch::RegisterOperators::options().kernel<decltype(h), &h>(c10::DispatchKey::CPU))
  .op("no_namespace", &k);
torch::RegisterOperators later;
)cc",
                                              "csrc/r.cpp");
  EXPECT_TRUE(scan.ops.empty());
  EXPECT_FALSE(scan.registers) << "every registration skipped: no op source";
  ASSERT_EQ(scan.skipped.size(), 5u);
  EXPECT_EQ(scan.skipped[0].str(), "csrc/r.cpp:3");
  EXPECT_TRUE(has_problem(scan, "csrc/r.cpp:3: RegisterOperators .op() whose first argument is neither a string "
                                "literal nor options(), skipped"));
  EXPECT_TRUE(has_problem(scan, "csrc/r.cpp:4: RegisterOperators options().kernel() without a c10::DispatchKey, "
                                "skipped"));
  EXPECT_TRUE(has_problem(scan, "csrc/r.cpp:5: RegisterOperators .op(options()...) without .schema(\"...\"), skipped"));
  EXPECT_TRUE(has_problem(scan, "csrc/r.cpp:6: RegisterOperators .op(\"no_namespace\"): an operator name without a "
                                "namespace, skipped"));
  EXPECT_TRUE(has_problem(scan, "csrc/r.cpp:7: RegisterOperators later: the ops a later statement adds to it are "
                                "not read, skipped"));
}

TEST(AdoptTorchScan, ATorchLibraryInAMacroTheFileNeverExpandsIsNamed)
{
  adopt::SourceScan header =
    adopt::scan_source("#define KIT_LIBRARY(ns) \\\n  TORCH_LIBRARY(ns, m) { m.def(\"a\", &a); }\n", "csrc/kit.h");
  ASSERT_EQ(header.skipped.size(), 1u);
  EXPECT_EQ(header.skipped[0].line, 2);
  EXPECT_TRUE(has_problem(header, "csrc/kit.h:2: TORCH_LIBRARY inside macro KIT_LIBRARY, which csrc/kit.h never "
                                  "expands: not read, skipped"));
  EXPECT_FALSE(header.registers);

  // The namespace TORCH_EXTENSION_NAME is the build's -D, not the source's.
  adopt::SourceScan named =
    adopt::scan_source("TORCH_LIBRARY(TORCH_EXTENSION_NAME, m) { m.def(\"a\", &a); }\n", "csrc/ext.cpp");
  EXPECT_TRUE(named.ops.empty());
  ASSERT_EQ(named.skipped.size(), 1u);
  EXPECT_TRUE(has_problem(named, "csrc/ext.cpp:1: TORCH_LIBRARY(TORCH_EXTENSION_NAME, ...): a namespace the build "
                                 "defines, skipped"));

  // Expanded in its own file: read, nothing skipped.
  adopt::SourceScan used = adopt::scan_source("#define KIT_LIBRARY(ns) TORCH_LIBRARY(ns, m) { m.def(\"a\", &a); }\n"
                                              "KIT_LIBRARY(kit)\n",
                                              "csrc/kit.cpp");
  EXPECT_TRUE(used.skipped.empty());
  EXPECT_EQ(op_summary(used), (std::vector<std::string>{"kit::a | "}));
}

TEST(AdoptTorchScan, TorchLibraryDefsWithAFunctionOfTheFileGetItsInferredSchema)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
#include <torch/library.h>
namespace segkit {
static at::Tensor gather_csr(const at::Tensor& src, const at::Tensor& ptr) { return src; }
}
TORCH_LIBRARY(segkit, m) {
  m.def("gather_csr", &segkit::gather_csr);
  m.def("elsewhere", &defined_in_another_file);
  m.def("lambda", [](at::Tensor x) { return x; });
  m.def(kName);
}
)cc",
                                              "csrc/gather.cpp");
  EXPECT_EQ(op_summary(scan),
            (std::vector<std::string>{"segkit::gather_csr | segkit::gather_csr(Tensor _0, Tensor _1) -> Tensor _0 "
                                      "(inferred)",
                                      "segkit::elsewhere | ", "segkit::lambda | "}));
  ASSERT_EQ(scan.skipped.size(), 1u);
  EXPECT_TRUE(has_problem(scan, "csrc/gather.cpp:10: segkit.def() without a string literal first, skipped"));
}

// A Python module's source: PYBIND11_MODULE's functions with the schema torch
// would infer ("_::" stands for the module, known once its library is), the
// header that makes it a module's, and a torch source (its library builds for torch).
TEST(AdoptTorchScan, APybindModulesFunctionsAndItsHeader)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(#include <torch/extension.h>
#include <tuple>
torch::Tensor row_norms(const torch::Tensor& x) { return x; }
std::tuple<torch::Tensor, torch::Tensor> split(const torch::Tensor& x, double eps) { return {x, x}; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "helpers";
  m.def("row_norms", &row_norms, "norms", py::arg("x"));
  m.def("split", &split);
  m.def("lambda", [](int a) { return a; });
  m.def(kName, &row_norms);
}
)cc",
                                              "rows.cpp");
  EXPECT_EQ(scan.module_code, "rows.cpp:5: PYBIND11_MODULE");
  EXPECT_EQ(scan.module_name, "") << "TORCH_EXTENSION_NAME is the build's, not the source's";
  EXPECT_TRUE(scan.torch);
  EXPECT_TRUE(scan.registers);
  ASSERT_EQ(scan.functions.size(), 3u);
  EXPECT_EQ(scan.functions[0].op.name, "row_norms");
  EXPECT_EQ(scan.functions[0].op.schema, "_::row_norms(Tensor _0) -> Tensor _0");
  EXPECT_EQ(scan.functions[0].place.line, 7);
  EXPECT_EQ(scan.functions[1].op.schema, "_::split(Tensor _0, float _1) -> (Tensor _0, Tensor _1)");
  EXPECT_EQ(scan.functions[2].op.schema, "") << "a lambda: no schema";
  EXPECT_NE(std::find(scan.problems.begin(), scan.problems.end(),
                      "rows.cpp:10: a PYBIND11_MODULE function named by no string literal: skipped"),
            scan.problems.end());
}

// The official example's stub: PyInit__C names the module _C; a module header
// alone (no PyInit_, no PYBIND11_MODULE) still makes a module's source.
TEST(AdoptTorchScan, APyInitNamesTheModuleAndAModuleHeaderAloneMarksIt)
{
  adopt::SourceScan stub = adopt::scan_source(
    "#include <Python.h>\n#include <torch/library.h>\nextern \"C\" {\nPyObject* PyInit__C(void)\n{ return nullptr; "
    "}\n}\nTORCH_LIBRARY(kit, m) { m.def(\"f(Tensor x) -> Tensor\"); }\n",
    "kit/csrc/kit.cpp");
  EXPECT_EQ(stub.module_name, "_C");
  EXPECT_EQ(stub.module_code, "kit/csrc/kit.cpp:4: defines PyInit__C");
  adopt::SourceScan header = adopt::scan_source(
    "// a custom op loaded with torch.ops.load_library\n#include <torch/extension.h>\nTORCH_LIBRARY(kit, m) { "
    "m.def(\"f(Tensor x) -> Tensor\"); }\n",
    "op.cpp");
  EXPECT_EQ(header.module_code, "op.cpp:2: includes <torch/extension.h>");
  EXPECT_EQ(header.module_name, "");
  adopt::SourceScan plain = adopt::scan_source(
    "#include <torch/torch.h>\nTORCH_LIBRARY(kit, m) { m.def(\"f(Tensor x) -> Tensor\"); }\n", "plain.cpp");
  EXPECT_EQ(plain.module_code, "") << "<torch/torch.h> is torch's C++ API: no module";
  adopt::SourceScan tf = adopt::scan_source("#include <Python.h>\nint helper() { return 1; }\n", "tf_helper.cc");
  EXPECT_FALSE(tf.torch) << "Python.h without torch's headers makes no torch source";
}
