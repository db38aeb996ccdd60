// Placement, runs and the per-op bookkeeping of the dispatcher.
#include "core/dispatch/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "oxinfer/sdk/status.hpp"

namespace oxinfer {
namespace dispatch {
namespace {

ProfiledSide ProfiledSideOf(const Device& d) {
  return d.present() ? ProfiledSide{d.name(), d.has_synchronize()} : ProfiledSide{};
}

// `status` with `context: ` before its message.
absl::Status WithContext(const absl::Status& status, const std::string& context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

}  // namespace

Dispatcher::Dispatcher(const oxi_backend_iface* accel, const oxi_backend_iface* cpu, bool profile,
                       bool check)
    : devices_{Device(accel), Device(cpu)},
      name_(absl::StrCat(devices_[kAccel].name(), "+", devices_[kCpu].name())),
      profile_(profile ? std::make_unique<Profile>(ProfiledSideOf(devices_[kAccel]),
                                                   ProfiledSideOf(devices_[kCpu]))
                       : nullptr),
      check_(check ? std::make_unique<CheckLog>() : nullptr),
      transfers_(devices_, profile_.get()) {
  shared_ =
      devices_[kAccel].host_memory() && devices_[kAccel].can_wrap() && devices_[kCpu].host_memory();
}

Dispatcher::~Dispatcher() {
  for (VirtualBuffer* vb : buffers_.Live()) FreeReplicas(vb);
}

absl::Status Dispatcher::Resolve(const oxi_op* op, Plan* plan) const {
  if (!IsValidOpHeader(op)) return WithContext(ValidateOpHeader(op), name_);
  plan->op = op;
  plan->n = op->n_tensors;
  plan->bytes = 0;
  const int first_output = op->n_tensors - op->n_outputs;
  for (int i = 0; i < plan->n; ++i) {
    const oxi_tensor& t = *oxi_op_tensor(op, i);
    Operand& o = plan->operands[i];
    o.vb = nullptr;
    if (t.buffer == nullptr) continue;
    o.vb = buffers_.Find(t.buffer);
    uint64_t extent = 0;
    bool packed = false;
    if (o.vb == nullptr || !ComputeExtent(t, &extent, &packed) || t.offset > o.vb->size ||
        extent > o.vb->size - t.offset) {
      return OperandError(op, i);
    }
    o.begin = t.offset;
    o.end = t.offset + extent;
    o.output = i >= first_output;
    o.fetch = true;
    if (o.output) {
      const bool read = (op->outputs_read >> (i - first_output)) & 1u;
      o.fetch = read || !packed;
    }
    plan->bytes += static_cast<int64_t>(extent);
  }
  return absl::OkStatus();
}

absl::Status Dispatcher::OperandError(const oxi_op* op, int i) const {
  const oxi_tensor& t = *oxi_op_tensor(op, i);
  const std::string what =
      absl::StrCat(name_, ": ", oxi_op_name(op->kind), " ", OperandLabel(op->kind, i));
  const VirtualBuffer* vb = buffers_.Find(t.buffer);
  if (vb == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a buffer of this backend (never allocated here, or freed)"));
  }
  absl::StatusOr<uint64_t> extent = OperandExtent(t);
  if (!extent.ok()) return WithContext(extent.status(), what);
  return absl::OutOfRangeError(absl::StrCat(what, ": bytes [", t.offset, ", ", t.offset + *extent,
                                            ") outside its buffer of ", vb->size, " bytes"));
}

Side Dispatcher::Place(const oxi_op* op) const {
  return devices_[kAccel].Supports(op) ? kAccel : kCpu;
}

absl::Status Dispatcher::Prepare(const Plan& plan, Side side) {
  if (shared_) return absl::OkStatus();  // the replicas are one memory
  for (int i = 0; i < plan.n; ++i) {
    const Operand& o = plan.operands[i];
    if (o.vb == nullptr) continue;
    Replica& here = o.vb->on[side];
    absl::Status s = here.real != nullptr ? absl::OkStatus() : EnsureReal(o.vb, side);
    // Fetched: the bytes valid only on the other side (none when it has none).
    if (s.ok() && o.fetch && !o.vb->on[Other(side)].valid.empty() &&
        !here.valid.Covers(o.begin, o.end)) {
      s = Fetch(o.vb, side, o.begin, o.end);
    }
    if (!s.ok()) {
      return WithContext(
          s, absl::StrCat(name_, ": ", oxi_op_name(plan.op->kind), " ",
                          OperandLabel(plan.op->kind, i), " to ", devices_[side].name()));
    }
  }
  return absl::OkStatus();
}

void Dispatcher::Enqueue(const Plan& plan, Side side) {
  const size_t size = plan.op->struct_size;
  const size_t at = run_used_;
  run_used_ += (size + 15) / 16 * 16;
  if (run_used_ > run_storage_.size())
    run_storage_.resize(std::max(run_used_, 2 * run_storage_.size()));
  std::memcpy(run_storage_.data() + at, plan.op, size);
  auto* tensors = reinterpret_cast<oxi_tensor*>(run_storage_.data() + at + sizeof(oxi_op));
  for (int i = 0; i < plan.n; ++i) {
    if (plan.operands[i].vb != nullptr) tensors[i].buffer = plan.operands[i].vb->on[side].real;
  }
  run_offsets_.push_back(at);
  run_side_ = side;
  run_kind_ = plan.op->kind;
  run_bytes_ = plan.bytes;
}

void Dispatcher::MarkWritten(const Plan& plan, Side side) {
  if (shared_) return;
  for (int i = 0; i < plan.n; ++i) {
    const Operand& o = plan.operands[i];
    if (o.vb == nullptr || !o.output) continue;
    o.vb->on[side].valid.Add(o.begin, o.end);
    o.vb->on[Other(side)].valid.Remove(o.begin, o.end);
  }
}

absl::Status Dispatcher::Touch(Side side) {
  return shared_ ? devices_[Other(side)].Settle() : absl::OkStatus();
}

absl::Status Dispatcher::Flush() {
  if (run_offsets_.empty()) return absl::OkStatus();
  run_ops_.clear();
  for (size_t at : run_offsets_) {
    run_ops_.push_back(reinterpret_cast<const oxi_op*>(run_storage_.data() + at));
  }
  run_offsets_.clear();
  Device& d = devices_[run_side_];
  const int64_t n = static_cast<int64_t>(run_ops_.size());
  absl::Status status = Touch(run_side_);
  if (status.ok() && profile_ != nullptr) {
    const auto start = std::chrono::steady_clock::now();
    status = d.Execute(run_ops_.data(), n);
    if (status.ok()) status = d.Synchronize();
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    profile_->RecordOp(run_kind_, run_side_, nanos, run_bytes_);
  } else if (status.ok()) {
    status = d.Execute(run_ops_.data(), n);
  }
  run_used_ = 0;
  if (status.ok()) return status;
  // "matmul on arena: <its message>".
  const std::string what =
      n == 1 ? oxi_op_name(run_ops_[0]->kind)
             : absl::StrCat("a run of ", n, " ops (", oxi_op_name(run_ops_[0]->kind), " .. ",
                            oxi_op_name(run_ops_[n - 1]->kind), ")");
  return absl::Status(status.code(), absl::StrCat(what, " on ", status.message()));
}

absl::Status Dispatcher::Execute(const oxi_op* const* ops, int64_t n_ops) {
  if (n_ops < 0 || (n_ops > 0 && ops == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(name_, ": execute: ", n_ops, " ops at ",
                                                   ops == nullptr ? "NULL" : "an array"));
  }
  for (int64_t i = 0; i < n_ops; ++i) {
    absl::Status status =
        ops[i] != nullptr
            ? Resolve(ops[i], &plan_)
            : absl::InvalidArgumentError(absl::StrCat(name_, ": execute: op ", i, " is NULL"));
    if (!status.ok()) {
      OXI_RETURN_IF_ERROR(Flush());  // the ops before the failing one still run
      return status;
    }
    Side side = Place(ops[i]);
    if (check_ != nullptr && side == kAccel) {
      OXI_RETURN_IF_ERROR(Flush());
      OXI_RETURN_IF_ERROR(ExecuteChecked(plan_));
      continue;
    }
    if (!run_offsets_.empty() && run_side_ != side) OXI_RETURN_IF_ERROR(Flush());
    status = Prepare(plan_, side);
    if (status.code() == absl::StatusCode::kResourceExhausted && side == kAccel) {
      // The accelerator's memory is full: the op runs on the CPU.
      side = kCpu;
      if (!run_offsets_.empty()) OXI_RETURN_IF_ERROR(Flush());
      status = Prepare(plan_, side);
    }
    if (!status.ok()) {
      OXI_RETURN_IF_ERROR(Flush());
      return status;
    }
    Enqueue(plan_, side);
    MarkWritten(plan_, side);
    if (profile_ != nullptr) OXI_RETURN_IF_ERROR(Flush());  // each op timed alone
  }
  return Flush();
}

absl::Status Dispatcher::Synchronize() {
  absl::Status accel = devices_[kAccel].Synchronize();
  absl::Status cpu = devices_[kCpu].Synchronize();
  return accel.ok() ? cpu : accel;
}

oxi_dtype Dispatcher::PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols) {
  const oxi_dtype layout = devices_[kAccel].PreferredWeightDtype(dtype, rows, cols);
  // A probe matmul [1][cols] x [rows][cols]^T; its buffers are placeholders,
  // which supports() never dereferences (backend_abi.h).
  oxi_matmul_args probe;
  oxi_op_init(&probe.op, sizeof probe, OXI_OP_MATMUL);
  auto placeholder = [](uintptr_t n) { return reinterpret_cast<oxi_buffer*>(n * 64); };
  probe.x = {placeholder(1), 0, OXI_DTYPE_F32, 0, 1, cols, 0};
  probe.w = {placeholder(2), 0, layout, 0, rows, cols, 0};
  probe.y = {placeholder(3), 0, OXI_DTYPE_F32, 0, 1, rows, 0};
  if (devices_[kAccel].Supports(&probe.op)) return layout;
  return devices_[kCpu].PreferredWeightDtype(dtype, rows, cols);
}

}  // namespace dispatch
}  // namespace oxinfer
