// What GET /metrics reports, in Prometheus' text exposition format:
// counters since the start, and gauges of now (the decode rate over the last
// kRateWindowSeconds, the queue depth and the busy slots).
#ifndef OXINFER_TOOLS_SERVER_METRICS_H_
#define OXINFER_TOOLS_SERVER_METRICS_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

namespace oxinfer::server {

class Metrics {
 public:
  static constexpr double kRateWindowSeconds = 10.0;

  Metrics();
  // A request to `endpoint` answered with HTTP `status`.
  void CountRequest(const std::string& endpoint, int status);
  void AddPromptTokens(int64_t n);
  // Generated tokens, counted as they stream.
  void AddCompletionTokens(int64_t n);

  std::string Render(int queue_depth, int busy_slots, int slots);

 private:
  using Clock = std::chrono::steady_clock;
  double RateLocked(Clock::time_point now);

  std::mutex mu_;
  const Clock::time_point start_;
  std::deque<std::pair<std::string, int>> keys_;  // (endpoint, status) in first-seen order
  std::deque<int64_t> counts_;
  int64_t prompt_tokens_ = 0;
  int64_t completion_tokens_ = 0;
  std::deque<std::pair<Clock::time_point, int64_t>> recent_;  // tokens per moment
};

}  // namespace oxinfer::server

#endif  // OXINFER_TOOLS_SERVER_METRICS_H_
