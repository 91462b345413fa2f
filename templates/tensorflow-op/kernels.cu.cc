// GPU kernel of {{op_name}}: device code, compiled by nvcc with the TF
// version's own -std and _GLIBCXX_USE_CXX11_ABI (opkit build passes them).
#if GOOGLE_CUDA
#define EIGEN_USE_GPU

#include <cstdint>

#include "unsupported/Eigen/CXX11/Tensor"

namespace {{name}} {
namespace {

template <typename T>
__global__ void {{op_name}}Kernel(const T* input, T* output, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    output[i] = i == 0 ? input[0] : T(0);
  }
}

}  // namespace

template <typename T>
void Launch{{op_name}}(const Eigen::GpuDevice& device, const T* input, T* output, int64_t n) {
  const int threads = 256;
  const int blocks = static_cast<int>(n > 0 ? (n + threads - 1) / threads : 1);
  // The op's own stream, so the kernel is ordered with the rest of the graph.
  {{op_name}}Kernel<T><<<blocks < 1024 ? blocks : 1024, threads, 0, device.stream()>>>(input, output, n);
}

template void Launch{{op_name}}<int32_t>(const Eigen::GpuDevice&, const int32_t*, int32_t*, int64_t);
template void Launch{{op_name}}<float>(const Eigen::GpuDevice&, const float*, float*, int64_t);

}  // namespace {{name}}
#endif  // GOOGLE_CUDA
