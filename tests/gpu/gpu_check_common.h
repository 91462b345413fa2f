// Shared helpers of the GPU harnesses (tests/gpu/*.cu): they link the CUDA
// objects `opkit build` compiled and run them on a real GPU (scripts/gpu-check.sh).
#ifndef OPKIT_TESTS_GPU_GPU_CHECK_COMMON_H_
#define OPKIT_TESTS_GPU_GPU_CHECK_COMMON_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace gpucheck {

// Exit status of a harness that found no usable CUDA device (nothing ran).
constexpr int kNoDevice = 77;
// Bytes after each output buffer that a kernel must leave alone.
constexpr size_t kGuardBytes = 64 * 1024;
constexpr unsigned char kSentinel = 0xA5;

inline int&
Failures()
{
  static int failures = 0;
  return failures;
}

inline void
Report(bool ok, const std::string& name, const std::string& detail)
{
  if (ok) {
    std::printf("PASS %s\n", name.c_str());
  } else {
    ++Failures();
    std::printf("FAIL %s: %s\n", name.c_str(), detail.c_str());
  }
  std::fflush(stdout);
}

// Prints the device and returns 0, or prints "no CUDA device" and returns kNoDevice.
inline int
RequireDevice(const char* harness)
{
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("%s: SKIP: no CUDA device (%s)\n", harness,
                status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
    return kNoDevice;
  }
  cudaDeviceProp prop;
  status = cudaGetDeviceProperties(&prop, 0);
  if (status != cudaSuccess) {
    std::printf("%s: SKIP: no CUDA device (cudaGetDeviceProperties: %s)\n", harness, cudaGetErrorString(status));
    return kNoDevice;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("%s: device 0: %s, compute capability %d.%d, %d SMs, driver API %d, runtime %d (static)\n", harness,
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, driver, runtime);
  std::fflush(stdout);
  return 0;
}

// A CUDA call's error as text ("" when it succeeded).
inline std::string
Err(cudaError_t status, const char* what)
{
  if (status == cudaSuccess)
    return "";
  return std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
}

// Device buffer of n elements followed by kGuardBytes of sentinel bytes.
template<typename T>
struct GuardedBuffer
{
  T* ptr = nullptr;
  size_t n = 0;
  std::string error;

  GuardedBuffer(size_t count, cudaStream_t stream)
    : n(count)
  {
    error = Err(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T) + kGuardBytes), "cudaMalloc");
    if (error.empty())
      error = Err(cudaMemsetAsync(ptr, kSentinel, n * sizeof(T) + kGuardBytes, stream), "memset");
  }
  ~GuardedBuffer()
  {
    if (ptr)
      cudaFree(ptr);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  // Copies the n values and the guard back; "" or the error.
  std::string Fetch(cudaStream_t stream, std::vector<T>* values, bool* guard_intact)
  {
    values->assign(n, T());
    std::vector<unsigned char> guard(kGuardBytes);
    std::string e = Err(cudaMemcpyAsync(values->data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "copy");
    if (e.empty())
      e = Err(cudaMemcpyAsync(guard.data(), reinterpret_cast<unsigned char*>(ptr) + n * sizeof(T), kGuardBytes,
                              cudaMemcpyDeviceToHost, stream),
              "copy guard");
    if (e.empty())
      e = Err(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    *guard_intact = true;
    for (unsigned char b : guard)
      *guard_intact = *guard_intact && b == kSentinel;
    return e;
  }
};

// Small deterministic generator (independent of the code under test).
struct Lcg
{
  uint64_t state;
  explicit Lcg(uint64_t seed)
    : state(seed * 6364136223846793005ULL + 1442695040888963407ULL)
  {
  }
  uint32_t Next()
  {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  }
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * (Next() / 2147483648.0); }
};

} // namespace gpucheck

#endif // OPKIT_TESTS_GPU_GPU_CHECK_COMMON_H_
