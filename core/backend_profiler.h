// --profile: wraps a backend table so that every op is timed and the bytes it
// streams are counted; prints time and bandwidth per operation. Because all
// model compute goes through the table, this needs nothing from the plugins.
#ifndef OXINFER_CORE_BACKEND_PROFILER_H_
#define OXINFER_CORE_BACKEND_PROFILER_H_

#include <array>
#include <cstdint>
#include <string>

#include "oxinfer/plugin_abi.h"

namespace oxinfer {

class BackendProfiler {
 public:
  enum Op {
    kMatmul, kConvert, kGetRows, kRmsNorm, kRope, kSoftmax, kUnary, kBinary, kScale,
    kAttention, kNumOps
  };
  struct Stat {
    int64_t calls = 0;
    int64_t nanos = 0;
    int64_t bytes = 0;
  };

  // `inner` is borrowed and must outlive the profiler.
  explicit BackendProfiler(const oxi_backend_iface* inner);
  BackendProfiler(const BackendProfiler&) = delete;
  BackendProfiler& operator=(const BackendProfiler&) = delete;

  const oxi_backend_iface* iface() const { return &table_; }
  const oxi_backend_iface* inner() const { return inner_; }
  const Stat& stat(Op op) const { return stats_[op]; }
  void Record(Op op, int64_t nanos, int64_t bytes);
  void Reset();

  // A table: op, calls, total ms, share of time, GB/s.
  std::string Report() const;

  static const char* OpName(Op op);

 private:
  oxi_backend_iface table_;
  const oxi_backend_iface* inner_;
  std::array<Stat, kNumOps> stats_;
};

}  // namespace oxinfer

#endif  // OXINFER_CORE_BACKEND_PROFILER_H_
