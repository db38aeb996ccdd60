// Check mode (OXINFER_BACKEND_CHECK=1): every op the accelerator runs is
// recomputed on the CPU reference from the same inputs, and the float outputs
// compared. This file holds the comparison and the log of the worst error per
// op kind; the dispatcher (dispatcher_check.cc) runs the ops.
#ifndef OXINFER_CORE_DISPATCH_CHECK_LOG_H_
#define OXINFER_CORE_DISPATCH_CHECK_LOG_H_

#include <cstdint>
#include <string>

#include "oxinfer/ops.h"

namespace oxinfer {
namespace dispatch {

// max |a - b| / max(max |b|, 1e-6) over the elements of tensor `t` (its
// layout: rows, cols, stride, dtype F32 / F16 / BF16), where `a` and `b` hold
// the bytes of its extent. A NaN or infinity in one and not the other counts
// as an infinite error.
double RelativeError(const oxi_tensor& t, const uint8_t* a, const uint8_t* b);

// Whether RelativeError can compare outputs of this dtype.
bool IsComparable(int32_t dtype);

class CheckLog {
 public:
  struct Entry {
    int64_t checked = 0;   // ops compared
    double worst = 0.0;    // their worst relative error
    std::string worst_op;  // the operands of the op with the worst error
    int64_t failed = 0;    // ops the CPU could not recompute
    std::string failure;   // the first such message
  };

  void RecordError(int kind, double error, const oxi_op* op);
  void RecordFailure(int kind, const std::string& message);
  const Entry& entry(int kind) const { return entries_[Bucket(kind)]; }
  bool empty() const;

  // The worst error per op kind; "" when nothing was checked.
  std::string Report(const std::string& accel, const std::string& cpu) const;

 private:
  static int Bucket(int kind) { return kind > 0 && kind < OXI_OP_KIND_COUNT ? kind : 0; }
  Entry entries_[OXI_OP_KIND_COUNT];
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_CHECK_LOG_H_
