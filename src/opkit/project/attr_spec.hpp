#pragma once

// TensorFlow's REGISTER_OP grammar for attrs and args, as opkit reads and
// writes it: `clip: float = 100.0`, `data_format: {'NHWC', 'NCHW'} = 'NHWC'`,
// `n: int >= 1`, `T: {float, int32} = DT_FLOAT`, `x: Ref(N * T)`. Values are
// kept in one canonical text (the probe prints TensorFlow's registry in the
// same form): `100`, `"NHWC"`, `float`, `[1, 2]`, so two specs compare as text.
#include "opkit/project/manifest.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opkit::project {

// A spec that does not parse: `offset` is the byte of the spec where it went wrong.
class SpecError : public std::runtime_error
{
public:
  SpecError(size_t at, const std::string& cause)
    : std::runtime_error(cause)
    , offset(at)
  {
  }
  size_t offset;
};

// `name: type [>= minimum] [= default]`; type is string, int, float, bool,
// type, shape, tensor, func, an enum `{'a', 'b'}` (strings) or `{float, int32}`
// (dtypes, `DT_FLOAT` or `float`), or list(...) of one. Throws SpecError.
OpAttr
parse_attr_spec(std::string_view spec);

// The canonical spec: `data_format: {"NHWC", "NCHW"} = "NHWC"`; parses back to the same attr.
std::string
render_attr_spec(const OpAttr& attr);

// The attr's type as the spec writes it: `{"NHWC", "NCHW"}`, `list({float, int32})`, `int`.
std::string
render_attr_type(const OpAttr& attr);

// `name: [Ref(][N * ]T[)]`, T a dtype, a type attr or a type-list attr. Throws SpecError.
OpArg
parse_arg_spec(std::string_view spec);

// The canonical `x: Ref(N * T)`.
std::string
render_arg_spec(const OpArg& arg);

// Args as `a: T, b: N * int32`.
std::string
render_arg_specs(const std::vector<OpArg>& args);

// A value of an attr of `type` in canonical form (`100.0` -> `100`, `'x'` -> `"x"`,
// `DT_FLOAT` -> `float`, `[1,2]` -> `[1, 2]`). Throws SpecError (offsets into `text`).
std::string
canonical_value(const std::string& type, std::string_view text);

// A float as the shortest text that reads back as the same float (%g, 6 to 9 digits).
std::string
float_text(float value);

// Double-quoted, with \" \\ \n \t \r and other bytes outside printable ASCII as octal \ooo.
std::string
quoted_text(std::string_view text);

} // namespace opkit::project
