#include "plugins/models/sd/activations.h"

#include <utility>

namespace oxinfer {
namespace sd {
namespace {

// Sizes are rounded to this so that near sizes share buffers.
constexpr uint64_t kGranule = uint64_t{64} << 10;

}  // namespace

Act& Act::operator=(Act&& o) noexcept {
  if (this != &o) {
    Release();
    n = o.n, h = o.h, w = o.w, c = o.c;
    pool_ = o.pool_;
    buffer_ = std::move(o.buffer_);
    t_ = o.t_;
    o.pool_ = nullptr;
    o.t_ = sdk::Tensor();
    o.n = o.h = o.w = o.c = 0;
  }
  return *this;
}

void Act::Release() {
  if (pool_ != nullptr && buffer_) pool_->Return(std::move(buffer_));
  buffer_.Reset();
  pool_ = nullptr;
  t_ = sdk::Tensor();
}

sdk::StatusOr<Act> ActPool::New(int64_t n, int64_t h, int64_t w, int64_t c) {
  if (n <= 0 || h <= 0 || w <= 0 || c <= 0) {
    return sdk::InvalidArgumentError(
        sdk::StrCat("activation of shape ", n, "x", h, "x", w, "x", c));
  }
  const uint64_t bytes = static_cast<uint64_t>(n * h * w * c) * sizeof(float);
  const uint64_t size = (bytes + kGranule - 1) / kGranule * kGranule;
  Act a;
  for (size_t i = idle_.size(); i-- > 0;) {  // the most recently returned first
    if (idle_[i].size() == size) {
      a.buffer_ = std::move(idle_[i]);
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
      idle_bytes_ -= size;
      break;
    }
  }
  if (!a.buffer_) {
    OXI_ASSIGN_OR_RETURN(a.buffer_, cx_->Alloc(size));
  }
  a.pool_ = this;
  a.n = n, a.h = h, a.w = w, a.c = c;
  a.t_ = sdk::Tensor(a.buffer_.get(), 0, OXI_DTYPE_F32, n * h * w, c);
  return a;
}

void ActPool::Return(sdk::Buffer buffer) {
  idle_bytes_ += buffer.size();
  idle_.push_back(std::move(buffer));
  while (idle_bytes_ > idle_limit_ && !idle_.empty()) {
    idle_bytes_ -= idle_.front().size();
    idle_.erase(idle_.begin());
  }
}

void ActPool::Trim() {
  idle_.clear();
  idle_bytes_ = 0;
}

sdk::StatusOr<HostAct> ReadAct(const sdk::Compute& cx, const Act& a) {
  HostAct out;
  out.n = a.n, out.h = a.h, out.w = a.w, out.c = a.c;
  out.d.resize(static_cast<size_t>(a.size()));
  OXI_RETURN_IF_ERROR(cx.Read(a.t(), out.d.data()));
  return out;
}

sdk::StatusOr<Act> WriteAct(ActPool* pool, int64_t n, int64_t h, int64_t w, int64_t c,
                            const float* values) {
  OXI_ASSIGN_OR_RETURN(Act a, pool->New(n, h, w, c));
  OXI_RETURN_IF_ERROR(pool->cx().Write(a.t(), values));
  return a;
}

}  // namespace sd
}  // namespace oxinfer
