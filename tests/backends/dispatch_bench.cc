// The dispatcher's own cost per op (placement, translation, bookkeeping; no
// copies): a decode-like sequence of ops, all accepted by a host-memory
// accelerator that does nothing, called one op per execute (as sdk::Compute
// does) or as one recorded sequence. Compare with the same calls straight to
// the accelerator.
//
//   bazel run -c opt //tests/backends:dispatch_bench
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/backend_dispatch.h"
#include "oxinfer/sdk/compute.hpp"
#include "tests/backends/host_accel.h"

namespace oxinfer {
namespace testing {
namespace {

union AnyOp {
  oxi_op op;
  oxi_matmul_args matmul;
  oxi_rms_norm_args rms_norm;
  oxi_rope_args rope;
  oxi_set_rows_args set_rows;
  oxi_attention_args attention;
  oxi_binary_args binary;
  oxi_glu_args glu;
};

// The ops of a decode step of a 24-layer model (small dimensions: only the op count matters) over
// its buffers: weights of their own, activations in one scratch buffer,
// a KV cache per layer.
class DecodeStep {
 public:
  explicit DecodeStep(const oxi_backend_iface* be) : cx_(be) {
    constexpr int64_t kDim = 256, kHidden = 512, kKv = 64, kSlots = 64;
    scratch_ = std::move(*cx_.Alloc(1 << 20));
    uint64_t at = 0;
    auto act = [&](int64_t cols) {
      sdk::Tensor t(scratch_.get(), at, OXI_DTYPE_F32, 1, cols);
      at += static_cast<uint64_t>(cols * 4 + 255) / 256 * 256;
      return t;
    };
    const sdk::Tensor x = act(kDim), xn = act(kDim), q = act(kDim), k = act(kKv), v = act(kKv),
                      attn = act(kDim), gate = act(kHidden), up = act(kHidden), pos = act(1),
                      ids = act(1), freq = act(64);
    for (int layer = 0; layer < 24; ++layer) {
      const sdk::Tensor wq = Weight(kDim, kDim), wk = Weight(kKv, kDim), wv = Weight(kKv, kDim),
                        wo = Weight(kDim, kDim), wg = Weight(kHidden, kDim),
                        wu = Weight(kHidden, kDim), wd = Weight(kDim, kHidden),
                        norm = Weight(1, kDim);
      const sdk::Tensor kc = Cache(kSlots, kKv), vc = Cache(kSlots, kKv);
      RmsNorm(x, norm, xn);
      Matmul(xn, wq, q);
      Matmul(xn, wk, k);
      Matmul(xn, wv, v);
      Rope(q, pos, freq);
      Rope(k, pos, freq);
      SetRows(k, ids, kc);
      SetRows(v, ids, vc);
      AnyOp a;
      a.attention = sdk::Compute::AttentionArgs();
      a.attention.q = q, a.attention.k = kc, a.attention.v = vc, a.attention.out = attn;
      a.attention.n_heads = 4, a.attention.n_kv_heads = 1, a.attention.head_dim = 64;
      a.attention.v_head_dim = 64, a.attention.scale = 0.088f, a.attention.causal = 1;
      ops_.push_back(a);
      Matmul(attn, wo, q);
      Add(x, q);
      RmsNorm(x, norm, xn);
      Matmul(xn, wg, gate);
      Matmul(xn, wu, up);
      AnyOp g;
      g.glu = sdk::Compute::Make<oxi_glu_args>(OXI_OP_GLU);
      g.glu.gate = gate, g.glu.up = up, g.glu.out = gate, g.glu.act = OXI_UNARY_SILU;
      ops_.push_back(g);
      Matmul(gate, wd, q);
      Add(x, q);
    }
    for (const AnyOp& op : ops_) pointers_.push_back(&op.op);
  }

  size_t size() const { return ops_.size(); }
  // One execute call per op.
  bool RunOneByOne() const {
    const oxi_backend_iface* be = cx_.backend();
    char error[256];
    for (const oxi_op* op : pointers_) {
      if (be->execute(be->self, &op, 1, error, sizeof error) != OXI_OK) return false;
    }
    return true;
  }
  bool RunAsOneSequence() const {
    const oxi_backend_iface* be = cx_.backend();
    char error[256];
    return be->execute(be->self, pointers_.data(), static_cast<int64_t>(pointers_.size()), error,
                       sizeof error) == OXI_OK;
  }

