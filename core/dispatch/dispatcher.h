// The work behind a composed backend table (core/backend_dispatch.h): an
// accelerator for the ops its supports() accepts, the CPU reference for the
// rest, and virtual buffers whose bytes move between the two only where an op
// needs them on the other side.
//
//   - Buffers: a virtual buffer has a real buffer per backend, allocated on
//     first use, and the byte ranges valid there (virtual_buffer.h). Writes
//     go to the accelerator (unless the buffer so far lives on the CPU
//     alone); wrapped host memory is the CPU's replica, so a mapped
//     checkpoint stays zero-copy on the CPU side. Reads take each range from
//     where it is valid.
//   - Ops: placed one by one (the accelerator when it supports the op, else
//     the CPU). Before an op runs on a side, the ranges of its operands'
//     extents that are valid only on the other side are copied over; an
//     output is made valid over its whole extent too, unless it is packed and
//     not read (the op then writes all of it). Afterwards its outputs are
//     valid on that side only. Consecutive ops for one side go to it in one
//     execute call.
//   - Shared memory: when the accelerator's buffers are host memory and it
//     can wrap host memory, it wraps the CPU's replica: both see the same
//     bytes and nothing is ever copied.
//   - Accelerator memory full (RESOURCE_EXHAUSTED from its buffer_alloc):
//     writes stay on the CPU and ops run there.
//
// Like a backend's, a failed execute leaves the outputs of its ops undefined
// (the ops before the failing one have run).
//
// One thread at a time, as every backend table (backend_abi.h).
#ifndef OXINFER_CORE_DISPATCH_DISPATCHER_H_
#define OXINFER_CORE_DISPATCH_DISPATCHER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dispatch/check_log.h"
#include "core/dispatch/device.h"
#include "core/dispatch/op_info.h"
#include "core/dispatch/profile.h"
#include "core/dispatch/transfer.h"
#include "core/dispatch/virtual_buffer.h"

namespace oxinfer {
namespace dispatch {

class Dispatcher {
 public:
  // Both tables are borrowed and validated by the caller (Device::Validate).
  Dispatcher(const oxi_backend_iface* accel, const oxi_backend_iface* cpu, bool profile,
             bool check);
  ~Dispatcher();  // frees the real buffers of every virtual buffer still live
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  const Device& device(Side side) const { return devices_[side]; }
  const std::string& name() const { return name_; }
  // The accelerator wraps the CPU's replicas (nothing is ever copied).
  bool shared() const { return shared_; }

  // ---- the entries of oxi_backend_iface ----
  absl::StatusOr<oxi_buffer*> Alloc(uint64_t size, uint32_t flags);
  absl::StatusOr<oxi_buffer*> Wrap(const void* host, uint64_t size, uint32_t flags);
  void Free(oxi_buffer* buffer);
  void* HostPtr(oxi_buffer* buffer);
  absl::Status Write(oxi_buffer* dst, uint64_t offset, const void* src, uint64_t size);
  absl::Status Read(oxi_buffer* src, uint64_t offset, void* dst, uint64_t size);
  absl::Status Copy(oxi_buffer* dst, uint64_t dst_offset, oxi_buffer* src, uint64_t src_offset,
                    uint64_t size);
  // Either backend takes the op (the CPU, complete, normally does).
  bool Supports(const oxi_op* op) const {
    return devices_[kAccel].Supports(op) || devices_[kCpu].Supports(op);
  }
  absl::Status Execute(const oxi_op* const* ops, int64_t n_ops);
  absl::Status Synchronize();
  oxi_dtype PreferredWeightDtype(oxi_dtype dtype, int64_t rows, int64_t cols);

  // Null unless profiling / checking.
  Profile* profile() { return profile_.get(); }
  const Profile* profile() const { return profile_.get(); }
  const CheckLog* check_log() const { return check_.get(); }

