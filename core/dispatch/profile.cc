#include "core/dispatch/profile.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace oxinfer {
namespace dispatch {
namespace {

double GBPerSecond(int64_t bytes, int64_t nanos) {
  return nanos > 0 ? static_cast<double>(bytes) / static_cast<double>(nanos) : 0.0;
}

}  // namespace

Profile::Profile(ProfiledSide accel, ProfiledSide cpu) {
  sides_[kAccel] = std::move(accel);
  sides_[kCpu] = std::move(cpu);
}

void Profile::RecordOp(int kind, Side side, int64_t nanos, int64_t bytes) {
  OpStats& s = ops_[Bucket(kind)][side];
  ++s.calls;
  s.nanos += nanos;
  s.bytes += bytes;
}

void Profile::RecordCopy(Side from, int64_t nanos, int64_t bytes) {
  CopyStats& s = copies_[from];
  ++s.copies;
  s.nanos += nanos;
  s.bytes += bytes;
}

void Profile::Reset() {
  for (auto& kind : ops_) {
    for (OpStats& s : kind) s = OpStats();
  }
  for (CopyStats& s : copies_) s = CopyStats();
}

std::string Profile::Report() const {
  struct Row {
    int kind;
    Side side;
    const OpStats* stats;
  };
  std::vector<Row> rows;
  int64_t total = 0;
  for (int k = 0; k < kKinds; ++k) {
    for (Side side : {kAccel, kCpu}) {
      if (ops_[k][side].calls == 0) continue;
      rows.push_back({k, side, &ops_[k][side]});
      total += ops_[k][side].nanos;
    }
  }
  const int64_t copy_nanos = copies_[kAccel].nanos + copies_[kCpu].nanos;
  if (rows.empty() && copies_[kAccel].copies == 0 && copies_[kCpu].copies == 0) return "";
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.stats->nanos > b.stats->nanos; });

  std::string out = "backend profile: each op timed ";
  std::vector<std::string> how;
  for (Side side : {kAccel, kCpu}) {
    const ProfiledSide& s = sides_[side];
    if (s.name.empty()) continue;
    how.push_back(s.synchronized ? absl::StrCat("with a synchronize on ", s.name)
                                 : absl::StrCat("alone on ", s.name, " (synchronous)"));
  }
  absl::StrAppend(&out, absl::StrJoin(how, ", "), "\n");
  absl::StrAppendFormat(&out, "%-17s %-10s %8s %10s %6s %10s %8s\n", "op", "backend", "calls", "ms",
                        "time", "MB", "GB/s");
  for (const Row& r : rows) {
    const char* name = r.kind == 0 ? "other" : oxi_op_name(r.kind);
    absl::StrAppendFormat(&out, "%-17s %-10s %8d %10.3f %5.1f%% %10.2f %8.2f\n", name,
                          sides_[r.side].name, r.stats->calls, r.stats->nanos / 1e6,
                          total > 0 ? 100.0 * r.stats->nanos / total : 0.0, r.stats->bytes / 1e6,
                          GBPerSecond(r.stats->bytes, r.stats->nanos));
  }
  absl::StrAppendFormat(&out, "%-17s %-10s %8s %10.3f\n", "total ops", "", "", total / 1e6);
  if (!sides_[kAccel].name.empty()) {
    absl::StrAppendFormat(&out, "%-28s %8s %10s %6s %10s %8s\n", "copies", "copies", "ms", "", "MB",
                          "GB/s");
    for (Side from : {kAccel, kCpu}) {
      const CopyStats& c = copies_[from];
      const std::string direction =
          absl::StrCat(sides_[from].name, " -> ", sides_[Other(from)].name);
      absl::StrAppendFormat(&out, "%-28s %8d %10.3f %6s %10.2f %8.2f\n", direction, c.copies,
                            c.nanos / 1e6, "", c.bytes / 1e6, GBPerSecond(c.bytes, c.nanos));
    }
    absl::StrAppendFormat(&out, "%-28s %8s %10.3f\n", "total copies", "", copy_nanos / 1e6);
  }
  return out;
}

}  // namespace dispatch
}  // namespace oxinfer
