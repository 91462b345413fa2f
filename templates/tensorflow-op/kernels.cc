// CPU kernels of {{op_name}}, one per allowed type of T.{{#cuda}}
// With GOOGLE_CUDA (opkit builds --cuda projects with it), GPU kernels too:
// {{name}}_kernels.cu.cc holds the device code nvcc compiles.{{/cuda}}
{{#cuda}}
#if GOOGLE_CUDA
#define EIGEN_USE_GPU
#endif
{{/cuda}}
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"

namespace {{name}} {

using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;

template <typename T>
class {{op_name}}Op : public OpKernel {
 public:
  explicit {{op_name}}Op(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<T>();
    Tensor* output_tensor = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(), &output_tensor));
    auto output = output_tensor->flat<T>();
    const int64_t n = input.size();
    for (int64_t i = 0; i < n; ++i) {
      output(i) = i == 0 ? input(0) : T(0);
    }
  }
};

#define REGISTER_CPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("{{op_name}}").Device(::tensorflow::DEVICE_CPU).TypeConstraint<T>("T"), \
      {{op_name}}Op<T>)

REGISTER_CPU(::tensorflow::int32);
REGISTER_CPU(float);

#undef REGISTER_CPU
{{#cuda}}

#if GOOGLE_CUDA
// Defined in {{name}}_kernels.cu.cc, instantiated there for each type.
template <typename T>
void Launch{{op_name}}(const Eigen::GpuDevice& device, const T* input, T* output, int64_t n);

template <typename T>
class {{op_name}}GpuOp : public OpKernel {
 public:
  explicit {{op_name}}GpuOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, input.shape(), &output));
    Launch{{op_name}}<T>(context->eigen_device<Eigen::GpuDevice>(), input.flat<T>().data(),
                         output->flat<T>().data(), input.NumElements());
  }
};

#define REGISTER_GPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("{{op_name}}").Device(::tensorflow::DEVICE_GPU).TypeConstraint<T>("T"), \
      {{op_name}}GpuOp<T>)

REGISTER_GPU(::tensorflow::int32);
REGISTER_GPU(float);

#undef REGISTER_GPU
#endif  // GOOGLE_CUDA
{{/cuda}}

}  // namespace {{name}}
