#include "tools/server/metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace oxinfer::server {

Metrics::Metrics() : start_(Clock::now()) {}

void Metrics::CountRequest(const std::string& endpoint, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].first == endpoint && keys_[i].second == status) {
      ++counts_[i];
      return;
    }
  }
  keys_.emplace_back(endpoint, status);
  counts_.push_back(1);
}

void Metrics::AddPromptTokens(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  prompt_tokens_ += n;
}

void Metrics::AddCompletionTokens(int64_t n) {
  if (n <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  completion_tokens_ += n;
  const Clock::time_point now = Clock::now();
  recent_.emplace_back(now, n);
  RateLocked(now);  // drops what left the window
}

double Metrics::RateLocked(Clock::time_point now) {
  const auto window = std::chrono::duration<double>(kRateWindowSeconds);
  while (!recent_.empty() && now - recent_.front().first > window) recent_.pop_front();
  int64_t tokens = 0;
  for (const auto& r : recent_) tokens += r.second;
  // A server up for less than the window divides by its uptime.
  const double span =
      std::min(kRateWindowSeconds, std::chrono::duration<double>(now - start_).count());
  return span > 0 ? tokens / span : 0.0;
}

std::string Metrics::Render(int queue_depth, int busy_slots, int slots) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  absl::StrAppend(&out,
                  "# HELP oxinfer_requests_total HTTP requests answered, by endpoint and status.\n",
                  "# TYPE oxinfer_requests_total counter\n");
  for (size_t i = 0; i < keys_.size(); ++i) {
    absl::StrAppendFormat(&out, "oxinfer_requests_total{endpoint=\"%s\",status=\"%d\"} %d\n",
                          keys_[i].first, keys_[i].second, counts_[i]);
  }
  absl::StrAppendFormat(&out,
                        "# HELP oxinfer_prompt_tokens_total Prompt tokens of answered requests.\n"
                        "# TYPE oxinfer_prompt_tokens_total counter\n"
                        "oxinfer_prompt_tokens_total %d\n"
                        "# HELP oxinfer_completion_tokens_total Tokens generated.\n"
                        "# TYPE oxinfer_completion_tokens_total counter\n"
                        "oxinfer_completion_tokens_total %d\n"
                        "# HELP oxinfer_tokens_per_second Tokens generated per second, all "
                        "requests together, over the last %g s.\n"
                        "# TYPE oxinfer_tokens_per_second gauge\n"
                        "oxinfer_tokens_per_second %.3f\n"
                        "# HELP oxinfer_queue_depth Requests waiting for a slot.\n"
                        "# TYPE oxinfer_queue_depth gauge\n"
                        "oxinfer_queue_depth %d\n"
                        "# HELP oxinfer_busy_slots Slots generating (of oxinfer_slots).\n"
                        "# TYPE oxinfer_busy_slots gauge\n"
                        "oxinfer_busy_slots %d\n"
                        "# HELP oxinfer_slots Sequences decoded together at most (--parallel).\n"
                        "# TYPE oxinfer_slots gauge\n"
                        "oxinfer_slots %d\n",
                        prompt_tokens_, completion_tokens_, kRateWindowSeconds,
                        RateLocked(Clock::now()), queue_depth, busy_slots, slots);
  return out;
}

}  // namespace oxinfer::server
