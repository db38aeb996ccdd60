#include "tools/oxinfer/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_format.h"

namespace oxinfer {
namespace {

std::string Amount(double v, const std::string& unit) {
  if (unit != "B") return absl::StrFormat("%.0f", v);
  if (v >= 1e9) return absl::StrFormat("%.2f GB", v / 1e9);
  if (v >= 1e6) return absl::StrFormat("%.1f MB", v / 1e6);
  return absl::StrFormat("%.0f KB", v / 1e3);
}

}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_),
      tty_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(double done, double total, const std::string& what,
                         const std::string& unit) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const bool complete = total > 0 && done >= total;
  // Quick work stays quiet: nothing until half a second has passed.
  if (elapsed < 0.5 && !drawn_) return;
  if (!complete && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double frac = total > 0 ? std::min(1.0, done / total) : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  std::string rate;
  if (unit == "B" && elapsed > 0 && done > 0) {
    const double per_s = done / elapsed;
    rate = absl::StrFormat(", %s/s", Amount(per_s, unit));
    if (!complete && total > done) {
      const int eta = static_cast<int>((total - done) / per_s);
      rate += eta >= 3600 ? absl::StrFormat(", ETA %dh%02dm", eta / 3600, eta / 60 % 60)
                          : absl::StrFormat(", ETA %dm%02ds", eta / 60, eta % 60);
    }
  }
  // unit "%": plugins count in units of their own; show the share only.
  const std::string amounts =
      unit == "%" ? "" : absl::StrFormat(" %s/%s%s", Amount(done, unit), Amount(total, unit), rate);
  last_line_ = absl::StrFormat("%s [%s] %3.0f%%%s %s", label_, bar, frac * 100, amounts, what);
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K", last_line_.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (drawn_) {
    std::fprintf(stderr, "\n");
  } else if (!tty_ && !last_line_.empty()) {
    std::fprintf(stderr, "%s\n", last_line_.c_str());
  }
}

}  // namespace oxinfer
