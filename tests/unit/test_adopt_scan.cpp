#include "opkit/adopt/scan.hpp"
#include "opkit/project/adopt_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;

namespace {

using Constraints = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string>
kernel_summary(const adopt::SourceScan& scan)
{
  std::vector<std::string> lines;
  for (const adopt::FoundKernel& kernel : scan.kernels) {
    std::string line = kernel.op + " " + kernel.device + (kernel.gpu_build ? " cuda" : "");
    for (const auto& [attr, dtype] : kernel.constraints) {
      line += " " + attr + "=" + dtype;
    }
    lines.push_back(line);
  }
  return lines;
}

std::string
attr_summary(const project::OpAttr& attr)
{
  std::string text = attr.name + ":" + attr.type;
  for (const std::string& dtype : attr.allowed) {
    text += " " + dtype;
  }
  return text;
}

} // namespace

TEST(AdoptScan, ReadsAnOpChainThroughCommentsAndConcatenatedStrings)
{
  const char* text = R"cc(
// REGISTER_OP("InAComment") is no registration
/* REGISTER_OP("InABlockComment")
   .Input("x: float") */
namespace tensorflow {
REGISTER_OP("Acme>" "LoadKVEmbed")
    .Input("path: " "string")  // the table's file
    .Input("xs: N * T")
    .Input("r: Ref(T)")
    .Output("table: float")
    .Attr("N: int >= 1")
    .Attr("T: {float, double} = DT_FLOAT")
    .Attr("dim: int")
    .Attr("salt: string = 'a=b'")
    .Attr("sizes: list(int) = []")
    .Attr("Tlist: list({float, int32})")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    })
    .Doc(R"doc(
Not an input: .Input("fake: int32")
)doc");
}  // namespace tensorflow
)cc";
  adopt::SourceScan scan = adopt::scan_source(text, "embed/ops.cc");
  ASSERT_EQ(scan.ops.size(), 1u) << (scan.problems.empty() ? "" : scan.problems.front());
  const project::OpSpec& op = scan.ops[0].op;
  EXPECT_EQ(op.name, "Acme>LoadKVEmbed");
  EXPECT_EQ(scan.ops[0].place.str(), "embed/ops.cc:6");
  ASSERT_EQ(op.inputs.size(), 3u);
  EXPECT_EQ(op.inputs[0].name + ":" + op.inputs[0].type, "path:string");
  EXPECT_EQ(op.inputs[1].name + ":" + op.inputs[1].type, "xs:T");
  EXPECT_EQ(op.inputs[2].name + ":" + op.inputs[2].type, "r:T");
  ASSERT_EQ(op.outputs.size(), 1u);
  EXPECT_EQ(op.outputs[0].name + ":" + op.outputs[0].type, "table:float");
  std::vector<std::string> attrs;
  for (const project::OpAttr& attr : op.attrs) {
    attrs.push_back(attr_summary(attr));
  }
  EXPECT_EQ(attrs, (std::vector<std::string>{"N:int", "T:type float double", "dim:int", "salt:string",
                                             "sizes:list(int)", "Tlist:list(type) float int32"}));
  EXPECT_TRUE(scan.registers);
  EXPECT_TRUE(scan.problems.empty());
}

TEST(AdoptScan, ParsesAttrSpecs)
{
  std::string problem;
  auto attr = adopt::parse_attr_spec("T: type", problem);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr_summary(*attr), "T:type");
  EXPECT_EQ(attr_summary(*adopt::parse_attr_spec("mode: {'sum', 'mean'} = 'sum'", problem)), "mode:string sum mean");
  EXPECT_EQ(attr_summary(*adopt::parse_attr_spec("k: float = 0.5", problem)), "k:float");
  EXPECT_EQ(attr_summary(*adopt::parse_attr_spec("n: int >= 2 = 3", problem)), "n:int");
  EXPECT_EQ(attr_summary(*adopt::parse_attr_spec("dtype: {bfloat16, float16, float32, float64}", problem)),
            "dtype:type bfloat16 half float double");
  EXPECT_TRUE(problem.empty()) << problem;
  EXPECT_FALSE(adopt::parse_attr_spec("f: func", problem));
  EXPECT_NE(problem.find("cannot declare"), std::string::npos);
  problem.clear();
  EXPECT_EQ(attr_summary(*adopt::parse_attr_spec("T: quantizedtype", problem)),
            "T:type qint8 quint8 qint32 qint16 quint16");
  EXPECT_TRUE(problem.empty()) << problem;
  EXPECT_FALSE(adopt::parse_arg_spec("no colon", problem));
  EXPECT_FALSE(problem.empty());
}

