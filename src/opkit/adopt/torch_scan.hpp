#pragma once

// torch's registrations, read from a file's expanded code: TORCH_LIBRARY
// blocks, torch::RegisterOperators chains, and the schema torch infers from a
// C++ function registered without one. Internal to adopt/scan.cpp,
// adopt/torch_scan.cpp and adopt/infer_schema.cpp: nothing else includes this file.

#include "opkit/adopt/preprocess.hpp"
#include "opkit/adopt/scan.hpp"

#include <string>
#include <vector>

namespace opkit::adopt::torch_scan_detail {

using preprocess_detail::Token;

// TORCH_LIBRARY(ns, m) { m.def("op(Tensor x) -> Tensor"); m.def("op2", &f); }
// (TORCH_LIBRARY_FRAGMENT too); `impl`: TORCH_LIBRARY_IMPL(ns, CPU, m) {
// m.impl("op", &cpu_kernel); }. `at` is the macro's name.
void
read_torch_library(const std::vector<Token>& code, size_t at, bool impl, SourceScan& scan);

// torch::RegisterOperators() (c10:: too) and its .op(...) chain:
// .op("ns::op", &f), .op("ns::op(Tensor x) -> Tensor", &f),
// .op(RegisterOperators::options().schema("...").kernel<...>(DispatchKey::CPU)).
// `at` is the RegisterOperators identifier (one followed by `::` is not read).
void
read_register_operators(const std::vector<Token>& code, size_t at, SourceScan& scan);

// PYBIND11_MODULE(name, m) { m.def("f", &f, ...); }: the file is a Python
// module's (scan.module_code, module_name unless TORCH_EXTENSION_NAME), whose
// functions are scan.functions, each with the schema torch would infer from f.
void
read_python_module(const std::vector<Token>& code, size_t at, SourceScan& scan);

// The schema torch infers for op `name` ("ns::op") from the C++ function
// `function` defined or declared in `code` (configs/adopt/torch_cpp_types.yaml):
// "ns::op(Tensor _0, int? _1) -> Tensor _0". "" when the function is not
// there, is overloaded, or takes or returns a type the table does not name.
std::string
infer_torch_schema(const std::vector<Token>& code, const std::string& function, const std::string& name);

} // namespace opkit::adopt::torch_scan_detail
