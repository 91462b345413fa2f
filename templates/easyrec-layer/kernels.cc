// The CPU kernel of {{op_name}}: the share of each query's terms found in its doc.
#include <string>
#include <unordered_set>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/lib/core/errors.h"

namespace {{name}} {

using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;

// The C++ type of a DT_STRING element: std::string in TF 1.x, tensorflow::tstring
// from 2.x on. Both give data() and size(), so one source builds for every version.
using Text = ::tensorflow::EnumToDataType<::tensorflow::DT_STRING>::Type;

// Calls `term(begin, size)` for every non-empty term of text split at separator.
template <typename F>
void ForEachTerm(const char* data, size_t size, const std::string& separator, F term) {
  size_t start = 0;
  while (start <= size) {
    size_t end = start;
    while (end < size && (end + separator.size() > size ||
                          std::string::traits_type::compare(data + end, separator.data(),
                                                            separator.size()) != 0)) {
      ++end;
    }
    if (end > start) term(data + start, end - start);
    start = end + separator.size();
  }
}

float TermMatchRatio(const Text& query, const Text& doc, const std::string& separator) {
  std::unordered_set<std::string> doc_terms;
  ForEachTerm(doc.data(), doc.size(), separator,
              [&](const char* term, size_t n) { doc_terms.emplace(term, n); });
  int64_t terms = 0;
  int64_t found = 0;
  ForEachTerm(query.data(), query.size(), separator, [&](const char* term, size_t n) {
    ++terms;
    if (doc_terms.count(std::string(term, n)) != 0) ++found;
  });
  return terms == 0 ? 0.0f : static_cast<float>(found) / static_cast<float>(terms);
}

class {{op_name}}Op : public OpKernel {
 public:
  explicit {{op_name}}Op(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("separator", &separator_));
    OP_REQUIRES(context, !separator_.empty(),
                ::tensorflow::errors::InvalidArgument("separator must not be empty"));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& query = context->input(0);
    const Tensor& doc = context->input(1);
    OP_REQUIRES(context, query.shape() == doc.shape(),
                ::tensorflow::errors::InvalidArgument(
                    "query and doc must have the same shape, got ", query.shape().DebugString(),
                    " and ", doc.shape().DebugString()));
    Tensor* ratio = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, query.shape(), &ratio));
    auto queries = query.flat<Text>();
    auto docs = doc.flat<Text>();
    auto out = ratio->flat<float>();
    for (int64_t i = 0; i < queries.size(); ++i) {
      out(i) = TermMatchRatio(queries(i), docs(i), separator_);
    }
  }

 private:
  std::string separator_;
};

REGISTER_KERNEL_BUILDER(Name("{{op_name}}").Device(::tensorflow::DEVICE_CPU), {{op_name}}Op);

}  // namespace {{name}}
