// Check mode: an accelerator op is recomputed on the CPU from snapshots of
// its operands taken before it ran, and the float outputs compared.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dispatch/dispatcher.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace dispatch {

// Operands sorted by buffer and offset; those whose bytes overlap share one
// snapshot, so in-place ops stay in place on the copies.
void Dispatcher::PlanSnapshots(const Plan& plan, CheckState* state) const {
  std::vector<int> order;
  for (int i = 0; i < plan.n; ++i) {
    if (plan.operands[i].vb != nullptr) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Operand &x = plan.operands[a], &y = plan.operands[b];
    return x.vb != y.vb ? x.vb < y.vb : x.begin < y.begin;
  });
  std::vector<Snapshot>& snaps = state->snapshots;
  std::vector<bool> written;
  snaps.clear();
  for (int i : order) {
    const Operand& o = plan.operands[i];
    if (snaps.empty() || snaps.back().vb != o.vb || o.begin >= snaps.back().end) {
      snaps.push_back({o.vb, o.begin, o.end, false, nullptr, o.begin});
      written.push_back(false);
    } else {
      snaps.back().end = std::max(snaps.back().end, o.end);
    }
    if (o.output) written.back() = true;
    state->snapshot_of[i] = static_cast<int>(snaps.size()) - 1;
  }
  // Inputs the op leaves alone and the CPU already holds need no copy.
  for (size_t k = 0; k < snaps.size(); ++k) {
    Snapshot& s = snaps[k];
    if (!written[k] && (shared_ || s.vb->on[kCpu].valid.Covers(s.begin, s.end))) {
      s.borrowed = true;
      s.buffer = s.vb->on[kCpu].real;
      s.base = 0;
    }
  }
}

// Fills a snapshot from wherever its bytes are valid (not counted as copies).
absl::Status Dispatcher::TakeSnapshot(Snapshot* s) {
  if (s->borrowed) return absl::OkStatus();
  Device& cpu = devices_[kCpu];
  OXI_ASSIGN_OR_RETURN(s->buffer, cpu.Alloc(s->end - s->begin, OXI_BUFFER_ZERO));
  Replica& on_cpu = s->vb->on[kCpu];
  if (shared_) return cpu.Copy(s->buffer, 0, on_cpu.real, s->begin, s->end - s->begin);
  pieces_.clear();
  on_cpu.valid.Intersect(s->begin, s->end, &pieces_);
  for (const ByteRange& p : pieces_) {
    OXI_RETURN_IF_ERROR(cpu.Copy(s->buffer, p.begin - s->begin, on_cpu.real, p.begin, p.size()));
  }
  gaps_.clear();
  on_cpu.valid.Gaps(s->begin, s->end, &gaps_);
  std::vector<ByteRange> on_accel;
  for (const ByteRange& gap : gaps_) {
    s->vb->on[kAccel].valid.Intersect(gap.begin, gap.end, &on_accel);
  }
  for (const ByteRange& p : on_accel) {
    const Endpoint to{kCpu, s->buffer, cpu.HostPtr(s->buffer), p.begin - s->begin};
    OXI_RETURN_IF_ERROR(transfers_.Copy(At(s->vb, kAccel, p.begin), to, p.size(), false));
  }
  return absl::OkStatus();
}

// The worst relative error of the op's float outputs, accelerator against
// the CPU's recomputation in the snapshots; negative when none is a float.
absl::StatusOr<double> Dispatcher::CompareOutputs(const Plan& plan, const CheckState& state) {
  const oxi_op* op = plan.op;
  double worst = -1.0;
  std::vector<uint8_t> accel_out, cpu_out;
  for (int i = plan.n - op->n_outputs; i < plan.n; ++i) {
    const Operand& o = plan.operands[i];
    const oxi_tensor& t = *oxi_op_tensor(op, i);
    if (o.vb == nullptr || !IsComparable(t.dtype)) continue;
    const Snapshot& s = state.snapshots[state.snapshot_of[i]];
    accel_out.resize(o.end - o.begin);
    cpu_out.resize(o.end - o.begin);
    if (shared_) {
      OXI_RETURN_IF_ERROR(Touch(kCpu));
      OXI_RETURN_IF_ERROR(
          devices_[kCpu].Read(o.vb->on[kCpu].real, o.begin, accel_out.data(), accel_out.size()));
    } else {
      OXI_RETURN_IF_ERROR(ReadValid(o.vb, o.begin, accel_out.data(), accel_out.size()));
    }
    OXI_RETURN_IF_ERROR(
        devices_[kCpu].Read(s.buffer, o.begin - s.base, cpu_out.data(), cpu_out.size()));
    worst = std::max(worst, RelativeError(t, accel_out.data(), cpu_out.data()));
  }
  return worst;
}

absl::Status Dispatcher::ExecuteChecked(const Plan& plan) {
  const oxi_op* op = plan.op;
  Device& cpu = devices_[kCpu];
  CheckState state;
  PlanSnapshots(plan, &state);
  struct FreeOnExit {
    Device& cpu;
    CheckState& state;
    ~FreeOnExit() {
      for (Snapshot& s : state.snapshots) {
        if (!s.borrowed) cpu.Free(s.buffer);
      }
    }
  } free_on_exit{cpu, state};
  auto context = [&](const char* what) {
    return absl::StrCat(name_, ": check mode: ", what, " of ", oxi_op_name(op->kind), ": ");
  };

  absl::Status status = Touch(kCpu);
  for (Snapshot& s : state.snapshots) {
    if (status.ok()) status = TakeSnapshot(&s);
  }
  if (!status.ok()) {
    return absl::Status(status.code(), context("snapshot") + std::string(status.message()));
  }

  // The op on the accelerator, as without check mode (on the CPU, unchecked,
  // when the accelerator's memory is full).
  Side side = kAccel;
  status = Prepare(plan, side);
  if (status.code() == absl::StatusCode::kResourceExhausted) {
    side = kCpu;
    status = Prepare(plan, side);
  }
  OXI_RETURN_IF_ERROR(status);
  Enqueue(plan, side);
  MarkWritten(plan, side);
  OXI_RETURN_IF_ERROR(Flush());
  if (side == kCpu) return absl::OkStatus();

  // The same op on the CPU, on the snapshots.
  std::vector<uint8_t> bytes((op->struct_size + 15) / 16 * 16);
  std::memcpy(bytes.data(), op, op->struct_size);
  auto* tensors = reinterpret_cast<oxi_tensor*>(bytes.data() + sizeof(oxi_op));
  for (int i = 0; i < plan.n; ++i) {
    if (plan.operands[i].vb == nullptr) continue;
    const Snapshot& s = state.snapshots[state.snapshot_of[i]];
    tensors[i].buffer = s.buffer;
    tensors[i].offset = plan.operands[i].begin - s.base;
  }
  const oxi_op* cpu_op = reinterpret_cast<const oxi_op*>(bytes.data());
  status = cpu.Execute(&cpu_op, 1);
  if (!status.ok()) {
    check_->RecordFailure(op->kind, std::string(status.message()));
    return absl::OkStatus();
  }

  absl::StatusOr<double> worst = CompareOutputs(plan, state);
  if (!worst.ok()) {
    return absl::Status(worst.status().code(),
                        context("reading the outputs") + std::string(worst.status().message()));
  }
  if (*worst >= 0.0) check_->RecordError(op->kind, *worst, op);
  return absl::OkStatus();
}

}  // namespace dispatch
}  // namespace oxinfer