TEST(AdoptScan, AttrsTensorFlowsGrammarReadsWholeKeepTheirEnumDefaultAndMinimum)
{
  std::string problem;
  auto format = adopt::parse_attr_spec("data_format: {'NHWC', 'NCHW'} = 'NHWC'", problem);
  ASSERT_TRUE(format);
  EXPECT_TRUE(format->full_spec);
  EXPECT_EQ(format->allowed, (std::vector<std::string>{"NHWC", "NCHW"}));
  EXPECT_EQ(format->default_value, std::optional<std::string>("\"NHWC\""));
  auto count = adopt::parse_attr_spec("npoint: int >= 1", problem);
  ASSERT_TRUE(count);
  EXPECT_TRUE(count->full_spec);
  EXPECT_EQ(count->minimum, std::optional<int64_t>(1));
  EXPECT_FALSE(count->default_value);
  auto dtype = adopt::parse_attr_spec("T: {float, double} = DT_FLOAT", problem);
  ASSERT_TRUE(dtype);
  EXPECT_EQ(dtype->default_value, std::optional<std::string>("float"));
  // A type shorthand TF's grammar does not name is read as before, without a default.
  auto shorthand = adopt::parse_attr_spec("T: quantizedtype", problem);
  ASSERT_TRUE(shorthand);
  EXPECT_FALSE(shorthand->full_spec);
  EXPECT_TRUE(problem.empty()) << problem;
}

TEST(AdoptScan, ListTypeInputsCannotBeDeclaredAndAreReported)
{
  adopt::SourceScan scan = adopt::scan_source(
    R"cc(REGISTER_OP("Pack2").Input("values: Tlist").Output("y: int32").Attr("Tlist: list(type)");)cc", "p.cc");
  ASSERT_EQ(scan.ops.size(), 1u);
  EXPECT_TRUE(scan.ops[0].op.inputs.empty());
  ASSERT_EQ(scan.problems.size(), 1u);
  EXPECT_NE(scan.problems[0].find("p.cc:1: Pack2 input 'values: Tlist'"), std::string::npos) << scan.problems[0];
}

// An op whose Python function would be a keyword is reported, not declared:
// opkit.yaml would refuse it (issue 16's input rules).
TEST(AdoptScan, OpsWhosePythonNameIsAKeywordAreReported)
{
  adopt::SourceScan scan = adopt::scan_source(
    "REGISTER_OP(\"Pass\").Output(\"y: int32\");\nREGISTER_OP(\"PassOn\").Output(\"y: int32\");\n", "k.cc");
  ASSERT_EQ(scan.ops.size(), 1u);
  EXPECT_EQ(scan.ops[0].op.name, "PassOn");
  ASSERT_EQ(scan.problems.size(), 1u);
  EXPECT_EQ(scan.problems[0], "k.cc:1: REGISTER_OP(\"Pass\"): TensorFlow names its Python function 'pass', a Python "
                              "keyword, and the library's generated module would not load: not declared");
}

TEST(AdoptScan, ExpandsKernelMacrosWithContinuationsAndTfCall)
{
  const char* text = "#define REGISTER_CPU(T)                                         \\\n"
                     "  REGISTER_KERNEL_BUILDER(                                      \\\n"
                     "      Name(\"Acme>Resampler\").Device(DEVICE_CPU).TypeConstraint<T>(\"T\"), \\\n"
                     "      ResamplerOp<CPUDevice, T>);\n"
                     "REGISTER_CPU(float);\n"
                     "REGISTER_CPU(::tensorflow::int32);\n"
                     "TF_CALL_double(REGISTER_CPU);\n"
                     "TF_CALL_int64(REGISTER_CPU)\n"
                     "#undef REGISTER_CPU\n"
                     "#define REGISTER_CPU(T) REGISTER_KERNEL_BUILDER(Name(\"Other\").Device(DEVICE_CPU), X<T>)\n"
                     "TF_CALL_bool(REGISTER_CPU)\n";
  adopt::SourceScan scan = adopt::scan_source(text, "k.cc");
  EXPECT_EQ(kernel_summary(scan),
            (std::vector<std::string>{"Acme>Resampler CPU T=float", "Acme>Resampler CPU T=int32",
                                      "Acme>Resampler CPU T=double", "Acme>Resampler CPU T=int64", "Other CPU"}));
  EXPECT_EQ(scan.kernels[1].place.line, 6);
  EXPECT_TRUE(scan.problems.empty());
}

