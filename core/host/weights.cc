#include "core/host/weights.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/gguf/gguf_checkpoint.h"
#include "core/gguf/gguf_folder.h"
#include "core/host/abi_status.h"
#include "core/quantized_format.h"
#include "core/safetensors.h"
#include "core/tensor.h"

namespace oxinfer {
namespace {

static_assert(kMaxTensorDims <= static_cast<int>(sizeof(oxi_weight_tensor::shape) /
                                                 sizeof(oxi_weight_tensor::shape[0])),
              "oxi_weight_tensor::shape must hold every tensor the reader accepts");

// One of a safetensors checkpoint or a GGUF file seen as one (a folder
// staged by core/gguf/gguf_folder.h).
struct WeightsState {
  std::optional<ModelWeights> weights;
  std::unique_ptr<gguf::GgufCheckpoint> gguf;
  std::string source;
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

void SortByName(std::vector<oxi_weight_tensor>* tensors) {
  // What the ABI promises, whatever order the reader keeps.
  std::sort(tensors->begin(), tensors->end(),
            [](const oxi_weight_tensor& a, const oxi_weight_tensor& b) {
              return std::strcmp(a.name, b.name) < 0;
            });
}

absl::StatusOr<std::unique_ptr<WeightsState>> OpenGguf(const std::string& gguf_path,
                                                       LoadMode mode) {
  auto checkpoint = gguf::OpenGgufCheckpoint(gguf_path, mode);
  if (!checkpoint.ok()) return checkpoint.status();
  auto state = std::make_unique<WeightsState>();
  state->gguf = *std::move(checkpoint);
  state->source = gguf_path;
  for (const gguf::CheckpointTensor& c : state->gguf->tensors) {
    oxi_weight_tensor t;
    std::memset(&t, 0, sizeof t);
    t.name = c.name.c_str();
    t.dtype = c.dtype;
    t.ndim = static_cast<int32_t>(c.shape.size());
    if (c.shape.size() > sizeof(t.shape) / sizeof(t.shape[0])) {
      return absl::InvalidArgumentError(
          absl::StrCat(gguf_path, ": tensor ", c.name, " has too many dimensions"));
    }
    std::copy(c.shape.begin(), c.shape.end(), t.shape);
    t.data = c.data;
    t.size = c.size;
    state->tensors.push_back(t);
  }
  SortByName(&state->tensors);
  return state;
}

// The real dtype and shape of the U8 tensors of --save-quantized shards
// (core/quantized_format.h), by tensor name; each checked against its bytes.
absl::StatusOr<std::map<std::string, QuantizedLayout>> QuantizedLayouts(const ModelWeights& w) {
  std::map<std::string, QuantizedLayout> out;
  for (const SafetensorsFile& f : w.files()) {
    if (!IsQuantizedMetadata(f.metadata())) continue;
    absl::StatusOr<QuantizedMetadata> m = ParseQuantizedMetadata(f.metadata(), f.path());
    if (!m.ok()) return m.status();
    for (auto& [name, layout] : m->tensors) {
      const TensorInfo* info = f.Find(name);
      if (info == nullptr || info->dtype != OXI_DTYPE_U8 || info->shape.size() != 1 ||
          static_cast<int64_t>(info->byte_size()) != layout.byte_size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            f.path(), ": __metadata__ \"", kQuantizedTensorsKey, "\" names ", name, " as ",
            oxi_dtype_name(layout.dtype), " of ", layout.byte_size(), " bytes, but the shard ",
            info == nullptr ? "has no such tensor"
                            : absl::StrCat("holds it as ", oxi_dtype_name(info->dtype), " of ",
                                           info->byte_size(), " bytes (expected 1-D u8)")));
      }
      out[name] = std::move(layout);
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<WeightsState>> Open(const std::string& path, uint32_t flags) {
  const LoadMode mode = (flags & OXI_WEIGHTS_MMAP) != 0 ? LoadMode::kMmap : LoadMode::kRead;
  if (std::optional<std::string> gguf_path = gguf::StagedGgufFile(path)) {
    return OpenGguf(*gguf_path, mode);
  }
  absl::StatusOr<ModelWeights> weights = ModelWeights::Open(path, mode);
  if (!weights.ok()) return weights.status();
  auto state = std::make_unique<WeightsState>();
  state->weights.emplace(*std::move(weights));
  state->source = state->weights->source();
  const ModelWeights& w = *state->weights;
  absl::StatusOr<std::map<std::string, QuantizedLayout>> layouts = QuantizedLayouts(w);
  if (!layouts.ok()) return layouts.status();
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
    if (auto it = layouts->find(name); it != layouts->end()) {  // stored blocks, as they are
      t.dtype = it->second.dtype;
      t.ndim = static_cast<int32_t>(it->second.shape.size());
      std::copy(it->second.shape.begin(), it->second.shape.end(), t.shape);
    }
    state->tensors.push_back(t);
  }
  SortByName(&state->tensors);
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
    handle->c.source = (*state)->source.c_str();
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
  // GGUF tensors stay: converted ones are owned copies, the others share
  // pages with their neighbours in the file.
  if (h->state->weights) h->state->weights->Release(h->state->tensors[index].name);
}

void HostWeightsClose(const oxi_weights* weights) {
  if (weights == nullptr) return;
  const WeightsHandle* h = AsHandle(weights);
  delete h->state;
  delete h;
}

}  // namespace oxinfer
