// The CUDA kernel of {{name}}::zero_out: the CPU kernel's values, computed on
// the GPU on torch's current stream. nvcc compiles it only for a CUDA build of
// torch (PyPI's are), with a CUDA of the major that torch release was built with.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

namespace {

template <typename T>
__global__ void
keep_first(const T* input, T* output)
{
  output[0] = input[0];
}

at::Tensor
zero_out_cuda(const at::Tensor& x)
{
  TORCH_CHECK(x.numel() > 0, "zero_out: the input must have at least one element");
  at::Tensor input = x.contiguous();
  at::Tensor output = at::zeros_like(input);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(input.device().index());
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "zero_out_cuda", [&] {
    keep_first<scalar_t><<<1, 1, 0, stream>>>(input.data_ptr<scalar_t>(), output.data_ptr<scalar_t>());
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return output;
}

} // namespace

TORCH_LIBRARY_IMPL({{name}}, CUDA, m)
{
  m.impl("zero_out", &zero_out_cuda);
}
