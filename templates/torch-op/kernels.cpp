// The CPU kernel of {{name}}::zero_out.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/library.h>

namespace {

at::Tensor
zero_out_cpu(const at::Tensor& x)
{
  TORCH_CHECK(x.numel() > 0, "zero_out: the input must have at least one element");
  at::Tensor input = x.contiguous();
  at::Tensor output = at::zeros_like(input);
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "zero_out_cpu",
                             [&] { output.data_ptr<scalar_t>()[0] = input.data_ptr<scalar_t>()[0]; });
  return output;
}

} // namespace

TORCH_LIBRARY_IMPL({{name}}, CPU, m)
{
  m.impl("zero_out", &zero_out_cpu);
}
