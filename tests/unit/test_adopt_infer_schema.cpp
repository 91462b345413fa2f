// The schema torch infers from a registered C++ function (adopt/infer_schema.cpp),
// read through adopt::scan_source: RegisterOperators().op("t::f", &f) after `declaration`.
#include "opkit/adopt/scan.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

// The schema inferred for op t::f registered with function f declared as `declaration`.
std::string
inferred(const std::string& declaration)
{
  adopt::SourceScan scan = adopt::scan_source("#include <torch/torch.h>\n" + declaration
                                                + "\nstatic auto r = torch::RegisterOperators().op(\"t::f\", &f);\n",
                                              "f.cpp");
  EXPECT_EQ(scan.ops.size(), 1u);
  if (scan.ops.empty()) {
    return "?";
  }
  EXPECT_EQ(scan.ops[0].inferred, !scan.ops[0].op.schema.empty());
  return scan.ops[0].op.schema;
}

} // namespace

TEST(AdoptInferSchema, TensorsIntsFloatsAndBoolsByValueAndReference)
{
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a, const torch::Tensor& b, Tensor& c, int64_t n, double x, bool flag) "
                     "{ return a; }"),
            "t::f(Tensor _0, Tensor _1, Tensor _2, int _3, float _4, bool _5) -> Tensor _0");
  EXPECT_EQ(inferred("static torch::Tensor f(const at::Tensor &src);"), "t::f(Tensor _0) -> Tensor _0");
  EXPECT_EQ(inferred("inline at::Tensor& f(at::Tensor& out, std::int64_t) { return out; }"),
            "t::f(Tensor _0, int _1) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a, int64_t dim = -1) { return a; }"),
            "t::f(Tensor _0, int _1) -> Tensor _0")
    << "a C++ default is no schema default";
}

TEST(AdoptInferSchema, OptionalsListsAndTheOtherScalarTypes)
{
  EXPECT_EQ(inferred("at::Tensor f(const at::Tensor& src, const at::Tensor& index, int64_t dim,\n"
                     "             c10::optional<torch::Tensor> out, c10::optional<int64_t> dim_size);"),
            "t::f(Tensor _0, Tensor _1, int _2, Tensor? _3, int? _4) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(const std::optional<at::Tensor>& w, torch::optional<double> eps, "
                     "at::optional<bool> b);"),
            "t::f(Tensor? _0, float? _1, bool? _2) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(std::vector<at::Tensor> xs, at::TensorList ys, c10::ArrayRef<at::Tensor> zs, "
                     "const std::vector<int64_t>& sizes, at::IntArrayRef strides, c10::IntArrayRef pad);"),
            "t::f(Tensor[] _0, Tensor[] _1, Tensor[] _2, int[] _3, int[] _4, int[] _5) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(at::Scalar s, c10::Scalar t, c10::ScalarType d, at::ScalarType e, std::string name, "
                     "c10::string_view mode);"),
            "t::f(Scalar _0, Scalar _1, ScalarType _2, ScalarType _3, str _4, str _5) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(c10::List<c10::optional<at::Tensor>> xs, at::OptionalIntArrayRef size);"),
            "t::f(Tensor?[] _0, int[]? _1) -> Tensor _0");
}

TEST(AdoptInferSchema, AsTheRealDispatcherPrintsThem)
{
  // These functions, registered with RegisterOperators().op("t::f", &f), are
  // printed so by torch 2.5.1's and 2.8.0's dispatcher (checked once by hand).
  EXPECT_EQ(inferred("at::Tensor f(std::string s, c10::string_view v, at::Scalar sc, c10::ScalarType st, torch::Dtype "
                     "dt, at::Device d, c10::SymInt si);"),
            "t::f(str _0, str _1, Scalar _2, ScalarType _3, ScalarType _4, Device _5, SymInt _6) -> Tensor _0");
  EXPECT_EQ(inferred("at::Tensor f(at::TensorList a, at::IntArrayRef b, at::OptionalIntArrayRef c, c10::SymIntArrayRef "
                     "d, std::vector<at::Tensor> e, std::vector<int64_t> f, c10::List<c10::optional<at::Tensor>> g, "
                     "c10::ArrayRef<double> h);"),
            "t::f(Tensor[] _0, int[] _1, int[]? _2, SymInt[] _3, Tensor[] _4, int[] _5, Tensor?[] _6, float[] _7) -> "
            "Tensor _0");
  EXPECT_EQ(inferred("std::tuple<at::Tensor, c10::optional<at::Tensor>, int64_t> f(c10::optional<at::Tensor> a, "
                     "c10::optional<int64_t> b, std::optional<double> c, c10::optional<at::IntArrayRef> d);"),
            "t::f(Tensor? _0, int? _1, float? _2, int[]? _3) -> (Tensor _0, Tensor? _1, int _2)");
}

TEST(AdoptInferSchema, TupleVoidAndListReturns)
{
  EXPECT_EQ(inferred("std::tuple<at::Tensor, at::Tensor> f(at::Tensor src) { return {src, src}; }"),
            "t::f(Tensor _0) -> (Tensor _0, Tensor _1)");
  EXPECT_EQ(inferred("std::tuple<torch::Tensor, c10::optional<torch::Tensor>, int64_t> f(at::Tensor src);"),
            "t::f(Tensor _0) -> (Tensor _0, Tensor? _1, int _2)");
  EXPECT_EQ(inferred("void f(at::Tensor out) {}"), "t::f(Tensor _0) -> ()");
  EXPECT_EQ(inferred("std::vector<at::Tensor> f(void);"), "t::f() -> Tensor[] _0");
}

TEST(AdoptInferSchema, UnknownTypesMissingOrOverloadedFunctionsInferNothing)
{
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a, int n);"), "") << "int is no schema type (torch refuses it)";
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a, float x);"), "");
  EXPECT_EQ(inferred("at::Tensor f(const at::Tensor* a);"), "");
  EXPECT_EQ(inferred("MyResult f(at::Tensor a);"), "");
  EXPECT_EQ(inferred("at::Tensor f(std::map<int64_t, at::Tensor> m);"), "");
  EXPECT_EQ(inferred("at::Tensor f(std::tuple<at::Tensor, at::Tensor> pair);"), "") << "a tuple argument";
  EXPECT_EQ(inferred("at::Tensor g(at::Tensor a);"), "") << "f is in another file";
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a);\nat::Tensor f(at::Tensor a, int64_t n);"), "") << "overloaded";
  // Calls, and a declaration and its definition agreeing.
  EXPECT_EQ(inferred("at::Tensor f(at::Tensor a);\nat::Tensor g(at::Tensor a) { return f(a); }\n"
                     "at::Tensor h(at::Tensor a) { at::Tensor b = f(a); f(b); return b; }\n"
                     "at::Tensor f(at::Tensor a) { return a; }"),
            "t::f(Tensor _0) -> Tensor _0");
}
