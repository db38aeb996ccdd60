// oxinfer SDK: a checkpoint's safetensors, opened and checked by the host
// (one file, a sharded index, or the diffusers names), tensors looked up and
// shape-checked with messages that name the file and the tensor.
//
//   OXI_ASSIGN_OR_RETURN(sdk::Weights w, sdk::Weights::Open(model_dir, /*mmap=*/true));
//   OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t,
//                        w.Get("model.embed_tokens.weight", {vocab, hidden}));
//   // t->data, t->dtype (F32 / BF16 / F16 ...), t->size
#ifndef OXINFER_SDK_WEIGHTS_HPP_
#define OXINFER_SDK_WEIGHTS_HPP_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oxinfer/abi_common.h"
#include "oxinfer/dtype.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"
#include "oxinfer/sdk/weight_recorder.hpp"

namespace oxinfer {
namespace sdk {

inline std::string ShapeString(const int64_t* shape, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
inline std::string ShapeString(const oxi_weight_tensor& t) { return ShapeString(t.shape, t.ndim); }

inline int64_t NumElements(const oxi_weight_tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

inline bool IsFloatType(int32_t dtype) {
  return dtype == OXI_DTYPE_F32 || dtype == OXI_DTYPE_BF16 || dtype == OXI_DTYPE_F16;
}

// Element i of a float-typed (F32 / BF16 / F16) array as float.
inline float LoadFloat(const void* data, int32_t dtype, int64_t i) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (dtype == OXI_DTYPE_F32) {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p + 2 * i, 2);
  return dtype == OXI_DTYPE_BF16 ? oxi_bf16_to_f32(h) : oxi_f16_to_f32(h);
}

class Weights {
 public:
  Weights() = default;

  // A folder (model.safetensors[.index.json], or the diffusers names) or one
  // .safetensors file.
  static StatusOr<Weights> Open(const std::string& path, bool use_mmap,
                                const oxi_host_services* host = Host()) {
    if (!OXI_HOST_HAS(host, weights_open) || !OXI_HOST_HAS(host, weights_close)) {
      return UnimplementedError("the host offers no safetensors reader");
    }
    const oxi_weights* w = nullptr;
    char error[1024] = {};
    const int32_t rc =
        host->weights_open(path.c_str(), use_mmap ? OXI_WEIGHTS_MMAP : 0u, &w, error, sizeof error);
    if (rc != OXI_OK || w == nullptr) {
      return Status(rc == OXI_OK ? OXI_INTERNAL : rc,
                    error[0] ? std::string(error) : path + ": cannot open the weights");
    }
    Weights out;
    auto close_fn = host->weights_close;
    out.w_ =
        std::shared_ptr<const oxi_weights>(w, [close_fn](const oxi_weights* p) { close_fn(p); });
    out.release_ = OXI_HOST_HAS(host, weights_release) ? host->weights_release : nullptr;
    return out;
  }

  bool is_open() const { return w_ != nullptr; }
  std::string source() const { return w_ && w_->source ? w_->source : ""; }
  int64_t size() const { return w_ ? w_->n_tensors : 0; }
  const oxi_weight_tensor& tensor(int64_t i) const { return w_->tensors[i]; }

  // nullptr when absent.
  const oxi_weight_tensor* Find(std::string_view name) const {
    if (!w_) return nullptr;
    int64_t lo = 0, hi = w_->n_tensors;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      const int c = name.compare(w_->tensors[mid].name);
      if (c == 0) return &w_->tensors[mid];
      if (c < 0) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return nullptr;
  }
  bool Has(std::string_view name) const { return Find(name) != nullptr; }

  // The tensor, NOT_FOUND naming the checkpoint when absent.
  StatusOr<const oxi_weight_tensor*> Get(std::string_view name) const {
    const oxi_weight_tensor* t = Find(name);
    if (t == nullptr) {
      return NotFoundError(StrCat(source(), ": no tensor ", name));
    }
    return t;
  }
  // The same, refusing (INVALID_ARGUMENT) another shape, and (UNIMPLEMENTED)
  // a dtype that is not F32, BF16 or F16 when `float_only`.
  StatusOr<const oxi_weight_tensor*> Get(std::string_view name,
                                         std::initializer_list<int64_t> shape,
                                         bool float_only = true) const {
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(name));
    bool same = static_cast<int>(shape.size()) == t->ndim;
    int i = 0;
    for (int64_t d : shape) same = same && t->shape[i++] == d;
    if (!same) {
      std::vector<int64_t> want(shape);
      return InvalidArgumentError(StrCat(source(), ": tensor ", name, " has shape ",
                                         ShapeString(*t), ", expected ",
                                         ShapeString(want.data(), static_cast<int>(want.size()))));
    }
    if (float_only && !IsFloatType(t->dtype)) {
      return UnimplementedError(StrCat(source(), ": tensor ", name, " has dtype ",
                                       oxi_dtype_name(static_cast<oxi_dtype>(t->dtype)),
                                       " (expected f32, bf16 or f16)"));
    }
    return t;
  }
  // A float tensor of the given shape as f32 values (recorded as stored:
  // the model derives what it keeps from it again at load).
  StatusOr<std::vector<float>> GetFloats(std::string_view name,
                                         std::initializer_list<int64_t> shape) const {
    OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(name, shape));
    OXI_RETURN_IF_ERROR(RecordStored(t));
    std::vector<float> v(static_cast<size_t>(NumElements(*t)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = LoadFloat(t->data, t->dtype, i);
    return v;
  }

  // --save-quantized: the loaders report what the model keeps of this
  // checkpoint to `recorder` (weight_recorder.hpp); null: nothing reported.
  void RecordInto(std::shared_ptr<WeightRecorder> recorder) { recorder_ = std::move(recorder); }
  WeightRecorder* recorder() const { return recorder_.get(); }
  // Reports t as stored (a tensor the model reads on the host).
  Status RecordStored(const oxi_weight_tensor* t) const {
    return recorder_ != nullptr && t != nullptr ? recorder_->Record(*t) : OkStatus();
  }

  // Hands t's pages back to the OS once the plugin holds its own copy.
  void Release(const oxi_weight_tensor* t) const {
    if (release_ != nullptr && w_ && t != nullptr) release_(w_.get(), t - w_->tensors);
  }

 private:
  std::shared_ptr<const oxi_weights> w_;
  void (*release_)(const oxi_weights*, int64_t) = nullptr;
  std::shared_ptr<WeightRecorder> recorder_;
};

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_WEIGHTS_HPP_
