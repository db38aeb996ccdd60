// Activations of the Stable Diffusion networks, resident on the backend:
// channels-last images ([n][h][w][c] as a [n*h*w][c] f32 tensor; a token
// sequence is h = 1, w = its length), drawn from a pool that recycles their
// buffers, so a denoising loop stops allocating (and the OS stops zeroing
// fresh pages) after its first pass.
#ifndef OXINFER_PLUGINS_MODELS_SD_ACTIVATIONS_H_
#define OXINFER_PLUGINS_MODELS_SD_ACTIVATIONS_H_

#include <cstdint>
#include <vector>

#include "oxinfer/sdk/compute.hpp"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace sd {

class ActPool;

// One activation; move-only, its buffer goes back to the pool when it dies.
class Act {
 public:
  Act() = default;
  Act(Act&& o) noexcept { *this = std::move(o); }
  Act& operator=(Act&& o) noexcept;
  Act(const Act&) = delete;
  Act& operator=(const Act&) = delete;
  ~Act() { Release(); }

  int64_t n = 0, h = 0, w = 0, c = 0;

  bool empty() const { return t_.empty(); }
  int64_t rows() const { return n * h * w; }
  int64_t pixels() const { return h * w; }  // per image
  int64_t size() const { return rows() * c; }
  // The whole activation as a [n*h*w][c] tensor.
  const sdk::Tensor& t() const { return t_; }
  // Image (or sequence) b as a [h*w][c] tensor.
  sdk::Tensor Image(int64_t b) const { return t_.Rows(b * pixels(), pixels()); }
  // The same rows read as n images of h x w (h * w unchanged per image).
  void SetImageShape(int64_t new_h, int64_t new_w) {
    h = new_h;
    w = new_w;
  }
  // Hands the buffer back now.
  void Release();

 private:
  friend class ActPool;
  ActPool* pool_ = nullptr;
  sdk::Buffer buffer_;
  sdk::Tensor t_;
};

// The buffers of dead activations, kept by size for the next ones of that
// size; idle bytes beyond `idle_limit` are freed, oldest first.
class ActPool {
 public:
  explicit ActPool(const sdk::Compute* cx, uint64_t idle_limit = uint64_t{64} << 20)
      : cx_(cx), idle_limit_(idle_limit) {}
  ActPool(const ActPool&) = delete;
  ActPool& operator=(const ActPool&) = delete;

  // An f32 activation of n images of h x w pixels by c channels (contents undefined).
  sdk::StatusOr<Act> New(int64_t n, int64_t h, int64_t w, int64_t c);
  // Frees every idle buffer.
  void Trim();
  const sdk::Compute& cx() const { return *cx_; }

 private:
  friend class Act;
  void Return(sdk::Buffer buffer);

  const sdk::Compute* cx_;
  uint64_t idle_limit_;
  uint64_t idle_bytes_ = 0;
  std::vector<sdk::Buffer> idle_;  // oldest first
};

// An activation copied to the host (for results and observers).
struct HostAct {
  int64_t n = 0, h = 0, w = 0, c = 0;
  std::vector<float> d;  // channels-last
  int64_t size() const { return n * h * w * c; }
};

sdk::StatusOr<HostAct> ReadAct(const sdk::Compute& cx, const Act& a);
// A new activation of the given shape holding `values` (n*h*w*c floats).
sdk::StatusOr<Act> WriteAct(ActPool* pool, int64_t n, int64_t h, int64_t w, int64_t c,
                            const float* values);

}  // namespace sd
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_MODELS_SD_ACTIVATIONS_H_
