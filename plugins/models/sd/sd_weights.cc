#include "plugins/models/sd/sd_weights.h"

#include <cstring>
#include <memory>
#include <utility>

#include "oxinfer/sdk/common.hpp"

namespace oxinfer {
namespace sd {
namespace {

// `from` replaced by `to` wherever it occurs.
std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// Host bytes -> a resident [rows][cols] matrix held as `want`.
sdk::StatusOr<sdk::OwnedTensor> UploadMatrix(const sdk::Compute& cx, const void* data,
                                             oxi_dtype stored, int64_t rows, int64_t cols,
                                             oxi_dtype want) {
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor src,
                       cx.NewTensor(stored, rows, cols, want == stored ? OXI_BUFFER_WEIGHTS : 0));
  OXI_RETURN_IF_ERROR(cx.Write(src.t, data));
  if (want == stored) return src;
  OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor out, cx.NewTensor(want, rows, cols, OXI_BUFFER_WEIGHTS));
  OXI_RETURN_IF_ERROR(cx.Convert(src.t, out.t));
  OXI_RETURN_IF_ERROR(cx.Sync());
  return out;
}

// A buffer's bytes where the backend's buffers are host memory (the CPU
// backend's), else null.
uint8_t* HostBytes(const sdk::Compute& cx, const sdk::OwnedTensor& o) {
  const oxi_backend_iface* be = cx.backend();
  if (be == nullptr || be->buffer_host_ptr == nullptr) return nullptr;
  return static_cast<uint8_t*>(be->buffer_host_ptr(be->self, o.buffer.get()));
}

// A kernel [cout][cin][taps] as [cout][taps][cin], elements of ES bytes (a
// 16- or 32-bit float, moved as it is): a copy of constant size per element,
// which compiles to one load and store, rather than a memcpy call (the UNet
// has ~0.5 G of them). The mapped source may be only 2-byte aligned.
template <size_t ES>
void ReorderTaps(const uint8_t* src, uint8_t* dst, int64_t cout, int64_t cin, int64_t taps) {
  sdk::ParallelFor(sdk::Host(), cout, 1, [&](int64_t begin, int64_t end, int32_t) {
    for (int64_t o = begin; o < end; ++o) {
      const uint8_t* s = src + o * cin * taps * ES;
      uint8_t* d = dst + o * taps * cin * ES;
      for (int64_t i = 0; i < cin; ++i) {
        for (int64_t tap = 0; tap < taps; ++tap) {
          std::memcpy(d + (tap * cin + i) * ES, s + (i * taps + tap) * ES, ES);
        }
      }
    }
  });
}

}  // namespace

sdk::StatusOr<std::string> ComponentWeights::Locate(const std::string& dir) {
  // The .fp16 variants are not the host's default names: the file (or the
  // sharded index) is opened by its path.
  static const char* kNames[] = {
      "diffusion_pytorch_model.safetensors",
      "diffusion_pytorch_model.safetensors.index.json",
      "model.safetensors",
      "model.safetensors.index.json",
      "diffusion_pytorch_model.fp16.safetensors",
      "diffusion_pytorch_model.fp16.safetensors.index.json",
      "model.fp16.safetensors",
      "model.fp16.safetensors.index.json",
  };
  for (const char* name : kNames) {
    if (sdk::FileExists(dir + "/" + name)) return dir + "/" + name;
  }
  return sdk::NotFoundError(
      sdk::StrCat("no safetensors weights in ", dir,
                  " (looked for diffusion_pytorch_model[.fp16].safetensors and "
                  "model[.fp16].safetensors, or their .index.json)"));
}

