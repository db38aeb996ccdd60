// Decode and prefill matmul speed of a GPU backend plugin, through the ABI as
// a model uses it:
//   gpu_matmul_bench <liboxinfer_cuda.so> [iterations]
// Prints the device's measured copy bandwidth (buffer_copy of 1 GiB: bytes
// read + written per second), then per weight type the decode GEMV
// (14336x4096, one token: weight bytes per second, and that as a share of the
// copy bandwidth) and the prefill GEMM (4096x512x4096: TFLOP/s). Timing is
// host wall time around `iterations` calls and one synchronize.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/plugin_registry.h"
#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace {

double Seconds(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Random bytes for a weight of `dtype`, with small finite block scales.
std::vector<uint8_t> RandomWeight(oxi_dtype dtype, int64_t rows, int64_t cols, uint32_t seed) {
  const int64_t row = oxi_dtype_row_bytes(dtype, cols);
  std::vector<uint8_t> w(static_cast<size_t>(row * rows));
  std::mt19937 rng(seed);
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  const int64_t block = dtype == OXI_DTYPE_Q8_0 ? 34 : dtype == OXI_DTYPE_Q4_0 ? 18 : 0;
  for (size_t i = 0; block > 0 && i < w.size(); i += block) {
    w[i] = 0x00, w[i + 1] = 0x1c;  // f16 scale 2^-8
  }
  if (dtype == OXI_DTYPE_F16 || dtype == OXI_DTYPE_BF16) {
    for (size_t i = 1; i < w.size(); i += 2) w[i] = dtype == OXI_DTYPE_F16 ? 0x2c : 0x3c;
  }
  if (dtype == OXI_DTYPE_F32) {
    std::vector<float> f(w.size() / 4);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : f) v = dist(rng);
    std::memcpy(w.data(), f.data(), w.size());
  }
  return w;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <liboxinfer_cuda.so> [iterations]\n", argv[0]);
    return 2;
  }
  const int iters = argc > 2 ? std::atoi(argv[2]) : 50;
  PluginRegistry registry;
  if (absl::Status s = registry.LoadFile(argv[1]); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  const PluginRecord& r = registry.plugins().back();
  const oxi_backend_iface* be = r.backend_iface();
  if (be == nullptr) return 1;
  sdk::Compute cx(be);
  std::printf("device: %s (%s)\n", r.backend.device ? r.backend.device->name.c_str() : "?",
              r.backend.device ? r.backend.device->driver.c_str() : "");

  // The copy bandwidth: 1 GiB device to device.
  const uint64_t big = uint64_t{1} << 30;
  auto a = cx.Alloc(big), b = cx.Alloc(big);
  if (!a.ok() || !b.ok()) return 1;
  (void)cx.CopyBytes(b->get(), 0, a->get(), 0, big);
  (void)cx.Sync();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) (void)cx.CopyBytes(b->get(), 0, a->get(), 0, big);
  (void)cx.Sync();
  const double copy_gbs = 2.0 * big * 10 / Seconds(t0) / 1e9;
  std::printf("copy bandwidth (read + write): %.0f GB/s\n", copy_gbs);

  const oxi_dtype types[] = {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_F16, OXI_DTYPE_Q8_0,
                             OXI_DTYPE_Q4_0};
  std::printf("%-6s %12s %10s %16s\n", "type", "decode GB/s", "of copy", "prefill TFLOP/s");
  for (oxi_dtype t : types) {
    const int64_t n = 14336, k = 4096;
    auto w = cx.Upload(RandomWeight(t, n, k, 1).data(), t, n, k);
    auto x = cx.NewTensor(OXI_DTYPE_F32, 512, k);
    auto y = cx.NewTensor(OXI_DTYPE_F32, 512, n);
    if (!w.ok() || !x.ok() || !y.ok()) return 1;
    std::vector<float> xs(512 * k, 0.01f);
    (void)cx.Write(x->t, xs.data());
    sdk::Tensor x1 = x->t, y1 = y->t;
    x1.rows = 1, y1.rows = 1;
    sdk::Status s = cx.MatMul(x1, w->t, y1);
    if (!s.ok()) {
      std::printf("%-6s %s\n", oxi_dtype_name(t), s.message().c_str());
      continue;
    }
    (void)cx.Sync();
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) (void)cx.MatMul(x1, w->t, y1);
    (void)cx.Sync();
    const double decode_gbs = double(oxi_dtype_row_bytes(t, k)) * n * iters / Seconds(t0) / 1e9;
    // Prefill: 512 tokens against a 4096x4096 slice of the weight.
    sdk::Tensor w4 = w->t, y4 = y->t;
    w4.rows = 4096, y4.cols = 4096;
    y4.row_stride = 0;
    (void)cx.MatMul(x->t, w4, y4);
    (void)cx.Sync();
    t0 = std::chrono::steady_clock::now();
    const int prefill_iters = iters / 5 > 0 ? iters / 5 : 1;
    for (int i = 0; i < prefill_iters; ++i) (void)cx.MatMul(x->t, w4, y4);
    (void)cx.Sync();
    const double tflops = 2.0 * 512 * 4096 * 4096 * prefill_iters / Seconds(t0) / 1e12;
    std::printf("%-6s %12.0f %9.0f%% %16.2f\n", oxi_dtype_name(t), decode_gbs,
                100.0 * decode_gbs / copy_gbs, tflops);
  }
  return 0;
}

}  // namespace
}  // namespace oxinfer

int main(int argc, char** argv) { return oxinfer::Main(argc, argv); }