TEST(AdoptScan, GpuBlocksGroupsAndDeviceSpellings)
{
  const char* text = R"cc(
#define REGISTER_GPU(T) \
  REGISTER_KERNEL_BUILDER(Name("Op").Device(::tensorflow::DEVICE_GPU).TypeConstraint<T>("T"), OpGpu<T>);
#if GOOGLE_CUDA || TENSORFLOW_USE_ROCM
TF_CALL_GPU_NUMBER_TYPES(REGISTER_GPU);
#endif
#ifndef GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("Op").Device(DEVICE_CPU).TypeConstraint<Eigen::half>("T"), OpCpu);
#else
REGISTER_KERNEL_BUILDER(Name("Op").Device(tensorflow::DEVICE_GPU).TypeConstraint("T", DT_BFLOAT16), OpGpu2);
#endif
#if 0
REGISTER_KERNEL_BUILDER(Name("Disabled").Device(DEVICE_CPU), Nothing);
#endif
REGISTER_KERNEL_BUILDER(Name("Op").Device(DEVICE_GPU).TypeConstraint<std::complex<float>>("T"), OpC);
)cc";
  adopt::SourceScan scan = adopt::scan_source(text, "k.cc");
  EXPECT_EQ(kernel_summary(scan),
            (std::vector<std::string>{"Op GPU cuda T=half", "Op GPU cuda T=float", "Op GPU cuda T=double",
                                      "Op CPU T=half", "Op GPU cuda T=bfloat16", "Op GPU T=complex64"}));
  adopt::SourceScan cu = adopt::scan_source(
    "REGISTER_KERNEL_BUILDER(Name(\"Op\").Device(DEVICE_GPU).TypeConstraint<float>(\"T\"), K);", "k.cu.cc");
  EXPECT_EQ(kernel_summary(cu), (std::vector<std::string>{"Op GPU cuda T=float"}));
}

TEST(AdoptScan, StringifiesPastesAndVariadicMacros)
{
  const char* text = R"cc(
#define OP_NAME "Stringy"
#define REG(NAME, T) REGISTER_KERNEL_BUILDER(Name(#NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), NAME##Op<T>)
#define REG_ALL(...) REGISTER_KERNEL_BUILDER(Name(OP_NAME).Device(DEVICE_CPU), __VA_ARGS__)
REG(Paste, uint8);
REG_ALL(Impl<int, float>);
REGISTER_KERNEL_BUILDER(Name("Unknown").Device(DEVICE_CPU).TypeConstraint<MyType>("T"), K);
REGISTER_OP(kOpName);
)cc";
  adopt::SourceScan scan = adopt::scan_source(text, "m.cc");
  EXPECT_EQ(kernel_summary(scan), (std::vector<std::string>{"Paste CPU T=uint8", "Stringy CPU", "Unknown CPU"}));
  ASSERT_EQ(scan.problems.size(), 2u);
  EXPECT_NE(scan.problems[0].find("m.cc:7: kernel of Unknown: TypeConstraint MyType"), std::string::npos)
    << scan.problems[0];
  EXPECT_NE(scan.problems[1].find("m.cc:8: REGISTER_OP with a name that is not a string literal"), std::string::npos)
    << scan.problems[1];
}

TEST(AdoptScan, MapsCppTypesToDtypes)
{
  const project::AdoptRules& rules = project::adopt_rules();
  for (const auto& [cpp, dtype] :
       std::vector<std::pair<std::string, std::string>>{{"float", "float"},
                                                        {"double", "double"},
                                                        {"int32", "int32"},
                                                        {"::tensorflow::int32", "int32"},
                                                        {"int32_t", "int32"},
                                                        {"int64", "int64"},
                                                        {"int64_t", "int64"},
                                                        {"tensorflow::int64", "int64"},
                                                        {"Eigen::half", "half"},
                                                        {"bool", "bool"},
                                                        {"tstring", "string"},
                                                        {"string", "string"},
                                                        {"std::string", "string"},
                                                        {"tensorflow::tstring", "string"},
                                                        {"uint8", "uint8"},
                                                        {"int8", "int8"},
                                                        {"int16", "int16"},
                                                        {"uint16", "uint16"},
                                                        {"bfloat16", "bfloat16"},
                                                        {"complex64", "complex64"},
                                                        {"std::complex<double>", "complex128"},
                                                        {"MyType", ""}}) {
    EXPECT_EQ(rules.dtype_of(cpp), dtype) << cpp;
  }
  EXPECT_EQ(rules.tf_call_groups.at("GPU_NUMBER_TYPES"), (std::vector<std::string>{"half", "float", "double"}));
}

