#include "plugins/models/sd/sd_weights.h"

#include <sys/stat.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/tensor.h"

namespace oxinfer {
namespace sd {
namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

oxi_dtype WeightStore::StorageFor(oxi_dtype stored) const {
  if (storage_ == OXI_DTYPE_INVALID) {
    return stored == OXI_DTYPE_F16 || stored == OXI_DTYPE_BF16 ? stored : OXI_DTYPE_F32;
  }
  return storage_;
}

absl::StatusOr<WeightStore> WeightStore::Open(const std::string& component_dir, oxi_dtype storage) {
  static const char* kNames[] = {
      "diffusion_pytorch_model.safetensors",
      "diffusion_pytorch_model.safetensors.index.json",
      "model.safetensors",
      "model.safetensors.index.json",
      "diffusion_pytorch_model.fp16.safetensors",
      "model.fp16.safetensors",
      "diffusion_pytorch_model.fp16.safetensors.index.json",
      "model.fp16.safetensors.index.json",
  };
  for (const char* name : kNames) {
    const std::string path = component_dir + "/" + name;
    if (!FileExists(path)) continue;
    absl::StatusOr<ModelWeights> w = ModelWeights::Open(path);
    if (!w.ok()) return w.status();
    WeightStore store;
    store.source_ = path;
    store.storage_ = storage;
    store.weights_ = std::make_shared<ModelWeights>(*std::move(w));
    return store;
  }
  return absl::NotFoundError(
      absl::StrCat("no safetensors weights in ", component_dir,
                   " (looked for diffusion_pytorch_model[.fp16].safetensors and "
                   "model[.fp16].safetensors)"));
}

const TensorInfo* WeightStore::Resolve(const std::string& name, std::string* resolved) const {
  std::vector<std::string> candidates = {name, "text_model." + name};
  // Old VAE attention names.
  const std::string old = absl::StrReplaceAll(name, {{".to_q.", ".query."},
                                                     {".to_k.", ".key."},
                                                     {".to_v.", ".value."},
                                                     {".to_out.0.", ".proj_attn."}});
  if (old != name) candidates.push_back(old);
  for (const std::string& c : candidates) {
    const TensorInfo* info = weights_->Find(c);
    if (info != nullptr) {
      if (resolved != nullptr) *resolved = c;
      return info;
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<float>> WeightStore::Floats(const std::string& name,
                                                       std::vector<int64_t>* shape) const {
  std::string real;
  const TensorInfo* info = Resolve(name, &real);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat("tensor ", name, " not found in ", source_));
  }
  absl::StatusOr<Tensor> t = weights_->GetTensor(real);
  if (!t.ok()) return t.status();
  std::vector<float> out(static_cast<size_t>(info->numel));
  const void* data = t->data();
  switch (info->dtype) {
    case OXI_DTYPE_F32:
      std::memcpy(out.data(), data, out.size() * sizeof(float));
      break;
    case OXI_DTYPE_F16: {
      const uint16_t* h = static_cast<const uint16_t*>(data);
      for (size_t i = 0; i < out.size(); ++i) out[i] = oxi_f16_to_f32(h[i]);
      break;
    }
    case OXI_DTYPE_BF16: {
      const uint16_t* h = static_cast<const uint16_t*>(data);
      for (size_t i = 0; i < out.size(); ++i) out[i] = oxi_bf16_to_f32(h[i]);
      break;
    }
    default:
      return absl::InvalidArgumentError(absl::StrCat("tensor ", real, " in ", source_, " is ",
                                                     oxi_dtype_name(info->dtype),
                                                     ", expected f32, f16 or bf16"));
  }
  if (shape != nullptr) *shape = info->shape;
  // The copy is what the model keeps: the mapped bytes leave memory now, so
  // loading peaks at the copies, not the copies plus the files.
  weights_->Release(real);
  return out;
}

absl::StatusOr<Linear> WeightStore::GetLinear(const std::string& prefix) const {
  std::vector<int64_t> shape;
  absl::StatusOr<std::vector<float>> w = Floats(prefix + ".weight", &shape);
  if (!w.ok()) return w.status();
  const bool ok_shape = shape.size() == 2 || (shape.size() == 4 && shape[2] == 1 && shape[3] == 1);
  if (!ok_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, ".weight has shape ", ShapeString(shape), ", expected a matrix"));
  }
  Linear l;
  l.out = shape[0];
  l.in = shape[1];
  l.w = *std::move(w);
  if (Has(prefix + ".bias")) {
    absl::StatusOr<std::vector<float>> b = Floats(prefix + ".bias", &shape);
    if (!b.ok()) return b.status();
    if (static_cast<int64_t>(b->size()) != l.out) {
      return absl::InvalidArgumentError(absl::StrCat(prefix, ".bias has the wrong size"));
    }
    l.b = *std::move(b);
  }
  l.StoreAs(StorageFor(Resolve(prefix + ".weight")->dtype));
  return l;
}

absl::StatusOr<Conv> WeightStore::GetConv(const std::string& prefix, int64_t stride,
                                          int64_t pad) const {
  std::vector<int64_t> shape;
  absl::StatusOr<std::vector<float>> w = Floats(prefix + ".weight", &shape);
  if (!w.ok()) return w.status();
  if (shape.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix, ".weight has shape ", ShapeString(shape), ", expected 4-D"));
  }
  Conv c;
  const int64_t co = shape[0], ci = shape[1], kh = shape[2], kw = shape[3];
  c.kh = kh;
  c.kw = kw;
  c.stride = stride;
  c.pad = pad;
  c.cin = ci;
  c.lin.out = co;
  c.lin.in = kh * kw * ci;
  c.lin.w.resize(static_cast<size_t>(co * kh * kw * ci));
  for (int64_t o = 0; o < co; ++o)
    for (int64_t i = 0; i < ci; ++i)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          c.lin.w[((o * kh + y) * kw + x) * ci + i] = (*w)[((o * ci + i) * kh + y) * kw + x];
  if (Has(prefix + ".bias")) {
    absl::StatusOr<std::vector<float>> b = Floats(prefix + ".bias");
    if (!b.ok()) return b.status();
    c.lin.b = *std::move(b);
  }
  c.lin.StoreAs(StorageFor(Resolve(prefix + ".weight")->dtype));
  return c;
}

absl::StatusOr<Norm> WeightStore::GetNorm(const std::string& prefix, float eps,
                                          int64_t groups) const {
  Norm n;
  absl::StatusOr<std::vector<float>> g = Floats(prefix + ".weight");
  if (!g.ok()) return g.status();
  n.gamma = *std::move(g);
  if (Has(prefix + ".bias")) {
    absl::StatusOr<std::vector<float>> b = Floats(prefix + ".bias");
    if (!b.ok()) return b.status();
    n.beta = *std::move(b);
  } else {
    n.beta.assign(n.gamma.size(), 0.f);
  }
  n.eps = eps;
  n.groups = groups;
  return n;
}

}  // namespace sd
}  // namespace oxinfer