sdk::StatusOr<ComponentWeights> ComponentWeights::Open(const std::string& dir,
                                                       const sdk::Compute* cx,
                                                       oxi_dtype matrix_dtype, bool use_mmap) {
  OXI_ASSIGN_OR_RETURN(std::string path, Locate(dir));
  ComponentWeights w;
  OXI_ASSIGN_OR_RETURN(w.weights_, sdk::Weights::Open(path, use_mmap));
  w.cx_ = cx;
  w.matrix_dtype_ = matrix_dtype;
  w.source_ = w.weights_.source().empty() ? path : w.weights_.source();
  return w;
}

const oxi_weight_tensor* ComponentWeights::Resolve(const std::string& name) const {
  if (const oxi_weight_tensor* t = weights_.Find(name)) return t;
  if (const oxi_weight_tensor* t = weights_.Find("text_model." + name)) return t;
  std::string old = ReplaceAll(name, ".to_q.", ".query.");
  old = ReplaceAll(old, ".to_k.", ".key.");
  old = ReplaceAll(old, ".to_v.", ".value.");
  old = ReplaceAll(old, ".to_out.0.", ".proj_attn.");
  return old != name ? weights_.Find(old) : nullptr;
}

sdk::StatusOr<const oxi_weight_tensor*> ComponentWeights::Get(const std::string& name) const {
  const oxi_weight_tensor* t = Resolve(name);
  if (t == nullptr) return sdk::NotFoundError(sdk::StrCat(source_, ": no tensor ", name));
  if (!sdk::IsFloatType(t->dtype)) {
    return sdk::UnimplementedError(sdk::StrCat(source_, ": tensor ", t->name, " has dtype ",
                                               oxi_dtype_name(static_cast<oxi_dtype>(t->dtype)),
                                               " (expected f32, f16 or bf16)"));
  }
  return t;
}

sdk::StatusOr<std::vector<float>> ComponentWeights::Floats(const std::string& name) const {
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(name));
  std::vector<float> v(static_cast<size_t>(sdk::NumElements(*t)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = sdk::LoadFloat(t->data, t->dtype, i);
  weights_.Release(t);  // the copy is what stays
  return v;
}

sdk::StatusOr<sdk::OwnedTensor> ComponentWeights::LoadF32(const std::string& name,
                                                          int64_t n) const {
  OXI_ASSIGN_OR_RETURN(std::vector<float> v, Floats(name));
  if (static_cast<int64_t>(v.size()) != n) {
    return sdk::InvalidArgumentError(
        sdk::StrCat(source_, ": tensor ", name, " has ", v.size(), " values, expected ", n));
  }
  return cx_->Upload(v);
}

sdk::StatusOr<sdk::OwnedTensor> ComponentWeights::LoadBias(const std::string& name,
                                                           int64_t n) const {
  if (!Has(name)) return sdk::OwnedTensor();
  return LoadF32(name, n);
}

sdk::StatusOr<sdk::OwnedTensor> ComponentWeights::LoadMatrix(const std::string& name, int64_t rows,
                                                             int64_t cols) const {
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(name));
  if (t->ndim != 2 || t->shape[0] != rows || t->shape[1] != cols) {
    return sdk::InvalidArgumentError(sdk::StrCat(source_, ": tensor ", t->name, " has shape ",
                                                 sdk::ShapeString(*t), ", expected [", rows, ", ",
                                                 cols, "]"));
  }
  return cx_->LoadWeight(weights_, t, rows, cols, Want(t));
}

sdk::StatusOr<Linear> ComponentWeights::LoadLinear(const std::string& prefix) const {
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(prefix + ".weight"));
  const bool matrix = t->ndim == 2 || (t->ndim == 4 && t->shape[2] == 1 && t->shape[3] == 1);
  if (!matrix) {
    return sdk::InvalidArgumentError(sdk::StrCat(source_, ": tensor ", t->name, " has shape ",
                                                 sdk::ShapeString(*t), ", expected a matrix"));
  }
  Linear l;
  l.out = t->shape[0];
  l.in = t->shape[1];
  OXI_ASSIGN_OR_RETURN(l.w, cx_->LoadWeight(weights_, t, l.out, l.in, Want(t)));
  OXI_ASSIGN_OR_RETURN(l.bias, LoadBias(prefix + ".bias", l.out));
  return l;
}

