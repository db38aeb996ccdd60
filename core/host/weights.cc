#include "core/host/weights.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/host/abi_status.h"
#include "core/safetensors.h"
#include "core/tensor.h"

namespace oxinfer {
namespace {

static_assert(kMaxTensorDims <= static_cast<int>(sizeof(oxi_weight_tensor::shape) /
                                                 sizeof(oxi_weight_tensor::shape[0])),
              "oxi_weight_tensor::shape must hold every tensor the reader accepts");

struct WeightsState {
  explicit WeightsState(ModelWeights w) : weights(std::move(w)) {}
  ModelWeights weights;
  std::vector<oxi_weight_tensor> tensors;
};

// What weights_open hands out: `c` first, so that the oxi_weights* is the
// handle.
struct WeightsHandle {
  oxi_weights c;
  WeightsState* state;
};
static_assert(std::is_standard_layout<WeightsHandle>::value,
              "WeightsHandle* and its first member must be interconvertible");

const WeightsHandle* AsHandle(const oxi_weights* w) {
  return reinterpret_cast<const WeightsHandle*>(w);
}

absl::StatusOr<std::unique_ptr<WeightsState>> Open(const std::string& path, uint32_t flags) {
  const LoadMode mode = (flags & OXI_WEIGHTS_MMAP) != 0 ? LoadMode::kMmap : LoadMode::kRead;
  absl::StatusOr<ModelWeights> weights = ModelWeights::Open(path, mode);
  if (!weights.ok()) return weights.status();
  auto state = std::make_unique<WeightsState>(*std::move(weights));
  const ModelWeights& w = state->weights;
  state->tensors.reserve(w.size());
  for (const std::string& name : w.Names()) {
    // Names point into the reader's headers, which live as long as `w`.
    const TensorInfo* info = w.Find(name);
    absl::StatusOr<Tensor> view = w.GetTensor(name);
    if (info == nullptr || !view.ok()) {
      return absl::InternalError(absl::StrCat(w.source(), ": tensor '", name, "' vanished"));
    }
    oxi_weight_tensor t;
    std::memset(&t, 0, sizeof t);
    t.name = info->name.c_str();
    t.dtype = info->dtype;
    t.ndim = static_cast<int32_t>(info->shape.size());
    std::copy(info->shape.begin(), info->shape.end(), t.shape);
    t.data = view->data();  // the view's owner is the file, kept by `w`
    t.size = info->byte_size();
    state->tensors.push_back(t);
  }
  // What the ABI promises, whatever order the reader keeps.
  std::sort(state->tensors.begin(), state->tensors.end(),
            [](const oxi_weight_tensor& a, const oxi_weight_tensor& b) {
              return std::strcmp(a.name, b.name) < 0;
            });
  return state;
}

}  // namespace

int32_t HostWeightsOpen(const char* path, uint32_t flags, const oxi_weights** out, char* error,
                        size_t error_size) {
  return ServeAbiCall("weights_open", error, error_size, [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("weights_open: out is NULL");
    *out = nullptr;
    if (path == nullptr || path[0] == '\0') {
      return absl::InvalidArgumentError("weights_open: no path given");
    }
    absl::StatusOr<std::unique_ptr<WeightsState>> state = Open(path, flags);
    if (!state.ok()) return state.status();
    auto handle = std::make_unique<WeightsHandle>();
    handle->c.struct_size = sizeof(oxi_weights);
    handle->c.source = (*state)->weights.source().c_str();
    handle->c.n_tensors = static_cast<int64_t>((*state)->tensors.size());
    handle->c.tensors = (*state)->tensors.data();
    handle->state = state->release();
    *out = &handle.release()->c;
    return absl::OkStatus();
  });
}

void HostWeightsRelease(const oxi_weights* weights, int64_t index) {
  if (weights == nullptr || index < 0 || index >= weights->n_tensors) return;
  const WeightsHandle* h = AsHandle(weights);
  h->state->weights.Release(h->state->tensors[index].name);
}

void HostWeightsClose(const oxi_weights* weights) {
  if (weights == nullptr) return;
  const WeightsHandle* h = AsHandle(weights);
  delete h->state;
  delete h;
}

}  // namespace oxinfer
