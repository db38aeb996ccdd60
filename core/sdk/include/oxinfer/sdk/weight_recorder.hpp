// oxinfer SDK: the weights a model keeps, reported to the host while it opens
// (oxi_model_open_params.record_weight, ABI 2.3; `oxinfer --save-quantized`).
//
// The adapter (model_plugin.hpp) makes one when the host asks and hands it
// over in OpenParams::recorder; a plugin attaches it to the checkpoint it
// opens (Weights::RecordInto) and the SDK's loaders report through it:
//   Compute::LoadWeight  each matrix in the form the backend holds it (after
//                        quantisation and layout conversion: Q4_0_X8, ...),
//   Weights::GetFloats   each tensor the model derives on the host (norms,
//                        gates, tables), as stored, for the model derives it
//                        again at load.
// Tensors keep their checkpoint names and shapes, so the same plugin opens
// the saved folder as it opened the original; each name is reported once
// (the first form wins), a second form of one tensor goes under another name
// (LoadWeight's record_as).
#ifndef OXINFER_SDK_WEIGHT_RECORDER_HPP_
#define OXINFER_SDK_WEIGHT_RECORDER_HPP_

#include <cstdint>
#include <set>
#include <string>

#include "oxinfer/abi_common.h"
#include "oxinfer/sdk/common.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sdk {

class WeightRecorder {
 public:
  using Fn = int32_t (*)(void* ctx, const oxi_weight_tensor* tensor, char* error,
                         size_t error_size);
  WeightRecorder(Fn fn, void* ctx) : fn_(fn), ctx_(ctx) {}

  // Reports `t` (name, dtype, shape, bytes) unless its name was reported.
  Status Record(const oxi_weight_tensor& t) {
    if (fn_ == nullptr || t.name == nullptr || !done_.insert(t.name).second) return OkStatus();
    char error[1024] = {};
    const int32_t rc = fn_(ctx_, &t, error, sizeof error);
    if (rc == OXI_OK) return OkStatus();
    return Status(rc, StrCat("recording ", t.name, ": ", error[0] ? error : "refused"));
  }
  // Open is over: the host's callback is gone, later loads report nothing.
  void Close() { fn_ = nullptr; }
  bool Recorded(const std::string& name) const { return done_.count(name) != 0; }
  int64_t count() const { return static_cast<int64_t>(done_.size()); }

 private:
  Fn fn_;
  void* ctx_;
  std::set<std::string> done_;
};

}  // namespace sdk
}  // namespace oxinfer

#endif  // OXINFER_SDK_WEIGHT_RECORDER_HPP_
