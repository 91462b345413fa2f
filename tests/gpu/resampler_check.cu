// Runs the GPU functor of tests/fixtures/acme_ops (acme/resampler/resampler_kernels.cu.cc,
// ResamplerFunctor<Eigen::GpuDevice, float>, which uses TensorFlow's gpu_kernel_helper.h),
// compiled by `opkit build --tf tensorflow-2.10.1-cuda`, on a real GPU, against an
// independent CPU computation (in double) of linear resampling with clamped ends.
// Its launch config is TF's GetGpuLaunchConfig: 1024 threads per block, at most one
// block per multiprocessor, so totals beyond SMs*1024 go through the grid-stride loop.
// Exit: 0 all passed, 1 a case failed, 77 no CUDA device.
#define EIGEN_USE_GPU
#include <cmath>
#include <string>
#include <vector>

#include "acme/resampler/resampler_kernels.h"
#include "gpu_check_common.h"

namespace {

using Functor = tensorflow::acme::ResamplerFunctor<Eigen::GpuDevice, float>;

// Linear interpolation of row[0..width) at position p, clamped to the row's ends;
// *scale: the magnitude of the values it mixes (float rounding is relative to it).
double
Reference(const float* row, int width, float p, double* scale)
{
  const double pos = p;
  if (pos <= 0.0)
    return *scale = std::fabs(row[0]), row[0];
  if (pos >= static_cast<double>(width - 1))
    return *scale = std::fabs(row[width - 1]), row[width - 1];
  const double left = std::floor(pos);
  const int l = static_cast<int>(left);
  const double t = pos - left;
  *scale = std::fabs(row[l]) + std::fabs(row[l + 1]);
  return static_cast<double>(row[l]) + t * (static_cast<double>(row[l + 1]) - static_cast<double>(row[l]));
}

void
RunCase(const Eigen::GpuDevice& device, cudaStream_t stream, int batch, int width, int samples)
{
  const std::string name = "resampler batch=" + std::to_string(batch) + " width=" + std::to_string(width)
                           + " samples=" + std::to_string(samples) + " ("
                           + std::to_string(static_cast<long long>(batch) * samples) + " outputs)";
  const size_t n_data = static_cast<size_t>(batch) * width, n_out = static_cast<size_t>(batch) * samples;
  gpucheck::Lcg rng(static_cast<uint64_t>(batch) * 1000003u + width * 31u + samples);
  std::vector<float> data(n_data), warp(n_out);
  for (auto& v : data)
    v = static_cast<float>(rng.Uniform(-100.0, 100.0));
  for (size_t i = 0; i < n_out; ++i) {
    // Fractional positions, some outside the row, and exact integers and ends.
    if (i % 13 == 0)
      warp[i] = 0.0f;
    else if (i % 11 == 0)
      warp[i] = static_cast<float>(width - 1);
    else if (i % 7 == 0)
      warp[i] = static_cast<float>(rng.Next() % (width + 2)) - 1.0f;
    else
      warp[i] = static_cast<float>(rng.Uniform(-2.0, width + 1.0));
  }

  gpucheck::GuardedBuffer<float> d_data(n_data, stream), d_warp(n_out, stream), d_out(n_out, stream);
  std::string error = !d_data.error.empty() ? d_data.error : !d_warp.error.empty() ? d_warp.error : d_out.error;
  if (error.empty() && n_data)
    error = gpucheck::Err(
      cudaMemcpyAsync(d_data.ptr, data.data(), n_data * sizeof(float), cudaMemcpyHostToDevice, stream), "copy data");
  if (error.empty() && n_out)
    error = gpucheck::Err(
      cudaMemcpyAsync(d_warp.ptr, warp.data(), n_out * sizeof(float), cudaMemcpyHostToDevice, stream), "copy warp");
  if (error.empty()) {
    Functor()(device, d_data.ptr, d_warp.ptr, d_out.ptr, batch, width, samples);
    error = gpucheck::Err(cudaGetLastError(), "kernel launch");
  }
  if (error.empty())
    error = gpucheck::Err(cudaStreamSynchronize(stream), "kernel run");
  std::vector<float> got;
  bool guard = false;
  if (error.empty())
    error = d_out.Fetch(stream, &got, &guard);
  if (!error.empty()) {
    gpucheck::Report(false, name, error);
    return;
  }
  size_t bad = 0, first_bad = 0;
  double worst = 0.0, first_expected = 0.0;
  for (size_t i = 0; i < n_out; ++i) {
    const size_t row = i / samples;
    double scale = 0.0;
    const double expected = Reference(data.data() + row * width, width, warp[i], &scale);
    const double error_abs = std::fabs(static_cast<double>(got[i]) - expected);
    // A few float roundings of the mixed values (FLT_EPSILON = 1.19e-7); !(<=) catches NaN.
    if (!(error_abs <= 8 * 1.1920929e-7 * scale + 1e-30)) {
      if (!bad)
        first_bad = i, first_expected = expected;
      ++bad;
    }
    if (error_abs > worst)
      worst = error_abs;
  }
  std::string detail;
  if (bad)
    detail = std::to_string(bad) + " of " + std::to_string(n_out) + " wrong, first at " + std::to_string(first_bad)
             + " (warp " + std::to_string(warp[first_bad]) + "): got " + std::to_string(got[first_bad]) + ", expected "
             + std::to_string(first_expected);
  else if (!guard)
    detail = "wrote past the end of the output";
  char worst_text[64];
  std::snprintf(worst_text, sizeof worst_text, " [max abs error %.3g]", worst);
  gpucheck::Report(detail.empty(), name + (bad ? "" : worst_text), detail);
}

} // namespace

int
main()
{
  if (int rc = gpucheck::RequireDevice("resampler_check"))
    return rc;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::printf("FAIL cudaStreamCreate\n");
    return 1;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  {
    Eigen::GpuStreamDevice stream_device(&stream, 0);
    Eigen::GpuDevice device(&stream_device);
    struct Shape
    {
      int batch, width, samples;
    };
    const int one_wave = sms * 1024; // the functor's whole grid: one block of 1024 per SM
    const Shape shapes[] = {
      {0, 8, 16},             // 0 outputs (no batch): the functor returns before launching
      {4, 8, 0},              // 0 outputs (no samples)
      {1, 1, 1},              // 1 output, a row of one
      {1, 2, 1},              // 1 output
      {3, 17, 333},           // 999: not a multiple of the block (1024)
      {2, 5, 1024},           // 2048: two whole blocks
      {1, 100, one_wave},     // exactly one full grid
      {1, 257, one_wave + 7}, // one grid and 7 more: the grid-stride loop
      {64, 1000, 8193},       // 524352 > 1024*256
      {256, 4096, 16411},     // 4201216: many trips round the loop
    };
    for (const Shape& s : shapes)
      RunCase(device, stream, s.batch, s.width, s.samples);
  }
  cudaStreamDestroy(stream);
  const int failures = gpucheck::Failures();
  std::printf("resampler_check: %s (%d failed)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