sdk::StatusOr<Conv> ComponentWeights::LoadConv(const std::string& prefix, int64_t stride,
                                               int64_t pad) const {
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* t, Get(prefix + ".weight"));
  if (t->ndim != 4 || t->shape[2] < 1 || t->shape[3] < 1) {
    return sdk::InvalidArgumentError(sdk::StrCat(source_, ": tensor ", t->name, " has shape ",
                                                 sdk::ShapeString(*t), ", expected 4-D"));
  }
  Conv c;
  c.cout = t->shape[0];
  c.cin = t->shape[1];
  c.kh = t->shape[2];
  c.kw = t->shape[3];
  c.stride = stride;
  c.pad = pad;
  const int64_t k = c.kh * c.kw * c.cin;
  if (c.kh == 1 && c.kw == 1) {
    OXI_ASSIGN_OR_RETURN(c.w, cx_->LoadWeight(weights_, t, c.cout, k, Want(t)));
  } else {
    // [o][ci][ky][kx] -> [o][ky][kx][ci], element bytes moved as they are.
    const oxi_dtype stored = static_cast<oxi_dtype>(t->dtype);
    const size_t es = static_cast<size_t>(oxi_dtype_block_bytes(stored));
    if (t->size != static_cast<uint64_t>(c.cout * k) * es || (es != 2 && es != 4)) {
      return sdk::InvalidArgumentError(
          sdk::StrCat(source_, ": tensor ", t->name, " holds ", t->size, " bytes"));
    }
    const uint8_t* src = static_cast<const uint8_t*>(t->data);
    const auto reorder = [&](uint8_t* dst) {
      if (es == 2) {
        ReorderTaps<2>(src, dst, c.cout, c.cin, c.kh * c.kw);
      } else {
        ReorderTaps<4>(src, dst, c.cout, c.cin, c.kh * c.kw);
      }
    };
    const oxi_dtype want = Want(t);
    sdk::OwnedTensor direct;
    if (want == stored) {
      OXI_ASSIGN_OR_RETURN(direct, cx_->NewTensor(stored, c.cout, k, OXI_BUFFER_WEIGHTS));
    }
    sdk::StatusOr<sdk::OwnedTensor> w = sdk::OwnedTensor();
    if (uint8_t* host = direct.buffer ? HostBytes(*cx_, direct) : nullptr) {
      // Host memory (the CPU's buffers): reordered where it stays.
      reorder(host);
      w = std::move(direct);
    } else {
      direct = sdk::OwnedTensor();
      std::unique_ptr<uint8_t[]> reordered(new uint8_t[t->size]);
      reorder(reordered.get());
      w = UploadMatrix(*cx_, reordered.get(), stored, c.cout, k, want);
    }
    if (!w.ok()) return w.status().WithContext(sdk::StrCat("loading ", t->name));
    c.w = std::move(*w);
    weights_.Release(t);
  }
  OXI_ASSIGN_OR_RETURN(c.bias, LoadBias(prefix + ".bias", c.cout));
  return c;
}

sdk::StatusOr<Norm> ComponentWeights::LoadNorm(const std::string& prefix, float eps,
                                               int32_t groups) const {
  OXI_ASSIGN_OR_RETURN(const oxi_weight_tensor* g, Get(prefix + ".weight"));
  Norm n;
  n.dim = sdk::NumElements(*g);
  n.groups = groups;
  n.eps = eps;
  OXI_ASSIGN_OR_RETURN(n.gamma, LoadF32(prefix + ".weight", n.dim));
  OXI_ASSIGN_OR_RETURN(n.beta, LoadBias(prefix + ".bias", n.dim));
  return n;
}

}  // namespace sd
}  // namespace oxinfer
