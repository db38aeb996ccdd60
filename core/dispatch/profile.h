// --profile: per op kind and backend, calls, time and bytes touched (the sum
// of the operands' extents); per direction, the copies between the backends.
// Report() prints them as a table.
#ifndef OXINFER_CORE_DISPATCH_PROFILE_H_
#define OXINFER_CORE_DISPATCH_PROFILE_H_

#include <cstdint>
#include <string>

#include "core/dispatch/virtual_buffer.h"
#include "oxinfer/ops.h"

namespace oxinfer {
namespace dispatch {

struct OpStats {
  int64_t calls = 0;
  int64_t nanos = 0;
  int64_t bytes = 0;
};

struct CopyStats {
  int64_t copies = 0;
  int64_t nanos = 0;
  int64_t bytes = 0;
};

// The backend of each side as the report names it.
struct ProfiledSide {
  std::string name;           // empty: no backend on this side
  bool synchronized = false;  // ops timed with a synchronize (the backend has one)
};

class Profile {
 public:
  // Op kinds this ABI knows, and one bucket for the others.
  static constexpr int kKinds = OXI_OP_KIND_COUNT + 1;

  Profile(ProfiledSide accel, ProfiledSide cpu);

  void RecordOp(int kind, Side side, int64_t nanos, int64_t bytes);
  // A copy of `bytes` from side `from` to the other.
  void RecordCopy(Side from, int64_t nanos, int64_t bytes);
  void Reset();

  const OpStats& op(int kind, Side side) const { return ops_[Bucket(kind)][side]; }
  const CopyStats& copies(Side from) const { return copies_[from]; }

  // Ops (by time, largest first), then copies; "" before anything ran.
  std::string Report() const;

 private:
  static int Bucket(int kind) { return kind > 0 && kind < OXI_OP_KIND_COUNT ? kind : 0; }

  ProfiledSide sides_[kSides];
  OpStats ops_[kKinds][kSides];
  CopyStats copies_[kSides];
};

}  // namespace dispatch
}  // namespace oxinfer

#endif  // OXINFER_CORE_DISPATCH_PROFILE_H_
