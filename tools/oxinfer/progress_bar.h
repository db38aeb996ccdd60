// A one-line progress bar on stderr for long work (loading, downloads,
// diffusion steps). Redraws in place on a terminal, at most ~10 times a
// second; prints nothing until the work has taken half a second, so quick
// jobs stay quiet. Off a terminal it prints only the final line.
#ifndef OXINFER_TOOLS_OXINFER_PROGRESS_BAR_H_
#define OXINFER_TOOLS_OXINFER_PROGRESS_BAR_H_

#include <chrono>
#include <string>

namespace oxinfer {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // finishes the line if anything was drawn

  // done of total units; `unit` "B" formats bytes (KB, MB, GB), "%" shows
  // only the share done.
  void Update(double done, double total, const std::string& what = "",
              const std::string& unit = "");
  void Finish();

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool tty_;
  bool drawn_ = false;
  bool finished_ = false;
  std::string last_line_;
};

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_PROGRESS_BAR_H_
