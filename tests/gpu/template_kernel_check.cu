// Runs the GPU kernel of `opkit new <name> --template tensorflow-op --cuda`
// (src/<name>_kernels.cu.cc, compiled by `opkit build --tf tensorflow-2.10.1-cuda`)
// on a real GPU: LaunchGpuOp<T>(const Eigen::GpuDevice&, const T*, T*, int64_t)
// from opkit's own object, against a CPU computation of ZeroOut (out[0] = in[0],
// the rest 0), for int32 and float, on sizes around the kernel's block size
// (256) and its grid cap (1024 blocks: the grid-stride loop beyond 262144).
// Exit: 0 all passed, 1 a case failed, 77 no CUDA device.
#define EIGEN_USE_GPU
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_check_common.h"
#include "unsupported/Eigen/CXX11/Tensor"

#ifndef TEMPLATE_NS
#define TEMPLATE_NS gpu_op // the project scripts/gpu-check.sh creates
#endif
#ifndef TEMPLATE_LAUNCH
#define TEMPLATE_LAUNCH LaunchGpuOp
#endif

namespace TEMPLATE_NS {
template<typename T>
void
TEMPLATE_LAUNCH(const Eigen::GpuDevice& device, const T* input, T* output, int64_t n);
} // namespace TEMPLATE_NS

namespace {

template<typename T>
T
InputValue(int64_t i)
{
  // Never 0, so a skipped element (left at 0 by chance) cannot pass as written.
  if (i == 0)
    return static_cast<T>(-37);
  return static_cast<T>((i % 2 ? 1 : -1) * (static_cast<T>(i % 9973) + static_cast<T>(3)) / static_cast<T>(2));
}

template<typename T>
void
RunCase(const Eigen::GpuDevice& device, cudaStream_t stream, int64_t n, const char* type_name)
{
  const std::string name = std::string("template LaunchGpuOp<") + type_name + "> n=" + std::to_string(n);
  std::vector<T> input(n), expected(n);
  for (int64_t i = 0; i < n; ++i)
    input[i] = InputValue<T>(i);
  // The CPU reference of ZeroOut: the first element kept, every other one zero.
  for (int64_t i = 0; i < n; ++i)
    expected[i] = i == 0 ? input[0] : T(0);

  gpucheck::GuardedBuffer<T> in(n, stream), out(n, stream);
  std::string error = !in.error.empty() ? in.error : out.error;
  if (error.empty() && n > 0)
    error =
      gpucheck::Err(cudaMemcpyAsync(in.ptr, input.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream), "copy in");
  if (error.empty()) {
    TEMPLATE_NS::TEMPLATE_LAUNCH<T>(device, in.ptr, out.ptr, n);
    error = gpucheck::Err(cudaGetLastError(), "kernel launch");
  }
  if (error.empty())
    error = gpucheck::Err(cudaStreamSynchronize(stream), "kernel run");
  std::vector<T> got, input_after;
  bool out_guard = false, in_guard = false;
  if (error.empty())
    error = out.Fetch(stream, &got, &out_guard);
  if (error.empty())
    error = in.Fetch(stream, &input_after, &in_guard);
  if (!error.empty()) {
    gpucheck::Report(false, name, error);
    cudaGetLastError(); // clear a sticky-less error for the next case
    return;
  }
  int64_t bad = 0, first_bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) {
      if (first_bad < 0)
        first_bad = i;
      ++bad;
    }
  }
  std::string detail;
  if (bad)
    detail = std::to_string(bad) + " of " + std::to_string(n) + " elements wrong, first at " + std::to_string(first_bad)
             + ": got " + std::to_string(got[first_bad]) + ", expected " + std::to_string(expected[first_bad]);
  else if (!out_guard)
    detail = "wrote past the end of the output";
  else if (!in_guard || std::memcmp(input.data(), input_after.data(), n * sizeof(T)) != 0)
    detail = "changed its input";
  gpucheck::Report(detail.empty(), name, detail);
}

} // namespace

int
main()
{
  if (int rc = gpucheck::RequireDevice("template_kernel_check"))
    return rc;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::printf("FAIL cudaStreamCreate\n");
    return 1;
  }
  {
    Eigen::GpuStreamDevice stream_device(&stream, 0);
    Eigen::GpuDevice device(&stream_device);
    const int64_t sizes[] = {0, 1, 2, 255, 256, 257, 1000, 262143, 262144, 262145, 786439, 1000003, 16777259};
    for (int64_t n : sizes)
      RunCase<int32_t>(device, stream, n, "int32");
    for (int64_t n : sizes)
      RunCase<float>(device, stream, n, "float");
  }
  cudaStreamDestroy(stream);
  const int failures = gpucheck::Failures();
  std::printf("template_kernel_check: %s (%d failed)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