 private:
  // An operand resolved to its virtual buffer and the bytes it touches.
  // (Plain fields: Resolve sets those of the op's operands.)
  struct Operand {
    VirtualBuffer* vb;  // null: an absent optional operand
    uint64_t begin, end;
    bool output;
    bool fetch;  // its extent must be valid where the op runs, before it runs
  };
  struct Plan {
    const oxi_op* op;
    int n;
    int64_t bytes;  // sum of the extents, for the profile
    Operand operands[kMaxOperands];
  };

  // ---- placement and runs (dispatcher.cc) ----
  absl::Status Resolve(const oxi_op* op, Plan* plan) const;
  // Why operand i of an op Resolve refused is wrong.
  absl::Status OperandError(const oxi_op* op, int i) const;
  Side Place(const oxi_op* op) const;
  // Makes every operand's real buffer exist on `side` and the needed ranges valid there.
  absl::Status Prepare(const Plan& plan, Side side);
  // Appends the op, its operands translated to `side`'s buffers, to the run.
  void Enqueue(const Plan& plan, Side side);
  // Marks the outputs valid on `side` only.
  void MarkWritten(const Plan& plan, Side side);
  // Executes the run (one execute call), timing it when profiling.
  absl::Status Flush();
  // Waits for the other side's queued work before `side` touches shared bytes.
  absl::Status Touch(Side side);

  // ---- buffers (dispatcher_buffers.cc) ----
  absl::Status EnsureReal(VirtualBuffer* vb, Side side);
  // Copies the parts of [begin, end) valid on the other side and not on `side`.
  absl::Status Fetch(VirtualBuffer* vb, Side side, uint64_t begin, uint64_t end);
  absl::StatusOr<VirtualBuffer*> Lookup(const oxi_buffer* handle, uint64_t offset, uint64_t size,
                                        const char* what) const;
  Endpoint At(VirtualBuffer* vb, Side side, uint64_t offset) const;
  // Reads from wherever each range is valid (zeros where nowhere).
  absl::Status ReadValid(VirtualBuffer* vb, uint64_t offset, uint8_t* dst, uint64_t size);
  // Writes to the accelerator, unless the buffer so far lives on the CPU alone.
  absl::Status WriteWhereItLives(VirtualBuffer* vb, uint64_t offset, const void* src,
                                 uint64_t size);
  void FreeReplicas(VirtualBuffer* vb);

  // ---- check mode (dispatcher_check.cc) ----
  // Bytes [begin, end) of a virtual buffer on the CPU for the recomputation:
  // a temporary copy at offset `base` = begin, or (`borrowed`, for inputs the
  // op does not write and the CPU holds) the CPU replica itself, base 0.
  struct Snapshot {
    VirtualBuffer* vb;
    uint64_t begin, end;
    bool borrowed;
    oxi_buffer* buffer;
    uint64_t base;
  };
  struct CheckState {
    std::vector<Snapshot> snapshots;
    int snapshot_of[kMaxOperands];  // per operand
  };
  void PlanSnapshots(const Plan& plan, CheckState* state) const;
  absl::Status TakeSnapshot(Snapshot* s);
  absl::StatusOr<double> CompareOutputs(const Plan& plan, const CheckState& state);
  // Runs the op on the accelerator and again on the CPU, and logs the difference.
  absl::Status ExecuteChecked(const Plan& plan);

  Device devices_[kSides];
  std::string name_;  // "<accel>+<cpu>", the start of the messages about ops
  bool shared_ = false;
  BufferTable buffers_;
  std::unique_ptr<Profile> profile_;
  std::unique_ptr<CheckLog> check_;
  Transfers transfers_;

  Plan plan_;  // the op being placed
  // The run being built: ops for one side, stored translated.
  Side run_side_ = kCpu;
  int run_kind_ = 0;                  // when profiling, a run is one op: its kind
  int64_t run_bytes_ = 0;             // and its bytes
  std::vector<uint8_t> run_storage_;  // [0, run_used_) holds the run's ops
  size_t run_used_ = 0;
  std::vector<size_t> run_offsets_;
  std::vector<const oxi_op*> run_ops_;
  // Scratch lists of ranges, reused.
  std::vector<ByteRange> gaps_, pieces_;
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_DISPATCHER_H_
