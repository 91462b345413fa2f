#pragma once

#include <string>
#include <string_view>

namespace opkit::project {

// The identifiers a project derives from the name the user typed.
struct ProjectNames
{
  std::string snake; // file names, library name, Python module: "zero_out"
  std::string camel; // TensorFlow op name and C++ class prefix: "ZeroOut"
};

// Accepts snake_case, kebab-case or CamelCase ("zero_out", "zero-out", "ZeroOut").
// Throws Error(usage) "'NAME': invalid <what>: <rule broken>": empty, a leading
// digit, a character outside [A-Za-z0-9_-], a doubled or trailing separator, a
// C++ or Python keyword.
ProjectNames
derive_names(std::string_view name, std::string_view what = "project name");

// The rule `name` breaks as a project or library name ("" when none); fills `names` when valid.
std::string
name_problem(std::string_view name, ProjectNames* names = nullptr);

// True for a TensorFlow op name, by TensorFlow's own grammar: [A-Z][A-Za-z0-9>]*,
// '>' separating namespaces ("Vendor>Resampler"), or TF's internal "_Name".
bool
is_valid_op_name(std::string_view name);

// The Python function name TensorFlow generates for an op ("ZeroOut" is
// zero_out, "Vendor>OpName" vendor_op_name), as its GenerateLowerCaseOpName does.
std::string
tf_python_name(std::string_view op_name);

// Why a valid op name still breaks the op's Python module ("" when it does
// not): its Python name is a Python keyword, or one TensorFlow skips.
std::string
op_name_problem(std::string_view op_name);

// True for a TensorFlow arg or attr name: [a-z][a-z0-9_]* (attrs may also be a single capital like T).
bool
is_valid_arg_name(std::string_view name);

} // namespace opkit::project
