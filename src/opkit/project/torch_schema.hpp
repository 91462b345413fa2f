#pragma once

// PyTorch's operator schema grammar, as TORCH_LIBRARY's m.def() takes it and
// the dispatcher prints it: `ns::name[.overload](Type arg[=default], *, ...) -> Ret`
// with Ret one type, `(Type [name], ...)` or `()`. Types are a name (Tensor,
// int, float, bool, str, Scalar, SymInt, ScalarType, ...) with an optional
// alias annotation `(a!)`, list suffix `[]`/`[N]` and `?` (optional), in
// either order of the last two. opkit reads it to name an op's arguments and
// results in test vectors, and prints it back in one canonical text to compare
// what opkit.yaml declares with what the library registered.
#include "opkit/project/attr_spec.hpp" // SpecError

#include <string>
#include <string_view>
#include <vector>

namespace opkit::project {

struct TorchArg
{
  std::string type;          // as written, spaces dropped: "Tensor", "Tensor(a!)", "int[]?", "Tensor?[]"
  std::string name;          // "" for an unnamed return
  std::string default_value; // as written, spaces dropped; "" when none
  bool keyword_only = false; // after `*`
  // The type without its alias annotation: "Tensor", "int[]?", "Tensor?[]".
  std::string base_type() const;
  bool is_tensor() const;   // Tensor or Tensor? (one tensor)
  bool is_tensors() const;  // Tensor[] or Tensor?[] (a list of them)
  bool may_omit() const;    // has a default, or its type ends in `?`
  bool is_optional() const; // its type ends in `?` (`Tensor?`, `int[]?`): it takes None
  bool is_mutated() const;  // its alias annotation ends in `!` (`Tensor(a!)`): the op writes into it
};

struct TorchSchema
{
  std::string name; // "ns::op" or "ns::op.overload", as torch.ops and opkit.lock name it
  std::vector<TorchArg> args;
  std::vector<TorchArg> returns;
};

// Throws SpecError (offsets into `text`) for anything else, and for a name
// without a namespace (an extension's op always has one).
TorchSchema
parse_torch_schema(std::string_view text);

// The canonical text, as torch's FunctionSchema prints it: `ns::op(Tensor x,
// int dim=-1, *, bool keep=False) -> (Tensor, Tensor)`, one result without
// parentheses; parsing it again gives the same schema.
std::string
render_torch_schema(const TorchSchema& schema);

// The name test vectors give each result: its own name, else `output` (one
// result) or `output0`, `output1`, ... (several).
std::vector<std::string>
torch_result_names(const TorchSchema& schema);

} // namespace opkit::project