 private:
  sdk::Tensor Weight(int64_t rows, int64_t cols) {
    // Small buffers: what matters is one buffer per weight, written once.
    buffers_.push_back(std::move(*cx_.Alloc(static_cast<uint64_t>(rows * cols) * 2)));
    const sdk::Tensor t(buffers_.back().get(), 0, OXI_DTYPE_BF16, rows, cols);
    std::vector<uint8_t> zeros(static_cast<size_t>(rows * cols) * 2);
    (void)cx_.Write(t, zeros.data());
    return t;
  }
  sdk::Tensor Cache(int64_t rows, int64_t cols) {
    buffers_.push_back(
        std::move(*cx_.Alloc(static_cast<uint64_t>(rows * cols) * 4, OXI_BUFFER_ZERO)));
    return sdk::Tensor(buffers_.back().get(), 0, OXI_DTYPE_F32, rows, cols);
  }
  void Matmul(const sdk::Tensor& x, const sdk::Tensor& w, const sdk::Tensor& y) {
    AnyOp a;
    a.matmul = sdk::Compute::Make<oxi_matmul_args>(OXI_OP_MATMUL);
    a.matmul.x = x, a.matmul.w = w, a.matmul.y = y.Reshape(1, w.rows);
    ops_.push_back(a);
  }
  void RmsNorm(const sdk::Tensor& x, const sdk::Tensor& w, const sdk::Tensor& out) {
    AnyOp a;
    a.rms_norm = sdk::Compute::Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
    a.rms_norm.x = x, a.rms_norm.weight = w, a.rms_norm.out = out, a.rms_norm.eps = 1e-6f;
    ops_.push_back(a);
  }
  void Rope(const sdk::Tensor& x, const sdk::Tensor& pos, const sdk::Tensor& freq) {
    AnyOp a;
    a.rope = sdk::Compute::Make<oxi_rope_args>(OXI_OP_ROPE);
    a.rope.x = x, a.rope.pos = pos, a.rope.inv_freq = freq, a.rope.out = x;
    a.rope.n_heads = 4, a.rope.head_dim = 64, a.rope.rot_dim = 64;
    ops_.push_back(a);
  }
  void SetRows(const sdk::Tensor& src, const sdk::Tensor& ids, const sdk::Tensor& dst) {
    AnyOp a;
    a.set_rows = sdk::Compute::Make<oxi_set_rows_args>(OXI_OP_SET_ROWS);
    a.set_rows.src = src, a.set_rows.ids = ids, a.set_rows.dst = dst;
    ops_.push_back(a);
  }
  void Add(const sdk::Tensor& x, const sdk::Tensor& y) {
    AnyOp a;
    a.binary = sdk::Compute::Make<oxi_binary_args>(OXI_OP_BINARY);
    a.binary.a = x, a.binary.b = y, a.binary.out = x, a.binary.fn = OXI_BINARY_ADD;
    ops_.push_back(a);
  }

  sdk::Compute cx_;
  sdk::Buffer scratch_;
  std::vector<sdk::Buffer> buffers_;
  std::vector<AnyOp> ops_;
  std::vector<const oxi_op*> pointers_;
};

enum Config { kDirect, kShared, kTracked };

void Run(benchmark::State& state, Config config, bool one_sequence) {
  const oxi_backend_iface* accel = NoopAccelBackend(/*wrap=*/config != kTracked);
  std::unique_ptr<ComposedBackend> composed;
  if (config != kDirect) {
    // The "CPU" is a second copy of the no-op table: nothing runs there.
    static const oxi_backend_iface cpu = [] {
      oxi_backend_iface t = *NoopAccelBackend(true);
      t.device_name = "noop-cpu";
      t.device_kind = OXI_DEVICE_CPU;
      return t;
    }();
    composed = std::move(*ComposedBackend::Create(accel, &cpu, DispatchOptions{}));
  }
  DecodeStep step(composed != nullptr ? composed->iface() : accel);
  for (auto _ : state) {
    const bool ok = one_sequence ? step.RunAsOneSequence() : step.RunOneByOne();
    if (!ok) state.SkipWithError("execute failed");
  }
  state.counters["ops"] = static_cast<double>(step.size());
  state.counters["ns_per_op"] =
      benchmark::Counter(static_cast<double>(state.iterations() * step.size()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(Run, direct_one_by_one, kDirect, false);
BENCHMARK_CAPTURE(Run, shared_one_by_one, kShared, false);
BENCHMARK_CAPTURE(Run, tracked_one_by_one, kTracked, false);
BENCHMARK_CAPTURE(Run, direct_sequence, kDirect, true);
BENCHMARK_CAPTURE(Run, shared_sequence, kShared, true);
BENCHMARK_CAPTURE(Run, tracked_sequence, kTracked, true);

}  // namespace
}  // namespace testing
}  // namespace oxinfer

BENCHMARK_MAIN();