TEST(AdoptScan, ReportsQuotedIncludesAndWatchedIdentifiersInCodeOnly)
{
  const char* text = "#include \"acme/common/hash.h\"\n"
                     "#include <vector>\n"
                     "// tstring in a comment\n"
                     "const char* s = \"tstring in a string\";\n";
  adopt::SourceScan scan = adopt::scan_source(text, "a.cc", {"tstring"});
  ASSERT_EQ(scan.includes.size(), 1u);
  EXPECT_EQ(scan.includes[0].path, "acme/common/hash.h");
  EXPECT_TRUE(scan.identifiers.empty());
  EXPECT_FALSE(scan.registers);
  scan = adopt::scan_source("auto x = t.flat<tstring>();", "a.cc", {"tstring"});
  EXPECT_EQ(scan.identifiers, (std::vector<std::string>{"tstring"}));
}

TEST(AdoptScan, ReadsTorchLibraryBlocksSchemasAndTheirKernelsDispatchKeys)
{
  adopt::SourceScan scan = adopt::scan_source(R"cc(
#include <torch/library.h>
TORCH_LIBRARY(geo, m) {
  m.def("knn(Tensor pos, int k=8) -> Tensor");  // a schema
  m.def(TORCH_SELECTIVE_SCHEMA("radius(Tensor pos, float r) -> (Tensor, Tensor)"));
  m.def("fps", &fps_cpu);                       // inferred: its kernel is the catch-all
  m.def("broken(Tensor x -> Tensor");
}
TORCH_LIBRARY_IMPL(geo, CPU, m) {
  m.impl("knn", &knn_cpu);
  m.impl("radius", TORCH_FN(radius_cpu));
}
TORCH_LIBRARY_IMPL(geo, Autograd, m) { m.impl("knn", knn_autograd); }
TORCH_LIBRARY_FRAGMENT(geo, m) { m.def("grid(Tensor pos) -> Tensor").def("unused(Tensor a) -> ()"); }
TORCH_LIBRARY(two words, m) {}
)cc",
                                              "csrc/geo.cpp");
  EXPECT_TRUE(scan.registers);
  EXPECT_TRUE(scan.torch);
  std::vector<std::string> ops;
  for (const adopt::FoundOp& op : scan.ops) {
    ops.push_back(op.op.name + " | " + op.op.schema);
  }
  EXPECT_EQ(ops,
            (std::vector<std::string>{"geo::knn | geo::knn(Tensor pos, int k=8) -> Tensor",
                                      "geo::radius | geo::radius(Tensor pos, float r) -> (Tensor, Tensor)",
                                      "geo::fps | ", "geo::broken | ", "geo::grid | geo::grid(Tensor pos) -> Tensor",
                                      "geo::unused | geo::unused(Tensor a) -> ()"}));
  EXPECT_EQ(kernel_summary(scan), (std::vector<std::string>{"geo::fps CompositeImplicitAutograd", "geo::knn CPU",
                                                            "geo::radius CPU", "geo::knn Autograd"}));
  ASSERT_EQ(scan.problems.size(), 2u);
  EXPECT_NE(scan.problems[0].find("csrc/geo.cpp:7: geo::broken: schema not read"), std::string::npos);
  EXPECT_NE(scan.problems[1].find("TORCH_LIBRARY without a namespace name and a block"), std::string::npos);
}

TEST(AdoptScan, AFileScopeIntMainIsAProgramsEntryAndNothingElseIs)
{
  EXPECT_EQ(
    adopt::scan_source("// int main() in a comment\n#include <cstdio>\n\nint main(void) { return 0; }\n", "b.cpp")
      .main_line,
    4);
  EXPECT_EQ(adopt::scan_source("struct Runner {\n  int main(int n) { return n; }\n};\n"
                               "const char* s = \"int main(\";\n#if 0\nint main() {}\n#endif\n",
                               "r.cpp")
              .main_line,
            0);
  EXPECT_EQ(adopt::scan_source("REGISTER_OP(\"A\");\nvoid run() { main(); }\n", "a.cc").main_line, 0);
}
