// Autograd for {{name}}::zero_out. The op is linear: d(out)/d(x) is 1 at the
// first element and 0 elsewhere, so the gradient of x is zero_out applied to
// the gradient of the output.
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

namespace {

at::Tensor
call_zero_out(const at::Tensor& x)
{
  static auto op =
    c10::Dispatcher::singleton().findSchemaOrThrow("{{name}}::zero_out", "").typed<at::Tensor(const at::Tensor&)>();
  return op.call(x);
}

class ZeroOutFunction : public torch::autograd::Function<ZeroOutFunction>
{
public:
  static at::Tensor forward(torch::autograd::AutogradContext* /*ctx*/, const at::Tensor& x)
  {
    at::AutoDispatchBelowADInplaceOrView below; // the device kernel, not this one again
    return call_zero_out(x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* /*ctx*/,
                                                 torch::autograd::variable_list grads)
  {
    return {call_zero_out(grads[0])};
  }
};

at::Tensor
zero_out_autograd(const at::Tensor& x)
{
  return ZeroOutFunction::apply(x);
}

} // namespace

TORCH_LIBRARY_IMPL({{name}}, Autograd, m)
{
  m.impl("zero_out", &zero_out_autograd);
}
