#include "tests/backends/random_program.h"

#include <algorithm>
#include <random>

#include "tests/backends/dispatch_test_util.h"

namespace oxinfer {
namespace testing {
namespace {

constexpr int kBuffers = kRandomProgramBuffers, kRows = 32, kCols = 64;

// One op's argument struct, big enough for any of the kinds used here.
union AnyOp {
  oxi_op op;
  oxi_matmul_args matmul;
  oxi_rms_norm_args rms_norm;
  oxi_scale_args scale;
  oxi_unary_args unary;
  oxi_binary_args binary;
  oxi_set_rows_args set_rows;
};

class RandomProgram {
 public:
  RandomProgram(const oxi_backend_iface* be, uint32_t seed) : be_(be), cx_(be), rng_(seed) {}

  // The final contents of the buffers.
  sdk::StatusOr<std::vector<std::vector<float>>> Run(int steps) {
    for (int b = 0; b < kBuffers; ++b) {
      OXI_ASSIGN_OR_RETURN(sdk::OwnedTensor t, cx_.NewTensor(OXI_DTYPE_F32, kRows, kCols));
      OXI_RETURN_IF_ERROR(cx_.Write(t, RandomFloats(kRows * kCols, rng_()).data()));
      buffers_.push_back(std::move(t));
    }
    const oxi_dtype types[3] = {OXI_DTYPE_F32, OXI_DTYPE_BF16, OXI_DTYPE_Q8_0};
    for (oxi_dtype t : types) {
      OXI_ASSIGN_OR_RETURN(
          sdk::OwnedTensor w,
          UploadAs(cx_, RandomFloats(kCols * kCols, rng_(), 0.2f), kCols, kCols, t));
      weights_.push_back(std::move(w));
    }
    std::vector<AnyOp> run;
    for (int s = 0; s < steps; ++s) {
      const int what = Pick(10);
      if (what < 7) {
        run.push_back(RandomOp(what));
        if (run.size() < static_cast<size_t>(1 + Pick(6))) continue;
      } else if (what == 7) {
        OXI_RETURN_IF_ERROR(Flush(&run));
        const sdk::Tensor dst = View(Pick(kBuffers), false);
        OXI_RETURN_IF_ERROR(cx_.Write(dst, RandomFloats(dst.numel(), rng_()).data()));
      } else if (what == 8) {
        OXI_RETURN_IF_ERROR(Flush(&run));
        const int64_t row = kCols * 4, n = 1 + Pick(8);
        OXI_RETURN_IF_ERROR(cx_.CopyBytes(
            buffers_[Pick(kBuffers)].buffer.get(), Pick(kRows - n) * row + Pick(2) * 128,
            buffers_[Pick(kBuffers)].buffer.get(), Pick(kRows - n) * row, n * row - 128));
      }
      OXI_RETURN_IF_ERROR(Flush(&run));
    }
    OXI_RETURN_IF_ERROR(Flush(&run));
    std::vector<std::vector<float>> out;
    for (const sdk::OwnedTensor& b : buffers_) out.push_back(ReadFloats(cx_, b));
    return out;
  }

 private:
  int64_t Pick(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }

  // Rows [r0, r0 + n) of buffer b, all columns or (when allowed) 32 of them.
  sdk::Tensor View(int b, bool strided, int64_t rows = 0) {
    const int64_t n = rows > 0 ? rows : 1 + Pick(8);
    sdk::Tensor t = buffers_[b].t.Rows(Pick(kRows - n + 1), n);
    return strided && Pick(3) == 0 ? t.Cols(16 * Pick(3), 32) : t;
  }
  // An output of x's shape in another buffer, or x itself (in place).
  sdk::Tensor Output(int xb, const sdk::Tensor& x, bool in_place_ok) {
    if (in_place_ok && Pick(3) == 0) return x;
    const int ob = (xb + 1 + Pick(kBuffers - 1)) % kBuffers;
    sdk::Tensor o = buffers_[ob].t.Rows(Pick(kRows - x.rows + 1), x.rows);
    return x.cols == kCols ? o : o.Cols(16 * Pick(3), x.cols);
  }

  AnyOp RandomOp(int what) {
    AnyOp a;
    const int xb = Pick(kBuffers);
    sdk::Tensor x = View(xb, what != 1);
    switch (what) {
      case 0:  // arena
        a.rms_norm = sdk::Compute::Make<oxi_rms_norm_args>(OXI_OP_RMS_NORM);
        a.rms_norm.x = x, a.rms_norm.out = Output(xb, x, true), a.rms_norm.eps = 1e-5f;
        break;
      case 1:  // arena for F32 / BF16 weights, CPU for Q8_0
        a.matmul = sdk::Compute::Make<oxi_matmul_args>(OXI_OP_MATMUL);
        a.matmul.x = x, a.matmul.w = weights_[Pick(3)], a.matmul.y = Output(xb, x, false);
        break;
      case 2:
      case 3:
        a.scale = sdk::Compute::Make<oxi_scale_args>(OXI_OP_SCALE);
        a.scale.x = x, a.scale.out = Output(xb, x, true), a.scale.scale = 0.75f,
        a.scale.bias = 0.1f;
        break;
      case 4:
        a.unary = sdk::Compute::Make<oxi_unary_args>(OXI_OP_UNARY);
        a.unary.x = x, a.unary.out = Output(xb, x, true), a.unary.fn = OXI_UNARY_TANH;
        break;
      case 5: {
        a.binary = sdk::Compute::Make<oxi_binary_args>(OXI_OP_BINARY);
        const int bb = (xb + 1) % kBuffers;
        a.binary.a = x, a.binary.b = View(bb, false, 1).Cols(0, x.cols);
        a.binary.out = x, a.binary.fn = OXI_BINARY_MUL;
        break;
      }
      default: {  // set_rows: distinct ids into another buffer (rows read-modify-write)
        a.set_rows = sdk::Compute::Make<oxi_set_rows_args>(OXI_OP_SET_ROWS);
        x = View(xb, false, 1 + Pick(4));
        std::vector<int32_t> ids(kRows);
        for (int i = 0; i < kRows; ++i) ids[i] = i;
        std::shuffle(ids.begin(), ids.end(), rng_);
        auto t = cx_.Upload(ids.data(), OXI_DTYPE_I32, 1, x.rows);
        id_buffers_.push_back(std::move(*t));
        a.set_rows.src = x, a.set_rows.ids = id_buffers_.back();
        a.set_rows.dst = buffers_[(xb + 1) % kBuffers].t;
      }
    }
    return a;
  }

  sdk::Status Flush(std::vector<AnyOp>* run) {
    if (run->empty()) return sdk::OkStatus();
    std::vector<const oxi_op*> ops;
    for (const AnyOp& a : *run) ops.push_back(&a.op);
    char error[1024] = {};
    const int32_t rc =
        be_->execute(be_->self, ops.data(), static_cast<int64_t>(ops.size()), error, sizeof error);
    run->clear();
    return rc == OXI_OK ? sdk::OkStatus() : sdk::Status(rc, error);
  }

  const oxi_backend_iface* be_;
  sdk::Compute cx_;
  std::mt19937 rng_;
  std::vector<sdk::OwnedTensor> buffers_, weights_, id_buffers_;
};

}  // namespace

sdk::StatusOr<std::vector<std::vector<float>>> RunRandomProgram(const oxi_backend_iface* be,
                                                                uint32_t seed, int steps) {
  RandomProgram p(be, seed);
  return p.Run(steps);
}

}  // namespace testing
}  // namespace oxinfer
