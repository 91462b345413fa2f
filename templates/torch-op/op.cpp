// The operator's schema: what `torch.ops.{{name}}.zero_out` takes and returns.
// Kernels for each device, and autograd, are registered in their own files
// under the same namespace.
#include <torch/library.h>

TORCH_LIBRARY({{name}}, m)
{
  // Keeps the first element of x and zeroes the rest; the result has x's shape and dtype.
  m.def("zero_out(Tensor x) -> Tensor");
}
